/**
 * The hot loop: runWarp issues up to `budget` instructions of one warp, calling each pre-decoded
 * instruction's lane loop; control instructions (branches, calls, barriers, exits) go to
 * control.ts. Faults are exceptions, caught once per quantum by the scheduler, outside the loop.
 */
import type { Machine } from '../machine.js';
import { Ctl } from '../compiled.js';
import { popc32 } from '../int64.js';
import { type Warp, WarpState } from '../state.js';
import { control } from './control.js';
import { reconverge } from './divergence.js';
import { BLOCK_PROGRESS } from '../block/gen.js';
import { type Block, blockAt, BLOCKS_DEFAULT, blockTable, type BlockTable, singleAt } from '../block/table.js';
import { coverLoop, loopCover, SELF_LOOP } from '../block/selfloop.js';

const NO_RUNS: Int32Array = new Int32Array(0);
const NO_COVER: (Block | undefined)[] = [];
/** The block's own step log stays unused: runWarp logs the block as one run. */

/**
 * The hot loop: issue up to `budget` instructions of warp `w`. Returns true when the warp
 * blocked (barrier, exit) before using its budget.
 * Plain instructions run their lane loop and advance; control instructions go to control.ts.
 */
export function runWarp(mach: Machine, w: Warp, budget: number): boolean {
  let f = w.frame;
  let code = f.fn.code;
  let gbase = f.fn.gbase;
  let pc = w.pc;
  let mask = w.mask;
  let rpc = f.srpc[f.depth - 1]!;
  let steps = 0;
  let thr = 0;
  let blocked = false;
  // recording: runs of steps (StepRecorder), one entry per block or straight line, not per step;
  // `runNext`/`runMask`: the step that would continue the open run (its instruction and mask),
  // compared without a short circuit (a half never evaluated has no type feedback: a deopt later)
  const rec = mach.recorder;
  let runs = NO_RUNS, rp = 0, rbase = 0, runNext = -1, runMask = 0;
  if (rec !== undefined) {
    runs = rec.runsFor(mach.warpSteps, w);
    rp = 3 * rec.nrun;
    rbase = mach.warpSteps - rec.runBase;
    // the run array ends at a chunk of the log: the turn stops there (and goes on in the next call)
    budget = Math.min(budget, rec.runEnd - mach.warpSteps);
  }
  const probing = mach.mem.probe !== undefined;
  const step0 = mach.warpSteps;
  const issued0 = w.issued;
  // blocks (src/exec/block/): one dispatch per straight-line run, unless a probe must see every step
  const blocks = !probing && (mach.opts.blocks ?? BLOCKS_DEFAULT);
  // registers dead after a block left unwritten: only where no recording will show them
  const lean = rec === undefined && mach.opts.deadStores === true;
  let table: BlockTable | undefined = blocks ? blockTable(f.fn) : undefined;
  let cover = table !== undefined ? loopCover(table) : NO_COVER;
  // the end of a block that did not fit (budget, reconvergence point): stepped through one at a time, not looked up again at each step
  let plainUntil = -1;
  try {
    while (budget-- > 0) {
      // the block to run from pc, if one does (else the instruction at pc alone)
      let blk: Block | null = null;
      if (table !== undefined && pc >= plainUntil) {
        // a loop of one block (selfloop.ts), also from inside its body: the rest of the turn, lane by lane, while converged
        // (one call of blockAt, before: a second call site, first reached in optimized code, deopts it)
        const b = blockAt(table, pc);
        const c = cover[pc] ?? b;
        if (c !== null && f.depth <= 1 && w.parkedBar === 0 && budget + 1 >= 2 * (c.len + 1) && !(rpc > c.pc && rpc <= c.pc + c.len)) {
          const loop = c.loop(lean);
          if (loop !== null && c.pc === pc && cover[pc] === undefined) coverLoop(cover, c);
          const done = loop !== null ? loop(w, mask, pc - c.pc, budget + 1) : 0;
          if (done === 0 && loop !== null) c.loopRefused();
          if (done > 0) {
            // each iteration (block and branch back) is the run the per-block path logs for it
            const tail = SELF_LOOP.tail;
            if (rec !== undefined) { rp = loopRuns(runs, rp, rbase + steps, gbase + c.pc, mask, c.len + 1, pc - c.pc, runNext, runMask); runNext = gbase + c.pc + (tail > 0 ? tail : c.len + 1); runMask = mask; }
            budget -= done - 1;
            steps += done;
            thr += SELF_LOOP.t;
            // as control.ts leaves the last uniform branch: at its target or past it, then
            // reconverge; the tail's instructions after it only move the pc
            w.pc = SELF_LOOP.exit ? c.pc + c.len + 1 : c.pc;
            reconverge(w);
            pc = w.pc + tail; mask = w.mask; rpc = f.srpc[f.depth - 1]!; plainUntil = -1;
            if (w.state !== WarpState.Ready) { blocked = true; break; }
            continue;
          }
        }
        if (b !== null) plainUntil = pc + b.len;
        if (b !== null && b.len <= budget + 1 && !(rpc > pc && rpc < pc + b.len)) blk = b;
      }
      // a plain instruction outside a block runs as a block of one (singleAt says why)
      if (blk === null && table !== undefined) blk = singleAt(table, pc);
      // recording: one site for blocks and single instructions, so that the single-instruction
      // path, in a short kernel taken only when a turn resumes inside a block, has the type
      // feedback of every warp's first block (a site of its own had none, and deoptimized runWarp)
      if (rec !== undefined) {
        const g = gbase + pc;
        if (((g ^ runNext) | (mask ^ runMask)) !== 0) { runs[rp] = rbase + steps; runs[rp + 1] = g; runs[rp + 2] = mask; rp += 3; runMask = mask; }
        runNext = g + (blk !== null ? blk.len : 1);
      }
      if (blk !== null) {
        try {
          thr += (lean ? blk.lean() : blk.run())(w, mask);
        } catch (e) {
          // as the per-instruction path leaves it: the faulting instruction issued and counted
          steps += BLOCK_PROGRESS.k + 1;
          thr += BLOCK_PROGRESS.t;
          pc += BLOCK_PROGRESS.k;
          throw e;
        }
        budget -= blk.len - 1;
        steps += blk.len;
        pc += blk.len;
        if (pc === rpc) {
          w.pc = pc;
          reconverge(w);
          pc = w.pc; mask = w.mask; rpc = f.srpc[f.depth - 1]!; plainUntil = -1;
          if (w.state !== WarpState.Ready) { blocked = true; break; }
        }
        continue;
      }
      const ins = code[pc]!;
      // observers (race checker, watchpoints) read the step and the executing instruction
      if (probing) { mach.mem.step = step0 + steps; w.pc = pc; }
      let m = mask;
      if (ins.guard >= 0) m = guardMask(f.i32, ins.guard, m, ins.guardNeg);
      steps++;
      thr += popc32(m);
      if (ins.ctl === Ctl.None) {
        // %clock counts this warp's issued instructions, so it must not depend on where a turn
        // was split (checkpoints, goto)
        if (ins.readsClock) w.issued = issued0 + steps - 1;
        if (m !== 0) ins.exec!(w, m);
        pc++;
        if (pc === rpc) {
          w.pc = pc;
          reconverge(w);
          pc = w.pc; mask = w.mask; rpc = f.srpc[f.depth - 1]!; plainUntil = -1;
          if (w.state !== WarpState.Ready) { blocked = true; break; }
        }
        continue;
      }
      w.pc = pc;
      w.mask = mask;
      blocked = control(mach, w, ins, m) || w.state !== WarpState.Ready;
      f = w.frame;
      code = f.fn.code;
      gbase = f.fn.gbase;
      pc = w.pc;
      mask = w.mask;
      rpc = f.depth > 0 ? f.srpc[f.depth - 1]! : -1;
      plainUntil = -1;
      if (blocked) break;
      if (table !== undefined && table.fn !== f.fn) { table = blockTable(f.fn); cover = loopCover(table); }
    }
  } finally {
    // also on a fault, so the report names the faulting instruction
    w.pc = pc;
    w.mask = mask;
    mach.warpSteps += steps;
    mach.threadInstructions += thr;
    w.issued = issued0 + steps;
    if (rec !== undefined) rec.nrun = rp / 3;
  }
  return blocked;
}

