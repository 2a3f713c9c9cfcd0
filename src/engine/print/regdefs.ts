/**
 * "Could this register have been written yet?" for a PTX function at an instruction: a forward
 * may-define analysis over the control-flow graph. nvcc's -G DWARF gives many variables one
 * register for the whole function (`n` in %r13 from the first instruction), so before the
 * register's first write its content is whatever the machine started with; such a variable
 * prints `<optimized out>` instead of that garbage.
 *
 * The analysis over-approximates definitions (every register named in an instruction's first
 * operand counts as written, on every path that reaches it), so it can only fail to flag a
 * register, never flag a written one. Functions it cannot model (`brx.idx`) are not analysed.
 */
import type { ProgFunction } from '../../ptx/resolve.js';
import { writtenRegisters } from '../../ptx/instructions.js';

interface Analysis {
  readonly index: ReadonlyMap<string, number>;
  readonly words: number;
  /** Bitset per instruction: registers possibly written before it executes. */
  readonly before: readonly Uint32Array[];
}

/** Bound on instructions × register words, so huge functions are not analysed. */
const MAX_WORK = 8_000_000;

export class RegisterDefs {
  private readonly cache = new WeakMap<ProgFunction, Analysis | null>();

  /** False only when no path from the function's entry to `pc` writes `reg`. */
  mayBeWritten(fn: ProgFunction, pc: number, reg: string): boolean {
    let a = this.cache.get(fn);
    if (a === undefined) {
      a = analyse(fn);
      this.cache.set(fn, a);
    }
    if (!a) return true;
    const bit = a.index.get(reg);
    const set = a.before[pc];
    if (bit === undefined || !set) return true;
    return (set[bit >>> 5]! & (1 << (bit & 31))) !== 0;
  }
}

function analyse(fn: ProgFunction): Analysis | null {
  const n = fn.instrs.length;
  const index = new Map(fn.regs.map((r, i) => [r.name, i] as const));
  const words = Math.max(1, Math.ceil(fn.regs.length / 32));
  if (n === 0 || n * words > MAX_WORK) return null;
  if (fn.instrs.some((i) => i.opcode === 'brx')) return null;
  const defs: Uint32Array[] = [];
  const succ: number[][] = [];
  for (let i = 0; i < n; i++) {
    const ins = fn.instrs[i]!;
    const d = new Uint32Array(words);
    for (const r of writtenRegisters(ins)) {
      const b = index.get(r);
      if (b !== undefined) d[b >>> 5]! |= 1 << (b & 31);
    }
    defs.push(d);
    const s: number[] = [];
    const guarded = ins.guard !== undefined;
    if (ins.opcode === 'bra') {
      const t = ins.operands[0];
      if (t?.kind === 'label') s.push(t.index);
      if (guarded && i + 1 < n) s.push(i + 1);
    } else if (ins.opcode === 'ret' || ins.opcode === 'exit' || ins.opcode === 'trap') {
      if (guarded && i + 1 < n) s.push(i + 1);
    } else if (i + 1 < n) s.push(i + 1);
    succ.push(s);
  }
  const before: Uint32Array[] = Array.from({ length: n }, () => new Uint32Array(words));
  const reached = new Uint8Array(n);
  // Parameters passed in registers are written by the caller.
  for (const r of fn.paramRegs) {
    const b = r ? index.get(r.name) : undefined;
    if (b !== undefined) before[0]![b >>> 5]! |= 1 << (b & 31);
  }
  reached[0] = 1;
  const work: number[] = [0];
  const queued = new Uint8Array(n);
  queued[0] = 1;
  const out = new Uint32Array(words);
  while (work.length) {
    const i = work.pop()!;
    queued[i] = 0;
    const inI = before[i]!;
    const d = defs[i]!;
    for (let w = 0; w < words; w++) out[w] = inI[w]! | d[w]!;
    for (const j of succ[i]!) {
      if (j < 0 || j >= n) continue;
      const tgt = before[j]!;
      let changed = !reached[j];
      reached[j] = 1;
      for (let w = 0; w < words; w++) {
        const v = (tgt[w]! | out[w]!) >>> 0;
        if (v !== tgt[w]) { tgt[w] = v; changed = true; }
      }
      if (changed && !queued[j]) { queued[j] = 1; work.push(j); }
    }
  }
  return { index, words, before };
}
