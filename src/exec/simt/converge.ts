/**
 * Warp-synchronous instructions under independent thread scheduling (sm_70+): `bar.warp.sync`
 * and the `.sync` collectives (shfl, vote, match, redux) wait until every non-exited lane of
 * their member mask executes them. On the reconvergence stack, the lanes a running path lacks
 * are in sibling paths (entries of the same divergence, same reconvergence pc): those already
 * parked at the same instruction merge into the running path; when others can still run, the
 * running path parks there and yields to them. When no sibling can run any more (they wait at a
 * barrier, at another warp-synchronous instruction, or have arrived at the reconvergence
 * point), the instruction executes with the lanes that are there, as before.
 */
import { lowestLane } from '../int64.js';
import { type BarInfo, type CInstr, Ctl } from '../compiled.js';
import type { Frame, Warp } from '../state.js';

/** The member mask operand of a warp-synchronous instruction, read from the first active lane. */
export function syncMembers(ins: CInstr, w: Warp, m: number): number {
  const s = ins.sync!;
  return s.reg >= 0 ? w.u32[s.reg + 2 * lowestLane(m)]! | 0 : s.imm;
}

/**
 * Does the path at `pc` with lanes `mask` wait for others: at a barrier or a warp-synchronous
 * instruction, or arrived at a barrier that has not completed (its lanes in `parked`)?
 */
export function parkedAtSync(code: readonly CInstr[], pc: number, mask: number, parked: number): boolean {
  if (parked !== 0 && (mask & ~parked) === 0) return true;
  const c = code[pc];
  return c !== undefined && (c.ctl === Ctl.Bar || c.ctl === Ctl.WarpSync);
}

/**
 * Merge into the running (top) entry the sibling entries parked at its pc whose lanes are
 * members. Returns the lanes merged in (0 when none).
 */
export function mergeParked(f: Frame, pc: number, members: number): number {
  const t = f.depth - 1;
  const x = f.srpc[t]!;
  let got = 0;
  for (let i = t - 1; i >= 0 && f.srpc[i] === x; i--) {
    if (f.spc[i] !== pc || (f.smask[i]! & members) === 0) continue;
    got |= f.smask[i]!;
    // remove entry i: everything above it moves down one
    const top = f.depth - 1;
    f.spc.copyWithin(i, i + 1, top + 1); f.srpc.copyWithin(i, i + 1, top + 1); f.smask.copyWithin(i, i + 1, top + 1);
    f.depth--;
  }
  if (got !== 0) f.smask[f.depth - 1] = f.smask[f.depth - 1]! | got;
  return got;
}

/** Is a sibling of the running path pending and able to run (not parked waiting itself)? */
export function runnableSibling(f: Frame, code: readonly CInstr[], parked: number): boolean {
  const t = f.depth - 1;
  const x = f.srpc[t]!;
  for (let i = t - 1; i >= 0 && f.srpc[i] === x; i--) {
    const pc = f.spc[i]!;
    if (pc !== x && !parkedAtSync(code, pc, f.smask[i]!, parked)) return true;
  }
  return false;
}

/**
 * The running path arrives at bar.sync `b`: sibling paths parked at a bar.sync of the same
 * constant id (and no thread count), unguarded, arrive with it. Their pcs move past their
 * barrier now (the warp waits until the barrier completes, so no one sees the difference).
 * Returns their lanes.
 */
export function arriveParked(f: Frame, b: BarInfo): number {
  if (b.idReg >= 0 || b.countReg >= 0) return 0;
  const t = f.depth - 1;
  const x = f.srpc[t]!;
  let got = 0;
  for (let i = t - 1; i >= 0 && f.srpc[i] === x; i--) {
    const pc = f.spc[i]!;
    if (pc === x) continue;
    const c = f.fn.code[pc]!;
    const o = c.bar;
    if (c.ctl !== Ctl.Bar || c.guard >= 0 || o === undefined || o.op !== 'sync' || o.idReg >= 0 || o.countReg >= 0 || o.id !== b.id) continue;
    got |= f.smask[i]!;
    f.spc[i] = pc + 1;
  }
  return got;
}