/** The lanes of `m` whose guard predicate (at register slot `base`) holds, negated by `neg`. */
function guardMask(i32: Int32Array, base: number, m: number, neg: boolean): number {
  let r = 0;
  for (let l = 0; l < 32; l++) if (((m >>> l) & 1) && (i32[base + 2 * l] !== 0) !== neg) r |= 1 << l;
  return r;
}

/**
 * Log a turn of a self-loop (selfloop.ts) as the per-block path does, from step offset `s`, the
 * loop's body at global instruction `g`, `len1` steps an iteration (block and branch back), under
 * `mask`: the head from body instruction `k0` (when k0 > 0), one run per iteration begun at the
 * start (SELF_LOOP.n), one for the tail (SELF_LOOP.tail instructions). The first continues the
 * open run when it is where that run goes on (`runNext`, `runMask`: code falling through into
 * the loop). Returns the new write position.
 */
function loopRuns(runs: Int32Array, rp: number, s: number, g: number, mask: number, len1: number, k0: number, runNext: number, runMask: number): number {
  const n = SELF_LOOP.n;
  let i = 0;
  if (k0 > 0) {
    if ((((g + k0) ^ runNext) | (mask ^ runMask)) !== 0) { runs[rp] = s; runs[rp + 1] = g + k0; runs[rp + 2] = mask; rp += 3; }
    s += len1 - k0;
  } else if (((g ^ runNext) | (mask ^ runMask)) === 0) {
    i = 1;
    s += len1;
  }
  for (; i < n; i++, s += len1) {
    runs[rp] = s; runs[rp + 1] = g; runs[rp + 2] = mask; rp += 3;
  }
  if (SELF_LOOP.tail > 0) { runs[rp] = s; runs[rp + 1] = g; runs[rp + 2] = mask; rp += 3; }
  return rp;
}
