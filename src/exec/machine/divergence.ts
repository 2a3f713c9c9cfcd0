/**
 * The SIMT reconvergence stack of a frame (spc/srpc/smask entries): divergence, reconvergence,
 * independent thread scheduling's path switches, lanes exiting, and frames finishing.
 */
import type { Machine } from '../machine.js';
import { Fault } from '../fault.js';
import { popc32 } from '../int64.js';
import { type Frame, type Warp, WarpState } from '../state.js';
import { parkedAtSync } from '../simt/converge.js';
import { checkBarriers } from './barriers.js';
import { returnFrom } from './calls.js';
import { nextRandom } from './scheduler.js';

/** Pop SIMT entries whose pc reached their reconvergence point. */
export function reconverge(w: Warp): void {
  const f = w.frame;
  while (f.depth > 1 && w.pc === f.srpc[f.depth - 1]) {
    f.depth--;
    w.pc = f.spc[f.depth - 1]!;
    w.mask = f.smask[f.depth - 1]!;
  }
  f.spc[f.depth - 1] = w.pc;
  // the path to run waits at a barrier that has not completed: now the warp waits for it
  if (w.parkedBar !== 0 && (w.mask & w.parkedBar) !== 0 && w.state === WarpState.Ready) {
    w.state = WarpState.AtBarrier;
    w.barrierId = w.parkedBarId;
    w.barMask = w.parkedBar;
    w.barDst = -1;
  }
}

/**
 * Independent thread scheduling: park the running path (top entry) and run another one of the
 * warp. First choice, a pending sibling path (same reconvergence pc, not yet arrived there),
 * rotated to the top so k siblings take turns. Otherwise lanes that already arrived at an
 * enclosing reconvergence point (they wait in the join entry but are in no live path) leave as
 * a path of their own that continues past it; it merges with the others at the join's own
 * reconvergence point. With neither, the running path just continues.
 */
export function yieldPath(w: Warp, f: Frame): void {
  const t = f.depth - 1;
  f.spc[t] = w.pc;
  const x = f.srpc[t]!;
  let lo = t;
  let pick = -1;
  // a sibling that can run goes first; lanes that arrived at an enclosing join next; a sibling
  // waiting at a barrier or warp sync last (it re-checks and yields back)
  let waiting = -1;
  for (let i = t - 1; i >= 0 && f.srpc[i] === x; i--) {
    lo = i;
    if (f.spc[i] === x) continue;
    if (parkedAtSync(f.fn.code, f.spc[i]!, f.smask[i]!, w.parkedBar)) { if (waiting < 0) waiting = i; } else if (pick < 0) pick = i;
  }
  if (pick < 0 && leaveJoin(w, f)) return;
  if (pick < 0) pick = waiting;
  if (pick >= 0) {
    // rotate entries lo..t up by one: the running path goes to the bottom of its siblings
    const pc = f.spc[t]!, rpc = f.srpc[t]!, mask = f.smask[t]!;
    f.spc.copyWithin(lo + 1, lo, t); f.srpc.copyWithin(lo + 1, lo, t); f.smask.copyWithin(lo + 1, lo, t);
    f.spc[lo] = pc; f.srpc[lo] = rpc; f.smask[lo] = mask;
    w.pc = f.spc[t]!;
    w.mask = f.smask[t]!;
    reconverge(w);
  }
}

/**
 * Lanes that arrived at an enclosing reconvergence point (they wait in its join entry but are
 * in no live path) leave it as a path of their own that continues past it; it merges with the
 * others at the join's own reconvergence point. Under independent thread scheduling reaching a
 * reconvergence point is no wait. The running path must have its pc saved. False when none.
 */
export function leaveJoin(w: Warp, f: Frame): boolean {
  const t = f.depth - 1;
  // walk the enclosing joins outward; lanes in a live entry (one whose pc is not its
  // reconvergence pc) above a join have not arrived there
  let live = 0;
  let j = t + 1;
  let level = f.srpc[t]!;
  while (level >= 0) {
    let p = j - 1;
    while (p >= 0 && !(f.spc[p] === level && f.srpc[p] !== level)) p--;
    if (p < 0) return false;
    for (let i = p + 1; i < j; i++) if (f.spc[i] !== f.srpc[i]) live |= f.smask[i]!;
    const arrived = f.smask[p]! & ~live;
    if (arrived !== 0) {
      if (f.depth >= f.spc.length) throw new Fault('stack-overflow', 'SIMT reconvergence stack overflow');
      f.smask[p] = f.smask[p]! & ~arrived;
      f.spc[f.depth] = level;
      f.srpc[f.depth] = f.srpc[p]!;
      f.smask[f.depth] = arrived;
      f.depth++;
      w.pc = level;
      w.mask = arrived;
      reconverge(w);
      return true;
    }
    live |= f.smask[p]!;
    j = p;
    level = f.srpc[p]!;
  }
  return false;
}


/**
 * Under independent thread scheduling a path that reaches a blocking barrier waits there while
 * the warp's other paths run on. When a sibling path is pending and not itself at a barrier,
 * this path's arrival is deferred (it stays at the barrier) and the sibling runs; it arrives
 * once its siblings have merged, exited or reached a barrier too (siblings parked at the same
 * barrier then arrive with it, see barrier()). With no sibling to run, lanes that already
 * reached an enclosing reconvergence point run on past it (leaveJoin): an early return exits,
 * and a barrier skipped by lanes that stay alive is reported where they next wait.
 */
