/**
 * Block code generation: one straight-line run of plain instructions (Ctl.None) of a function
 * becomes ONE generated function, so the hot loop dispatches once per block instead of once per
 * instruction. Consecutive generated ALU lane loops (codegen.ts `lanes`) are fused into a single
 * loop over the active lanes that does every instruction of the run for one lane before the next
 * lane: they touch only that lane's registers and cannot fault, so the order of lanes does not
 * show. Every other plain instruction (loads, stores, atomics, warp-wide operations, anything that
 * can fault) runs its own lane loop in program order, with its guard, so a fault stops at exactly
 * that instruction: before calling it the block notes its index and the thread-instructions so far
 * in BLOCK_PROGRESS, from which the hot loop rebuilds the state of the per-instruction path.
 *
 * The step log's entries ((global pc, warp mask) per warp-step) are written inline, before the
 * instructions they describe, the same words the per-instruction path writes.
 */
import { boundLoopOf, type BoundLoop, laneWrites, type View } from '../codegen.js';
import type { CInstr, Exec } from '../compiled.js';
import type { Warp } from '../state.js';
import { constantRead, type Constants } from './constants.js';

/** A compiled block: runs all its instructions for the active lanes `m`; returns the thread-instructions. */
export type BlockRun = (w: Warp, m: number, log: Uint32Array, lp: number, g: number, mask: number) => number;

/** Where a block that threw stopped: the instruction (index in the block) and thread-instructions counted, that one included. */
export const BLOCK_PROGRESS = { k: 0, t: 0 };

type Factory = (K: unknown, XS: readonly unknown[], EX: readonly Exec[], ST: typeof BLOCK_PROGRESS, POPC: (x: number) => number, GM: typeof guardMask) => BlockRun;

/** The lanes of `m` whose guard predicate (at register slot `base`) holds, negated by `neg`. */
function guardMask(i32: Int32Array, base: number, m: number, neg: boolean): number {
  let r = 0;
  for (let l = 0; l < 32; l++) if (((m >>> l) & 1) && (i32[base + 2 * l] !== 0) !== neg) r |= 1 << l;
  return r;
}

function popc(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** A constant of a bound loop as generated code: numbers inline, anything else from the table XS. */
function constant(v: unknown, xs: unknown[]): string {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'boolean' || v === undefined) return String(v);
  xs.push(v);
  return `$XS[${xs.length - 1}]`;
}

/**
 * Registers held in locals across the instructions of a fused segment, per lane: each register
 * word an unguarded instruction wrote (as the int32 the word now holds), and each float value
 * (f32 or f64, as read back). Stores still go to the register file; only reloads are saved. A
 * float local is used only when it is not NaN (a NaN's payload is read back from memory, where
 * the typed array put it).
 */
class LaneCache {
  private readonly words = new Map<number, string>();
  private readonly floats = new Map<number, { view: 'f' | 'd'; v: string }>();
  private n = 0;
  readonly decls: string[] = [];

  constructor(private readonly consts: Constants) {}

  private fresh(): string {
    const v = `$r${this.n++}`;
    this.decls.push(v);
    return v;
  }

  read(v: View, name: string, base: number): string {
    const k = constantRead(this.consts, v, name, base);
    if (k !== undefined) return k;
    const w = this.words.get(base), h = this.words.get(base + 1), fl = this.floats.get(base);
    switch (v) {
      case 'i': return w !== undefined ? `const ${name} = ${w};` : `const ${name} = I[${base} + o];`;
      case 'u': return w !== undefined ? `const ${name} = ${w} >>> 0;` : `const ${name} = U[${base} + o];`;
      case 'p': return w !== undefined ? `const ${name} = ${w} !== 0;` : `const ${name} = I[${base} + o] !== 0;`;
      case 'l': return w !== undefined && h !== undefined ? `const ${name}lo = ${w} >>> 0, ${name}hi = ${h} >>> 0;` : `const ${name}lo = U[${base} + o], ${name}hi = U[${base} + o + 1];`;
      case 'f': return fl?.view === 'f' ? `const ${name} = ${fl.v} === ${fl.v} ? ${fl.v} : F[${base} + o];` : `const ${name} = F[${base} + o];`;
      case 'd': return fl?.view === 'd' ? `const ${name} = ${fl.v} === ${fl.v} ? ${fl.v} : G[(${base} >> 1) + l];` : `const ${name} = G[(${base} >> 1) + l];`;
      default: return '';
    }
  }

  /** Forget what a write of view `v` at `base` changes. */
  private clobber(v: View, base: number): void {
    if (v === 'n') return;
    const wide = v === 'd' || v === 'l';
    for (const b of wide ? [base, base + 1] : [base]) {
      this.words.delete(b);
      this.floats.delete(b);
      this.floats.delete(b - 1); // an f64 value held at b - 1 covers word b
    }
  }

