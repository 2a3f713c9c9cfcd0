/**
 * The reversible trace: what ptxdbg records about a run and how it travels through it.
 *
 * Format (in memory; file.ts serialises it):
 *  - step log (steplog.ts): per warp-step the global instruction index (Machine.globalBase of
 *    the function + pc) and the warp's SIMT active mask before the guard, held as runs (steps at
 *    consecutive instructions under one mask: one entry per block execution), in chunks of 2^15
 *    steps, packed to a few bytes a run once finished and spilled to a file past a budget;
 *  - segments: (first step, warp key) for each run of consecutive steps of one warp, where the
 *    warp key is CTA linear id * 32 + warp index in the CTA;
 *  - checkpoints every `interval` steps (copy-on-write pages, checkpoint.ts; CTAs, warps and
 *    frames frozen into one buffer, frozen.ts, with register files encoded per slot, regpages.ts).
 *
 * Any position p (machine state after p steps) is restored by loading the checkpoint at or before
 * p and re-executing deterministically up to p (the scheduler is resumable, so re-execution
 * reproduces the recorded interleaving exactly). The log answers "where did which warp execute"
 * without re-executing; memory questions (watchpoints, history) re-execute only the intervals
 * whose checkpoint shows a written page.
 */
import type { Machine } from '../exec/machine.js';
import { CHUNK_SHIFT, CHUNK_STEPS, StepLog, TraceError } from './steplog.js';
import type { FaultReport } from '../exec/machine.js';
import { observeSpins, SPIN_WINDOW } from '../exec/spin.js';
import { type Checkpoint, checkpointBytes, restore, Snapshotter } from './checkpoint.js';


/** Default checkpoint interval (a power of two; equal to the step log's chunk size, so a chunk is packed as soon as the interval that wrote it ends). */
export const DEFAULT_INTERVAL = 1 << 15;

// the step log and warp keys live in steplog.ts; re-exported for the modules that read a trace
export { CHUNK_SHIFT, ctaOfKey, defaultLogBudget, keyOf, StepLog, tidOfKey, TraceError, type WarpKey, warpKey, warpOfKey } from './steplog.js';

export interface RecordOptions {
  interval: number;
  /**
   * Bytes of the trace (step log and checkpoints) kept in memory while recording: past it,
   * finished step-log chunks spill to a file; checkpoints stay (default: defaultLogBudget()).
   */
  logBudget?: number;
}

/** What a long recording reports while it runs. */
export interface RecordProgress {
  steps: number;
  threadInstructions: number;
  wallMs: number;
  /** Bytes the trace holds so far (log and checkpoints). */
  bytes: number;
}

export interface AsyncRecordOptions extends RecordOptions {
  onProgress?: (p: RecordProgress) => void;
  /** Minimum time between progress reports (and event-loop turns); default 100 ms. */
  progressEveryMs?: number;
  /** Aborting stops the recording at the next checkpoint boundary. */
  signal?: AbortSignal;
}

/** A recorded run: the log, checkpoints, and how the run ended. */
export class Trace {
  readonly log: StepLog;
  readonly checkpoints: Checkpoint[] = [];
  /** Steps recorded; positions are 0..total. */
  total = 0;
  /** Full printf output of the run. */
  stdout = '';
  fault: FaultReport | undefined;
  /** Step of the faulting instruction (== total), or -1. */
  faultStep = -1;
  wallMs = 0;

  constructor(readonly machine: Machine, readonly interval: number, logBudget?: number) {
    this.log = new StepLog(logBudget);
  }

  /** Record the whole run from the machine's initial state. */
  static record(m: Machine, opts: RecordOptions = { interval: DEFAULT_INTERVAL }): Trace {
    const t = new Trace(m, opts.interval, opts.logBudget);
    const r = t.begin();
    try {
      while (!m.finished) t.recordInterval(r);
    } finally {
      t.end(r);
    }
    return t;
  }

