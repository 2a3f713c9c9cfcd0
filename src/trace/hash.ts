/**
 * A digest of the complete machine state (memory of every space, registers, SIMT stacks, frames,
 * barrier and scheduler state, output). Tests compare digests to prove that a restored position
 * equals the forward-executed one. Bytes go through node's native SHA-1 (fast on megabytes of
 * memory); scalar fields are gathered into one word array.
 */
import { createHash } from 'node:crypto';
import type { Machine } from '../exec/machine.js';

export function stateHash(m: Machine): string {
  const h = createHash('sha1');
  const nums: number[] = [];
  const bytes = (u8: Uint8Array): void => { h.update(u8); nums.push(u8.length); };
  nums.push(m.warpSteps, m.threadInstructions, m.rng, m.nextCta, m.roundPos, m.quantumLeft, m.roundQuantum, m.spinQuantum, m.stdout.length);
  h.update(m.stdout);
  bytes(m.arena.bank.u8);
  m.arena.far.forEach((b, k) => { if (b) { nums.push(k); bytes(b.u8); } });
  // the allocator (malloc/free state), not only the bytes
  const a = m.arena.saveState();
  h.update(JSON.stringify({ allocs: a.allocs, top: a.top, heapTop: a.heapTop, freeList: a.freeList }));
  bytes(new Uint8Array(a.granules.buffer));
  for (const c of m.resident) {
    nums.push(c.id, c.liveThreads);
    bytes(c.shared.u8);
    for (const a of [c.barArrived, c.barExpected, c.barPopc, c.barAnd, c.barOr]) nums.push(...a);
    for (const w of c.warps) {
      nums.push(w.pc, w.mask, w.exited, w.state, w.barrierId, w.sp, w.issued, w.localStride, w.barMask, w.barDst, w.spins, w.parkedBar, w.parkedBarId);
      h.update(w.barRed ?? '-');
      bytes(w.carry);
      bytes(w.local.u8);
      const frame = (f: (typeof w.frames)[number]): void => {
        h.update(f.fn.name);
        bytes(new Uint8Array(f.i32.buffer));
        nums.push(f.depth, f.returned, f.localBase, f.callPc);
        for (let i = 0; i < f.depth; i++) nums.push(f.spc[i]!, f.srpc[i]!, f.smask[i]!);
      };
      for (const f of w.frames) frame(f);
      // pooled frames keep their registers for the next call (reads of unset registers see them)
      for (const [fn, pool] of w.pool) { h.update(fn.name); nums.push(pool.length); for (const f of pool) frame(f); }
    }
  }
  for (const w of m.round) nums.push(w.id);
  nums.push(m.cur ? m.cur.id : -1);
  h.update(new Uint8Array(Int32Array.from(nums).buffer));
  return h.digest('hex');
}
