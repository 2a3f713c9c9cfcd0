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
import { boundLoopOf, type BoundLoop, laneReads, laneWrites } from '../codegen.js';
import type { CInstr, Exec } from '../compiled.js';
import type { Warp } from '../state.js';

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

/** One fused lane-loop segment: instructions [from, to) of the block, all generated ALU loops. */
function fusedSegment(code: readonly CInstr[], p: number, from: number, to: number, loops: readonly BoundLoop[], xs: unknown[], rec: boolean): string {
  const out: string[] = [];
  if (rec) for (let k = from; k < to; k++) out.push(`$log[$lp + ${2 * k}] = $g + ${k}; $log[$lp + ${2 * k + 1}] = $mask;`);
  let plain = 0;
  const body: string[] = [];
  for (let k = from; k < to; k++) {
    const ins = code[p + k]!;
    const b = loops[k - from]!;
    const s = b.spec;
    const inner = `{
      const D = ${b.D}, A = ${b.A}, B = ${b.B}, C = ${b.C}, E = ${b.E}, X0 = ${constant(b.X[0], xs)}, X1 = ${constant(b.X[1], xs)}, X2 = ${constant(b.X[2], xs)};
      ${laneReads(s.srcs)}
      let d = 0, dlo = 0, dhi = 0, e = 0;
      ${s.body}
      ${laneWrites(s.dst, s.dst2)}
    }`;
    if (ins.guard >= 0) body.push(`if ((I[${ins.guard} + o] !== 0) !== ${ins.guardNeg}) { ${inner} $t++; }`);
    else { body.push(inner); plain++; }
  }
  if (plain > 0) out.push(`$t += ${plain} * $POPC(m);`);
  out.push(`for (let l = 0; l < 32; l++) {
    if (((m >>> l) & 1) === 0) continue;
    const o = l << 1;
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
export function generateBlock(code: readonly CInstr[], p: number, len: number, rec: boolean, fuse = true): BlockRun {
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
    if (j > k) { parts.push(fusedSegment(code, p, k, j, loops, xs, rec)); k = j; continue; }
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
