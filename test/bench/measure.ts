/**
 * Best-of-n timings of one launch, recording off and on, shared by the benchmarks. The plain and
 * recorded runs alternate, so both see the same state of the machine and of V8 (a block of plain
 * runs before a block of recordings measured warm-up and load drift as recording overhead).
 */
import type { Launch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import type { Program } from '../../src/ptx/resolve.js';
import { Trace } from '../../src/trace/trace.js';

/** Fastest of `reps` plain runs and of `reps` recordings (ms, alternating), with the recording's thread-instructions, warp-steps and trace bytes. */
export function bestOffOn(program: Program, launch: Launch, reps: number): { plain: number; rec: number; thr: number; steps: number; bytes: number } {
  let plain = Infinity, rec = Infinity, thr = 0, steps = 0, bytes = 0;
  for (let i = 0; i < reps; i++) {
    plain = Math.min(plain, new Machine(program, launch, DEFAULT_RUN_OPTIONS).run().stats.wallMs);
    const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
    const t = Trace.record(m);
    rec = Math.min(rec, t.wallMs);
    thr = m.threadInstructions;
    steps = t.total;
    const b = t.bytes();
    bytes = b.log + b.checkpoints;
  }
  return { plain, rec, thr, steps, bytes };
}
