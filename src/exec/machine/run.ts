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
import { SELF_LOOP } from '../block/selfloop.js';

const NO_RUNS: Int32Array = new Int32Array(0);
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
  // the end of a block that did not fit (budget, reconvergence point): stepped through one at a time, not looked up again at each step
  let plainUntil = -1;
  try {
    while (budget-- > 0) {
      // the block to run from pc, if one does (else the instruction at pc alone)
      let blk: Block | null = null;
      if (table !== undefined && pc >= plainUntil) {
        const b = blockAt(table, pc);
        if (b !== null) plainUntil = pc + b.len;
        // a loop of one block (selfloop.ts): whole iterations, lane by lane, while converged
        if (b !== null && f.depth <= 1 && w.parkedBar === 0 && budget + 1 >= 2 * (b.len + 1) && !(rpc > pc && rpc <= pc + b.len)) {
          const loop = b.loop(lean);
          const n = loop !== null ? loop(w, mask, Math.floor((budget + 1) / (b.len + 1))) : 0;
          if (n === 0 && loop !== null) b.loopRefused();
          if (n > 0) {
            // each iteration (block and branch back) is the run the per-block path logs for it
            if (rec !== undefined) { rp = loopRuns(runs, rp, rbase + steps, gbase + pc, mask, b.len + 1, n, runNext, runMask); runNext = gbase + pc + b.len + 1; runMask = mask; }
            budget -= n * (b.len + 1) - 1;
            steps += n * (b.len + 1);
            thr += SELF_LOOP.t;
            // as control.ts leaves a uniform branch: at its target or past it, then reconverge
            w.pc = SELF_LOOP.exit ? pc + b.len + 1 : pc;
            reconverge(w);
            pc = w.pc; mask = w.mask; rpc = f.srpc[f.depth - 1]!; plainUntil = -1;
            if (w.state !== WarpState.Ready) { blocked = true; break; }
            continue;
          }
        }
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
      if (table !== undefined && table.fn !== f.fn) table = blockTable(f.fn);
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
 * Log `n` iterations of a self-loop (selfloop.ts) as the per-block path does: one run per
 * iteration of `len1` steps (block and branch back) from step offset `s`, at global instruction
 * `g` under `mask`; the first continues the open run when it is where that run goes on
 * (`runNext`, `runMask`: code falling through into the loop). Returns the new write position.
 */
function loopRuns(runs: Int32Array, rp: number, s: number, g: number, mask: number, len1: number, n: number, runNext: number, runMask: number): number {
  let i = ((g ^ runNext) | (mask ^ runMask)) !== 0 ? 0 : 1;
  for (s += i * len1; i < n; i++, s += len1) {
    runs[rp] = s; runs[rp + 1] = g; runs[rp + 2] = mask; rp += 3;
  }
  return rp;
}
