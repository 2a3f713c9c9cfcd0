/**
 * The warp scheduler, an explicit state machine (its state lives on the Machine) so a run can
 * stop after any warp-step and resume exactly as if it had not stopped: checkpoints, `goto` and
 * single-stepping depend on it.
 * Round-robin: each round takes the warps that are ready at its start, QUANTUM steps each.
 * Random: each round picks one ready warp and a quantum from the seeded generator.
 */
import type { Machine } from '../machine.js';
import { Fault } from '../fault.js';
import { type Warp, WarpState } from '../state.js';
import { deadlock } from './barriers.js';
import { makeCta, releaseCta } from './frames.js';
import { report } from './faults.js';
import { runWarp } from './run.js';

/** Warp-steps a warp issues per turn (round-robin; the random schedule draws 1..QUANTUM). */
export const QUANTUM = 256;
/** Uniform backward branches a diverged warp takes before it switches paths (see yieldPath). */
export const SPIN_QUANTUM = 256;

/** The next number of the seeded xorshift generator behind --schedule random. */
export function nextRandom(mach: Machine): number {
  let x = mach.rng;
  x ^= x << 13; x >>>= 0;
  x ^= x >>> 17;
  x ^= x << 5; x >>>= 0;
  mach.rng = x;
  return x;
}

/**
 * Execute until `limit` warp-steps have been issued in total, or the run finishes or faults.
 * Stopping and resuming gives the same execution as not stopping.
 */
export function advance(mach: Machine, limit: number): void {
  let inWarp = false;
  let last: Warp | undefined = mach.cur;
  try {
    while (!mach.finished && mach.warpSteps < limit) {
      if (mach.cur === undefined && !startTurn(mach)) { mach.finished = true; break; }
      const w = mach.cur!;
      last = w;
      // never past the step limit, so a runaway kernel stops exactly there
      let budget = Math.min(mach.quantumLeft, limit - mach.warpSteps, mach.opts.maxSteps + 1 - mach.warpSteps);
      if (mach.boundary > 0) budget = Math.min(budget, mach.boundary - (mach.warpSteps % mach.boundary));
      const before = mach.warpSteps;
      inWarp = true;
      const blocked = runWarp(mach, w, budget);
      inWarp = false;
      mach.quantumLeft -= mach.warpSteps - before;
      // both tested, no short circuit: a kernel whose warps block at every turn would leave the
      // second test without type feedback, and a first turn that uses its quantum deoptimized advance
      const spent = mach.quantumLeft <= 0;
      if (blocked || spent) mach.cur = undefined;
      if (mach.warpSteps > mach.opts.maxSteps) {
        throw new Fault('step-limit', `step limit reached: ${mach.opts.maxSteps} warp-steps executed without the kernel finishing (runaway loop?); raise it with --max-steps`);
      }
    }
  } catch (e) {
    if (!(e instanceof Fault)) throw e;
    mach.fault = report(mach, e, mach.cur ?? last);
    mach.faultStep = inWarp ? mach.warpSteps - 1 : -1;
    mach.finished = true;
  }
}

/**
 * Start the first CTAs and choose the first warp without executing anything, so that position 0
 * of a recording shows resident threads. The run is the same with or without it.
 */
export function prime(mach: Machine): void {
  if (mach.cur !== undefined || mach.finished) return;
  try {
    if (!startTurn(mach)) mach.finished = true;
  } catch (e) {
    if (!(e instanceof Fault)) throw e;
    mach.fault = report(mach, e, undefined);
    mach.finished = true;
  }
}

/** Choose the next warp and quantum; false when the grid has finished. */
export function startTurn(mach: Machine): boolean {
  for (;;) {
    if (mach.roundPos < mach.round.length) {
      const w = mach.round[mach.roundPos++]!;
      if (w.state !== WarpState.Ready) continue;
      mach.cur = w;
      mach.quantumLeft = mach.roundQuantum;
      return true;
    }
    // end of a round: retire finished CTAs, start new ones, collect the ready warps
    retire(mach);
    // indexes, not destructuring (the iterator protocol: see coordsOf)
    const grid = mach.launch.grid;
    const total = grid[0] * grid[1] * grid[2];
    while (mach.resident.length < mach.opts.resident || mach.launch.cooperative) {
      const id = takeCta(mach, total);
      if (id < 0) break;
      mach.resident.push(makeCta(mach, id));
    }
    if (mach.resident.length === 0) return false;
    const ready: Warp[] = [];
    const res = mach.resident;
    for (let i = 0; i < res.length; i++) {
      const ws = res[i]!.warps;
      for (let j = 0; j < ws.length; j++) if (ws[j]!.state === WarpState.Ready) ready.push(ws[j]!);
    }
    if (ready.length === 0) {
      // every resident warp is blocked or done: finished CTAs retire (and new ones start); else deadlock
      if (retire(mach)) { mach.round = []; mach.roundPos = 0; continue; }
      const c = mach.resident.find((r) => r.warps.some((w) => w.state === WarpState.AtBarrier))!;
      throw deadlock(c);
    }
    if (mach.opts.schedule === 'random') {
      mach.roundQuantum = 1 + (nextRandom(mach) % QUANTUM);
      mach.round = [ready[nextRandom(mach) % ready.length]!];
    } else {
      mach.roundQuantum = QUANTUM;
      mach.round = ready;
    }
    mach.roundPos = 0;
  }
}

/**
 * The linear id of the next CTA to start, or -1 when none is left. CTAs start in id order; when
 * worker threads share the grid (src/exec/parallel/), each takes the next id from a shared
 * counter, so each CTA runs on exactly one of them.
 */
function takeCta(mach: Machine, total: number): number {
  if (mach.nextCta >= total) return -1;
  const claims = mach.ctaClaims;
  if (claims === undefined) return mach.nextCta++;
  const id = Atomics.add(claims, 0, 1);
  if (id >= total) { mach.nextCta = total; return -1; }
  mach.nextCta = id + 1;
  mach.ctasClaimed++;
  return id;
}

export function retire(mach: Machine): boolean {
  let any = false;
  for (let i = mach.resident.length - 1; i >= 0; i--) {
    const c = mach.resident[i]!;
    if (allExited(c.warps)) { mach.resident.splice(i, 1); releaseCta(mach, c); any = true; }
  }
  return any;
}

/** Every warp of `ws` has exited (a loop, not `every` and a closure: this runs for every CTA at every round). */
function allExited(ws: readonly Warp[]): boolean {
  for (let i = 0; i < ws.length; i++) if (ws[i]!.state !== WarpState.Exited) return false;
  return true;
}