  /**
   * Record like `record`, yielding to the event loop between intervals so that progress can be
   * shown and the user can stop early (Ctrl-C: `signal`); a stopped recording is a valid trace of
   * the steps so far (`interrupted`), the rr habit of recording until the bug shows.
   */
  static async recordAsync(m: Machine, opts: AsyncRecordOptions = { interval: DEFAULT_INTERVAL }): Promise<Trace> {
    const t = new Trace(m, opts.interval, opts.logBudget);
    const r = t.begin();
    const every = opts.progressEveryMs ?? 100;
    let lastReport = performance.now();
    try {
      while (!m.finished) {
        t.recordInterval(r);
        const now = performance.now();
        if (now - lastReport >= every) {
          lastReport = now;
          opts.onProgress?.({ steps: m.warpSteps, threadInstructions: m.threadInstructions, wallMs: now - r.t0, bytes: t.log.bytes() + t.checkpointsHeld });
          await new Promise<void>((res) => setImmediate(res));
        }
        if (opts.signal?.aborted && !m.finished) { t.interrupted = true; break; }
      }
    } finally {
      t.end(r);
    }
    return t;
  }

  /** Set when the recording was stopped before the run ended: positions end at the last step. */
  interrupted = false;
  /** Bytes of the checkpoints taken so far (their sum, kept as they are taken). */
  private checkpointsHeld = 0;

  private begin(): { t0: number; snap: Snapshotter } {
    const m = this.machine;
    m.prime();
    m.recorder = this.log;
    m.boundary = this.interval;
    return { t0: performance.now(), snap: new Snapshotter() };
  }

  /** Record up to the next checkpoint boundary. */
  private recordInterval(r: { snap: Snapshotter }): void {
    const m = this.machine;
    if (m.warpSteps === this.checkpoints.length * this.interval) {
      const c = r.snap.take(m);
      this.checkpoints.push(c);
      this.checkpointsHeld += c.bytes;
    }
    const end = Math.min(this.checkpoints.length * this.interval, m.opts.maxSteps + 1);
    this.log.reserve(m.warpSteps, end);
    m.advance(this.checkpoints.length * this.interval);
    // chunks the recording has left are finished: packed (and spilled past the budget)
    this.log.packBefore(m.warpSteps >>> CHUNK_SHIFT, CHUNK_STEPS, this.checkpointsHeld);
  }

  private end(r: { t0: number }): void {
    const m = this.machine;
    m.recorder = undefined;
    m.boundary = 0;
    this.fault = m.fault;
    this.faultStep = m.faultStep;
    // a faulting instruction's step is logged but never completes: positions end before it
    this.total = m.faultStep >= 0 ? m.faultStep : m.warpSteps;
    this.stdout = m.stdout;
    this.log.seal(m.faultStep >= 0 ? m.faultStep + 1 : m.warpSteps, this.checkpointsHeld);
    this.wallMs = performance.now() - r.t0;
    if (this.fault?.kind === 'step-limit') {
      // re-run the last window under observation to say which loops spun (exec/spin.ts)
      this.goto(Math.max(0, this.total - SPIN_WINDOW));
      const hints = observeSpins(m, this.total);
      this.fault = m.fault ?? this.fault;
      this.fault.hints = hints;
    }
  }

  /** Number of logged steps (total, plus the faulting step when there is one). */
  get logged(): number {
    return this.faultStep >= 0 ? this.total + 1 : this.total;
  }

  /** Bring the machine to position p (0..total). */
  goto(p: number): void {
    const m = this.machine;
    if (!Number.isInteger(p) || p < 0 || p > this.total) throw new RangeError(`step ${p} is outside the trace (0..${this.total})`);
    const ci = Math.min(Math.floor(p / this.interval), this.checkpoints.length - 1);
    const cp = this.checkpoints[ci]!;
    // forward within reach: keep going instead of restoring
    if (!(m.warpSteps <= p && m.warpSteps >= cp.step && !m.finished && m.fault === undefined)) restore(m, cp, this.stdout);
    m.advance(p);
    if (m.warpSteps !== p) throw new TraceError(`re-execution ended at step ${m.warpSteps} instead of ${p}: the run is not deterministic here (please report this kernel)`);
  }

  /** Memory the trace holds (log, segments, distinct checkpoint pages). */
  bytes(): { log: number; checkpoints: number } {
    return { log: this.log.bytes(), checkpoints: checkpointBytes(this.checkpoints) };
  }
}
