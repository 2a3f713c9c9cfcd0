/**
 * Reconvergence points: the immediate post-dominator of every conditional branch, computed on the
 * function's basic-block graph with an iterative bitset data-flow (post-dominators form a chain,
 * so the immediate one is the strict post-dominator with the largest set). -1 means the branch
 * only reconverges at function exit.
 */
import { factsOf } from '../ptx/instructions.js';
import type { ProgFunction } from '../ptx/resolve.js';

export function computeIpdom(fn: ProgFunction): Int32Array {
  const ins = fn.instrs;
  const n = ins.length;
  const result = new Int32Array(n).fill(-1);
  if (n === 0) return result;
  // block ends and successors come from the opcode table (src/ptx/instructions.ts)
  const isTerm = (i: number): boolean => factsOf(ins[i]!.opcode).terminator;
  const leader = new Uint8Array(n + 1);
  leader[0] = 1;
  for (let i = 0; i < n; i++) {
    const x = ins[i]!;
    if (isTerm(i)) leader[i + 1] = 1;
    for (const o of x.operands) if (o.kind === 'label') leader[o.index] = 1;
  }
  const blockOf = new Int32Array(n);
  const starts: number[] = [];
  for (let i = 0; i < n; i++) {
    if (leader[i]) starts.push(i);
    blockOf[i] = starts.length - 1;
  }
  const nb = starts.length;
  const EXIT = nb; // virtual exit node
  const succ: number[][] = [];
  for (let b = 0; b < nb; b++) {
    const end = (b + 1 < nb ? starts[b + 1]! : n) - 1;
    const last = ins[end]!;
    const s: number[] = [];
    const guarded = last.guard !== undefined;
    const fall = end + 1 < n ? blockOf[end + 1]! : EXIT;
    switch (factsOf(last.opcode).control) {
      case 'branch': {
        const t = last.operands[0];
        if (t?.kind === 'label') s.push(t.index < n ? blockOf[t.index]! : EXIT);
        if (guarded) s.push(fall);
        break;
      }
      case 'indirect-branch':
        for (const o of last.operands) if (o.kind === 'label') s.push(blockOf[o.index]!);
        s.push(fall);
        break;
      case 'return': case 'exit': case 'trap':
        s.push(EXIT);
        if (guarded) s.push(fall);
        break;
      default:
        s.push(fall);
    }
    succ.push(s);
  }
  // post-dominator sets as bitsets over nb+1 nodes
  const words = (nb + 1 + 31) >>> 5;
  const pdom: Uint32Array[] = [];
  for (let b = 0; b <= nb; b++) {
    const set = new Uint32Array(words);
    if (b === EXIT) set[EXIT >>> 5]! |= 1 << (EXIT & 31);
    else set.fill(0xffffffff);
    pdom.push(set);
  }
  const tmp = new Uint32Array(words);
  let changed = true;
  while (changed) {
    changed = false;
    for (let b = nb - 1; b >= 0; b--) {
      const s = succ[b]!;
      tmp.fill(s.length ? 0xffffffff : 0);
      for (const x of s) {
        const p = pdom[x]!;
        for (let w = 0; w < words; w++) tmp[w]! &= p[w]!;
      }
      tmp[b >>> 5]! |= 1 << (b & 31);
      const cur = pdom[b]!;
      for (let w = 0; w < words; w++) {
        if (cur[w] !== tmp[w]) {
          cur.set(tmp);
          changed = true;
          break;
        }
      }
    }
  }
  const size = (set: Uint32Array): number => {
    let c = 0;
    for (let w = 0; w < words; w++) {
      let x = set[w]!;
      while (x) { x &= x - 1; c++; }
    }
    return c;
  };
  const sizes = pdom.map(size);
  for (let b = 0; b < nb; b++) {
    const end = (b + 1 < nb ? starts[b + 1]! : n) - 1;
    const last = ins[end]!;
    const kind = factsOf(last.opcode).control;
    if (kind !== 'branch' && kind !== 'indirect-branch') continue;
    const set = pdom[b]!;
    let best = -1;
    let bestSize = -1;
    for (let x = 0; x <= nb; x++) {
      if (x === b || !((set[x >>> 5]! >>> (x & 31)) & 1)) continue;
      const sz = sizes[x]!;
      if (sz > bestSize && sz < sizes[b]!) { best = x; bestSize = sz; }
    }
    // lanes waiting at a reconvergence point run on when the rest of the warp blocks (an early
    // return before __syncthreads(): see deferBarrier in exec/machine/divergence.ts), so no point needs special casing
    result[end] = best < 0 || best === EXIT ? -1 : starts[best]!;
  }
  return result;
}
