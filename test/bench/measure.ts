/**
 * Best-of-n timings of one launch, recording off and on, shared by the benchmarks. The plain and
 * recorded runs alternate, so both see the same state of the machine and of V8 (a block of plain
 * runs before a block of recordings measured warm-up and load drift as recording overhead).
 */
import type { Launch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import type { Program } from '../../src/ptx/resolve.js';
import { Trace } from '../../src/trace/trace.js';
import type { Session } from '../../src/engine/session.js';

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

/** The p-th percentile of `xs` (ms). */
export function pct(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/**
 * Travel latency on a recording of `blocks` one-dimensional blocks of `threads` threads: `goto`
 * a random step, and `reverse-stepi` of a random thread at a random moment (its new focus builds
 * the thread's timeline first, not timed); 200 samples each, `after` called after each sample.
 */
export function travelLatency(s: Session, blocks: number, threads: number, seed: number, after: () => void = () => undefined): { gotoMs: number[]; revMs: number[] } {
  let x = seed;
  const rand = (n: number): number => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x % n; };
  const gotoMs: number[] = [];
  for (let i = 0; i < 200; i++) {
    const p = rand(s.total);
    const t0 = performance.now();
    s.goto(p);
    gotoMs.push(performance.now() - t0);
    after();
  }
  const revMs: number[] = [];
  for (let i = 0; i < 200; i++) {
    s.goto(rand(s.total));
    s.setFocus([rand(blocks), 0, 0], [rand(threads), 0, 0]);
    s.stepInstruction('forward');
    const t0 = performance.now();
    s.stepInstruction('backward');
    revMs.push(performance.now() - t0);
    after();
  }
  return { gotoMs, revMs };
}
