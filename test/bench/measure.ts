/** Best-of-n timings of one launch, recording off and on, shared by the benchmarks. */
import type { Launch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import type { Program } from '../../src/ptx/resolve.js';
import { Trace } from '../../src/trace/trace.js';

/** Fastest of `reps` plain runs, in ms. */
export function bestPlain(program: Program, launch: Launch, reps: number): number {
  let best = Infinity;
  for (let i = 0; i < reps; i++) best = Math.min(best, new Machine(program, launch, DEFAULT_RUN_OPTIONS).run().stats.wallMs);
  return best;
}

/** Fastest of `reps` recordings (ms), with the recording's thread-instructions, warp-steps and trace bytes. */
export function bestRecording(program: Program, launch: Launch, reps: number): { rec: number; thr: number; steps: number; bytes: number } {
  let rec = Infinity, thr = 0, steps = 0, bytes = 0;
  for (let i = 0; i < reps; i++) {
    const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
    const t = Trace.record(m);
    rec = Math.min(rec, t.wallMs);
    thr = m.threadInstructions;
    steps = t.total;
    const b = t.bytes();
    bytes = b.log + b.checkpoints;
  }
  return { rec, thr, steps, bytes };
}