  /** After a write of `name` (view `v`) at `base`: statements keeping the new value, when `keep`. */
  wrote(v: View, name: string, base: number, keep: boolean): string {
    this.clobber(v, base);
    if (!keep || v === 'n') return '';
    const x = this.fresh();
    switch (v) {
      case 'i': case 'u': this.words.set(base, x); return `${x} = ${name} | 0;`;
      case 'p': this.words.set(base, x); return `${x} = ${name} ? 1 : 0;`;
      case 'l': {
        const y = this.fresh();
        this.words.set(base, x); this.words.set(base + 1, y);
        return `${x} = ${name}lo | 0; ${y} = ${name}hi | 0;`;
      }
      case 'f': this.floats.set(base, { view: 'f', v: x }); return `${x} = Math.fround(${name});`;
      case 'd': this.floats.set(base, { view: 'd', v: x }); return `${x} = +${name};`;
      default: return '';
    }
  }
}

/** One fused lane-loop segment: instructions [from, to) of the block, all generated ALU loops. */
function fusedSegment(code: readonly CInstr[], consts: Constants, p: number, from: number, to: number, loops: readonly BoundLoop[], xs: unknown[], rec: boolean): string {
  const out: string[] = [];
  if (rec) for (let k = from; k < to; k++) out.push(`$log[$lp + ${2 * k}] = $g + ${k}; $log[$lp + ${2 * k + 1}] = $mask;`);
  let plain = 0;
  const body: string[] = [];
  const cache = new LaneCache(consts);
  for (let k = from; k < to; k++) {
    const ins = code[p + k]!;
    const b = loops[k - from]!;
    const s = b.spec;
    const guarded = ins.guard >= 0;
    const reads = s.srcs.map((v, i) => cache.read(v, 'abc'[i]!, [b.A, b.B, b.C][i]!)).join('\n');
    // the write of d first, then e (laneWrites' order), so a shared slot ends with e
    const keep = cache.wrote(s.dst, 'd', b.D, !guarded) + cache.wrote(s.dst2, 'e', b.E, !guarded);
    const inner = `{
      const D = ${b.D}, A = ${b.A}, B = ${b.B}, C = ${b.C}, E = ${b.E}, X0 = ${constant(b.X[0], xs)}, X1 = ${constant(b.X[1], xs)}, X2 = ${constant(b.X[2], xs)};
      ${reads}
      let d = 0, dlo = 0, dhi = 0, e = 0;
      { ${s.body} }
      ${laneWrites(s.dst, s.dst2)}
      ${keep}
    }`;
    if (guarded) body.push(`if ((I[${ins.guard} + o] !== 0) !== ${ins.guardNeg}) { ${inner} $t++; }`);
    else { body.push(inner); plain++; }
  }
  if (plain > 0) out.push(`$t += ${plain} * $POPC(m);`);
  out.push(`for (let l = 0; l < 32; l++) {
    if (((m >>> l) & 1) === 0) continue;
    const o = l << 1;
    ${cache.decls.length ? `let ${cache.decls.map((v) => `${v} = 0`).join(', ')};` : ''}
    ${body.join('\n')}
  }`);
  return out.join('\n');
}

/** One instruction on the per-instruction form, in program order (it may fault). */
function singleStep(ins: CInstr, k: number, rec: boolean): string {
  const mask = ins.guard >= 0 ? `$GM(I, ${ins.guard}, m, ${ins.guardNeg})` : 'm';
  return `${rec ? `$log[$lp + ${2 * k}] = $g + ${k}; $log[$lp + ${2 * k + 1}] = $mask;` : ''}
    $mk = ${mask};
    $t += $POPC($mk);
    $ST.k = ${k}; $ST.t = $t;
    if ($mk !== 0) $EX[${k}](w, $mk);`;
}

/**
 * The block of `len` instructions of `code` from `p` (each Ctl.None with an exec), generated for
 * recording on (`rec`) or off. Throws when the generated text does not compile (the caller then
 * generates it again without fused segments).
 */
export function generateBlock(code: readonly CInstr[], consts: Constants, p: number, len: number, rec: boolean, fuse = true): BlockRun {
  const xs: unknown[] = [];
  const ex: Exec[] = [];
  const parts: string[] = [];
  let K: unknown = undefined;
  let k = 0;
  while (k < len) {
    const loops: BoundLoop[] = [];
    let j = k;
    for (; fuse && j < len; j++) {
      const b = boundLoopOf(code[p + j]!.exec);
      if (b === undefined || (K !== undefined && b.K !== K)) break;
      K = b.K;
      loops.push(b);
    }
    if (j > k) {
      // a fused loop cannot fault; should a helper throw all the same, the block's report names the segment's first instruction
      parts.push(`$ST.k = ${k}; $ST.t = $t;`, fusedSegment(code, consts, p, k, j, loops, xs, rec));
      k = j;
      continue;
    }
    const ins = code[p + k]!;
    ex[k] = ins.exec!;
    parts.push(singleStep(ins, k, rec));
    k++;
  }
  const src = `
    return function block(w, m, $log, $lp, $g, $mask) {
      const I = w.i32, U = w.u32, F = w.f32, G = w.f64;
      let $t = 0, $mk = 0;
      ${parts.join('\n')}
      return $t;
    };`;
  const f = new Function('K', '$XS', '$EX', '$ST', '$POPC', '$GM', src) as Factory;
  return f(K, xs, ex, BLOCK_PROGRESS, popc, guardMask);
}
