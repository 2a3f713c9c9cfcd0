/**
 * Reconvergence points: the immediate post-dominator of every branch, computed on the function's
 * basic-block graph (src/exec/postdom.ts: memory linear in blocks + edges, so a function of
 * 200,000 blocks costs megabytes, not the gigabytes a bitset per block did). -1 means the branch
 * only reconverges at function exit.
 */
import { factsOf } from '../ptx/instructions.js';
import type { ProgFunction } from '../ptx/resolve.js';
import { PDOM_NONE, immediatePostDominators, postDominatorDepths } from './postdom.js';

export function computeIpdom(fn: ProgFunction): Int32Array {
  const ins = fn.instrs;
  const n = ins.length;
  const result = new Int32Array(n).fill(-1);
  if (n === 0) return result;
  // block ends and successors come from the opcode table (src/ptx/instructions.ts)
  const leader = new Uint8Array(n + 1);
  leader[0] = 1;
  for (let i = 0; i < n; i++) {
    const x = ins[i]!;
    if (factsOf(x.opcode).terminator) leader[i + 1] = 1;
    for (const o of x.operands) if (o.kind === 'label') leader[o.index] = 1;
  }
  const blockOf = new Int32Array(n);
  const starts: number[] = [];
  for (let i = 0; i < n; i++) {
    if (leader[i]) starts.push(i);
    blockOf[i] = starts.length - 1;
  }
  const nb = starts.length;
  const EXIT = nb; // virtual exit node: no successors
  const endOf = (b: number): number => (b + 1 < nb ? starts[b + 1]! : n) - 1;
  const blockAt = (i: number): number => (i < n ? blockOf[i]! : EXIT);
  const off = new Int32Array(nb + 2);
  const to: number[] = [];
  for (let b = 0; b < nb; b++) {
    const end = endOf(b);
    const last = ins[end]!;
    const guarded = last.guard !== undefined;
    const fall = blockAt(end + 1);
    switch (factsOf(last.opcode).control) {
      case 'branch': {
        const t = last.operands[0];
        if (t?.kind === 'label') to.push(blockAt(t.index));
        if (guarded) to.push(fall);
        break;
      }
      case 'indirect-branch':
        for (const o of last.operands) if (o.kind === 'label') to.push(blockAt(o.index));
        to.push(fall);
        break;
      case 'return': case 'exit': case 'trap':
        to.push(EXIT);
        if (guarded) to.push(fall);
        break;
      default:
        to.push(fall);
    }
    off[b + 1] = to.length;
  }
  off[nb + 1] = to.length;
  const ipdom = immediatePostDominators({ n: nb + 1, off, to: Int32Array.from(to) });
  // A branch that reaches no exit (an endless loop) has no post-dominator. The data-flow this
  // replaced gave it, as the strict post-dominator with the largest set, the first block (in
  // program order, the exit last) of the deepest post-dominator chain: kept so recorded traces
  // stay byte-identical.
  let endless = -2;
  for (let b = 0; b < nb; b++) {
    const end = endOf(b);
    const kind = factsOf(ins[end]!.opcode).control;
    if (kind !== 'branch' && kind !== 'indirect-branch') continue;
    let p = ipdom[b]!;
    if (p === PDOM_NONE) {
      if (endless === -2) endless = deepest(postDominatorDepths(ipdom));
      p = endless;
    }
    // lanes waiting at a reconvergence point run on when the rest of the warp blocks (an early
    // return before __syncthreads(): see deferBarrier in exec/machine/divergence.ts), so no point needs special casing
    result[end] = p < 0 || p === EXIT ? -1 : starts[p]!;
  }
  return result;
}

/** The first node of the greatest depth. */
function deepest(depth: Int32Array): number {
  let best = 0;
  for (let v = 1; v < depth.length; v++) if (depth[v]! > depth[best]!) best = v;
  return best;
}