export function deferBarrier(w: Warp): boolean {
  const f = w.frame;
  const t = f.depth - 1;
  const x = f.srpc[t]!;
  const code = f.fn.code;
  for (let i = t - 1; i >= 0 && f.srpc[i] === x; i--) {
    const pc = f.spc[i]!;
    if (pc !== x && !parkedAtSync(code, pc, f.smask[i]!, w.parkedBar)) {
      w.spins = 0;
      yieldPath(w, f);
      return true;
    }
  }
  return switchToSubtree(w, f);
}

/**
 * The running path left a join (see leaveJoin) and waits at a barrier, while lanes it left
 * behind still run in the subtree of that join, below it on the stack (the path that yielded to
 * it). Without this the warp would block with them stranded: the running path moves below the
 * outermost entry of that subtree (a sibling of it: same reconvergence pc), and the subtree's top
 * path runs. The search stops at the running path's own join. True when it switched.
 */
export function switchToSubtree(w: Warp, f: Frame): boolean {
  const t = f.depth - 1;
  const x = f.srpc[t]!;
  const code = f.fn.code;
  for (let i = t - 1; i >= 0; i--) {
    // the join the running path reconverges at: nothing below it is a sibling's subtree
    if (f.spc[i] === x && f.srpc[i] !== x) return false;
    if (f.spc[i] === f.srpc[i] || parkedAtSync(code, f.spc[i]!, f.smask[i]!, w.parkedBar)) continue;
    // a join entry waits for the entries above it (their reconvergence pc is its pc)
    let join = false;
    for (let k = i + 1; k < t && !join; k++) if (f.srpc[k] === f.spc[i]) join = true;
    if (join) continue;
    // the outermost entry of the subtree holding i: the nearest sibling of the running path
    let j = i;
    while (j > 0 && f.srpc[j] !== x && !(f.spc[j] === x)) j--;
    if (f.srpc[j] !== x) return false;
    f.spc[t] = w.pc;
    const pc = f.spc[t]!, mask = f.smask[t]!;
    f.spc.copyWithin(j + 1, j, t); f.srpc.copyWithin(j + 1, j, t); f.smask.copyWithin(j + 1, j, t);
    f.spc[j] = pc; f.srpc[j] = x; f.smask[j] = mask;
    w.spins = 0;
    w.pc = f.spc[t]!;
    w.mask = f.smask[t]!;
    reconverge(w);
    return true;
  }
  return false;
}

/** Split the current SIMT entry into paths [pc, mask], reconverging at `rpc`. */
export function diverge(mach: Machine, w: Warp, f: Frame, rpc: number, ...paths: [number, number][]): void {
  const top = f.depth - 1;
  // a path that already reconverges at `rpc` splits into siblings of its own siblings (no new
  // join level: a loop whose divergent exit leads to one point does not deepen the stack)
  if (top >= 1 && f.srpc[top] === rpc) f.depth--;
  else f.spc[top] = rpc;
  if (f.depth + paths.length > f.spc.length) throw new Fault('stack-overflow', 'SIMT reconvergence stack overflow');
  // which path runs first: the first (the branch taken) under round-robin; any of them, from
  // the seeded generator, under --schedule random (paths of a warp are scheduled independently)
  const first = mach.opts.schedule === 'random' && paths.length > 1 ? nextRandom(mach) % paths.length : 0;
  // push in reverse so the first path runs first
  for (let k = paths.length - 1; k >= 0; k--) {
    const [pc, mask] = paths[(k + first) % paths.length]!;
    f.spc[f.depth] = pc;
    f.srpc[f.depth] = rpc;
    f.smask[f.depth] = mask;
    f.depth++;
  }
  w.pc = f.spc[f.depth - 1]!;
  w.mask = f.smask[f.depth - 1]!;
}

export function exitLanes(mach: Machine, w: Warp, m: number): boolean {
  const gone = m & ~w.exited;
  w.exited |= m;
  const frames = w.frames;
  for (let k = 0; k < frames.length; k++) {
    const fr = frames[k]!;
    for (let i = 0; i < fr.depth; i++) fr.smask[i] = fr.smask[i]! & ~m;
  }
  const cta = w.cta;
  cta.liveThreads -= popc32(gone);
  const done = normalize(w);
  checkBarriers(mach, cta);
  return done;
}

/** Drop empty SIMT entries and finished frames (returning to callers). True if the warp stops. */
export function normalize(w: Warp): boolean {
  for (;;) {
    const f = w.frame;
    while (f.depth > 0 && f.smask[f.depth - 1] === 0) f.depth--;
    if (f.depth > 0) {
      w.pc = f.spc[f.depth - 1]!;
      w.mask = f.smask[f.depth - 1]!;
      if (w.pc < 0) throw new Fault('invalid', 'internal: lanes parked at function exit');
      reconverge(w);
      return false;
    }
    if (w.frames.length === 1) {
      w.state = WarpState.Exited;
      w.mask = 0;
      return true;
    }
    returnFrom(w);
  }
}
