/**
 * Register traffic of a fused lane loop (src/exec/block/gen.ts): what each instruction reads from
 * the register file or from a local holding a value an earlier instruction of the loop left, and
 * the generated text of one ALU instruction (or uniform load) for one lane.
 */
import type { BoundLoop, View } from '../codegen.js';
import { laneWrites } from '../codegen.js';
import type { CInstr } from '../compiled.js';
import { constantRead, type Constants } from './constants.js';
import type { MemSpec, UniformSpec } from './memspec.js';
import type { DeadStores } from './deadstores.js';

/** A constant of a bound loop as generated code: numbers inline, anything else from the table XS. */
export function constant(v: unknown, xs: unknown[]): string {
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
export class LaneCache {
  private readonly words = new Map<number, string>();
  private readonly floats = new Map<number, { view: 'f' | 'd'; v: string }>();
  /** f32 registers whose bits an expression reads exactly (a load's Float32Array view of memory): no NaN check needed. */
  private readonly exact = new Map<number, string>();
  private n = 0;
  readonly decls: string[] = [];

  /** The lean form's store marks and unserved reads (deadstores.ts), when the block is generated lean. */
  constructor(private readonly consts: Constants, readonly dse?: DeadStores) {}

  /** `text` storing the register at `base`: marked for dropping when the block is generated lean. */
  store(base: number, text: string): string {
    return this.dse === undefined ? text : this.dse.store(base, text);
  }

  private fresh(): string {
    const v = `$r${this.n++}`;
    this.decls.push(v);
    return v;
  }

  read(v: View, name: string, base: number): string {
    const k = constantRead(this.consts, v, name, base);
    if (k !== undefined) return k;
    const r = this.readText(v, name, base);
    // a read the locals do not serve (or serve only when not NaN) reads the register file
    if (this.dse !== undefined && (r.includes(`[${base} + o]`) || r.includes(`[(${base} >> 1) + l]`))) this.dse.read(base);
    return r;
  }

  private readText(v: View, name: string, base: number): string {
    const w = this.words.get(base), h = this.words.get(base + 1), fl = this.floats.get(base);
    switch (v) {
      case 'i': return w !== undefined ? `const ${name} = ${w};` : `const ${name} = I[${base} + o];`;
      case 'u': return w !== undefined ? `const ${name} = ${w} >>> 0;` : `const ${name} = U[${base} + o];`;
      case 'p': return w !== undefined ? `const ${name} = ${w} !== 0;` : `const ${name} = I[${base} + o] !== 0;`;
      case 'l': return w !== undefined && h !== undefined ? `const ${name}lo = ${w} >>> 0, ${name}hi = ${h} >>> 0;` : `const ${name}lo = U[${base} + o], ${name}hi = U[${base} + o + 1];`;
      case 'f': {
        const x = this.exact.get(base);
        if (x !== undefined) return `const ${name} = ${x};`;
        return fl?.view === 'f' ? `const ${name} = ${fl.v} === ${fl.v} ? ${fl.v} : F[${base} + o];` : `const ${name} = F[${base} + o];`;
      }
      case 'd': return fl?.view === 'd' ? `const ${name} = ${fl.v} === ${fl.v} ? ${fl.v} : G[(${base} >> 1) + l];` : `const ${name} = G[(${base} >> 1) + l];`;
      default: return '';
    }
  }

  /** After a write of block-level locals (`lo`, `hi`: int32 expressions) to the words at `base`: reads use them. */
  wroteWords(base: number, lo: string, hi: string): void {
    this.clobber('l', base);
    this.words.set(base, lo);
    this.words.set(base + 1, hi);
  }

  /**
   * After a load of `words` (int32 locals, low word first) into the register at `base`: reads use
   * them, and an f32 read of a 4-byte load uses `f32` (the same bits through memory's Float32Array).
   */
  loaded(base: number, words: readonly string[], f32: string | undefined): void {
    this.clobber('l', base);
    this.words.set(base, words[0]!);
    this.words.set(base + 1, words[1]!);
    if (f32 !== undefined) this.exact.set(base, f32);
  }

  /** A local for the block's generated code, declared with the lane loop. */
  local(): string {
    return this.fresh();
  }

  /** Forget what a write of view `v` at `base` changes. */
  private clobber(v: View, base: number): void {
    if (v === 'n') return;
    const wide = v === 'd' || v === 'l';
    for (const b of wide ? [base, base + 1] : [base]) {
      this.words.delete(b);
      this.floats.delete(b);
      this.floats.delete(b - 1); // an f64 value held at b - 1 covers word b
      this.exact.delete(b);
      this.exact.delete(b - 1);
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

/** An instruction of a fused segment: a generated ALU loop, or a scalar load/store done inline. */
export type Item = { readonly alu: BoundLoop; readonly mem?: undefined; readonly uni?: undefined }
  | { readonly alu?: undefined; readonly mem: MemSpec; readonly uni?: undefined }
  | { readonly alu?: undefined; readonly mem?: undefined; readonly uni: UniformSpec };

/**
 * Registers a loop keeps in locals for a whole lane (selfloop.ts): by slot base, the local
 * holding the slot's low word as int32 (slots every access of the loop reads or writes as a 32-bit
 * integer or predicate: views i, u, p), or its f32 value (`f32`: every access is view f; the local
 * holds what F would read back, Math.fround of what was written: the same bits, NaN payloads too,
 * as float32 to float64 and back is exact).
 */
export type Promoted = ReadonlyMap<number, { readonly x: string; readonly f32: boolean }>;

const NONE: Promoted = new Map();

function promotedRead(v: View, name: string, x: string): string {
  return v === 'f' ? `const ${name} = ${x};` : v === 'i' ? `const ${name} = ${x};` : v === 'u' ? `const ${name} = ${x} >>> 0;` : `const ${name} = ${x} !== 0;`;
}

/**
 * A body whose f32 result is already a float32 value: compile/alu.ts's inline f32 fma (RN, no
 * .ftz/.sat), which leaves `r` (a Math.fround) or f32Fma's result (rounded to f32, or an infinity,
 * or a NaN of f32 operands, whose low mantissa bits are zero). Its Math.fround would be the
 * identity, and it sits on the chain of dependent arithmetic a loop's lane waits for.
 */
const F32_RESULT = /\? r : K\.fp\.f32Fma\(fa, fb, fc, X0\);\s*$/;

function promotedWrite(v: View, name: string, x: string, f32Result: boolean): string {
  if (v === 'f') return f32Result ? `${x} = ${name};` : `${x} = Math.fround(${name});`;
  return v === 'p' ? `${x} = ${name} ? 1 : 0;` : `${x} = ${name} | 0;`;
}

/** The test of instruction `ins`'s guard predicate for the lane. */
export function guardTest(ins: CInstr, promoted: Promoted = NONE): string {
  const x = promoted.get(ins.guard)?.x;
  return x !== undefined ? `((${x} !== 0) !== ${ins.guardNeg})` : `((I[${ins.guard} + o] !== 0) !== ${ins.guardNeg})`;
}

/** Whether generated text `text` names `name` anywhere (as a whole word; a property of that name counts too, erring on keeping it). */
function uses(text: string, name: string): boolean {
  return new RegExp(`(?<![\\w$])${name}(?![\\w$])`).test(text);
}

/** One ALU instruction of a fused lane loop (for one lane); registers of `promoted` are read and written in their locals. */
export function aluStep(ins: CInstr, b: BoundLoop, cache: LaneCache, xs: unknown[], promoted: Promoted = NONE): string {
  const s = b.spec;
  const guarded = ins.guard >= 0;
  // what the body reads besides its sources (and the guard), from the register file
  cache.dse?.readAll(ins, s.srcs.map((_, i) => [b.A, b.B, b.C][i]!));
  const reads = s.srcs.map((v, i) => {
    const base = [b.A, b.B, b.C][i]!, x = promoted.get(base)?.x, name = 'abc'[i]!;
    return x !== undefined ? promotedRead(v, name, x) : cache.read(v, name, base);
  }).join('\n');
  const pd = s.dst !== 'n' ? promoted.get(b.D)?.x : undefined, pe = s.dst2 !== 'n' ? promoted.get(b.E)?.x : undefined;
  // the write of d first, then e (laneWrites' order), so a shared slot ends with e
  const keep = (pd === undefined ? cache.wrote(s.dst, 'd', b.D, !guarded) : '') + (pe === undefined ? cache.wrote(s.dst2, 'e', b.E, !guarded) : '');
  const writes = pd === undefined && pe === undefined ? `${cache.store(b.D, laneWrites(s.dst, 'n'))}\n${cache.store(b.E, laneWrites('n', s.dst2))}`
    : `${pd !== undefined ? promotedWrite(s.dst, 'd', pd, F32_RESULT.test(s.body)) : laneWrites(s.dst, 'n')}\n${pe !== undefined ? promotedWrite(s.dst2, 'e', pe, false) : laneWrites('n', s.dst2)}`;
  const rest = `${reads}\n{ ${s.body} }\n${writes}\n${keep}`;
  // only the names the text uses: each unused one is a few bytecodes per lane until V8 optimizes
  // the loop (most of a launch's first turns), and a loop of one block runs many per call
  const consts = ([['D', b.D], ['A', b.A], ['B', b.B], ['C', b.C], ['E', b.E], ['X0', b.X[0]], ['X1', b.X[1]], ['X2', b.X[2]]] as const)
    .filter(([n]) => uses(rest, n)).map(([n, v]) => `${n} = ${constant(v, xs)}`);
  const lets = ['d', 'dlo', 'dhi', 'e'].filter((n) => uses(rest, n)).map((n) => `${n} = 0`);
  const inner = `{
      ${consts.length ? `const ${consts.join(', ')};` : ''}
      ${lets.length ? `let ${lets.join(', ')};` : ''}
      ${rest}
    }`;
  return guarded ? `if (${guardTest(ins, promoted)}) { ${inner} $t++; }` : inner;
}

/** One instruction of a fused lane loop: an ALU loop's body, or the copy of a uniform load's value (read at the block's start, see uniformPrologue). */
export function laneStep(ins: CInstr, it: Item, k: number, cache: LaneCache, xs: unknown[]): string {
  if (it.uni === undefined) return aluStep(ins, it.alu!, cache, xs);
  const d = it.uni.data;
  if (ins.guard >= 0) {
    cache.dse?.read(ins.guard);
    cache.wrote('l', 'x', d, false);
    return `if ((I[${ins.guard} + o] !== 0) !== ${ins.guardNeg}) { ${cache.store(d, `U[${d} + o] = $ul${k}; U[${d} + o + 1] = $uh${k};`)} $t++; }`;
  }
  cache.wroteWords(d, `$ul${k}`, `$uh${k}`);
  return cache.store(d, `U[${d} + o] = $ul${k}; U[${d} + o + 1] = $uh${k};`);
}

