/**
 * The reversible trace: what ptxdbg records about a run and how it travels through it.
 *
 * Format (in memory; file.ts serialises it):
 *  - step log: per warp-step two u32 words, the global instruction index (Machine.globalBase of
 *    the function + pc) and the warp's SIMT active mask before the guard, in chunks of 2^19 steps;
 *  - segments: (first step, warp key) for each run of consecutive steps of one warp, where the
 *    warp key is CTA linear id * 32 + warp index in the CTA;
 *  - checkpoints every `interval` steps (copy-on-write pages, checkpoint.ts).
 *
 * Any position p (machine state after p steps) is restored by loading the checkpoint at or before
 * p and re-executing deterministically up to p (the scheduler is resumable, so re-execution
 * reproduces the recorded interleaving exactly). The log answers "where did which warp execute"
 * without re-executing; memory questions (watchpoints, history) re-execute only the intervals
 * whose checkpoint shows a written page.
 */
import type { Machine, StepRecorder } from '../exec/machine.js';
import type { Warp } from '../exec/state.js';
import type { FaultReport } from '../exec/machine.js';
import { observeSpins, SPIN_WINDOW } from '../exec/spin.js';
import { type Checkpoint, checkpointBytes, restore, Snapshotter } from './checkpoint.js';

/** Re-execution did not reproduce the recording (a nondeterminism bug): reported, not a crash. */
export class TraceError extends Error {}

export const CHUNK_SHIFT = 19;
const CHUNK_STEPS = 1 << CHUNK_SHIFT;
const CHUNK_MASK = CHUNK_STEPS - 1;
/** Default checkpoint interval (a power of two dividing the chunk size). */
export const DEFAULT_INTERVAL = 1 << 15;

/**
 * A warp's identity in the step log and everywhere above it: CTA id * 32 + warp index in the
 * CTA (a CTA has at most 32 warps). The one home of the encoding: build and take apart keys
 * only with these.
 */
export function warpKey(w: Warp): number {
  return keyOf(w.cta.id, w.tidBase >>> 5);
}

export function keyOf(cta: number, warpInCta: number): number { return cta * 32 + warpInCta; }
export function ctaOfKey(key: number): number { return key >>> 5; }
export function warpOfKey(key: number): number { return key & 31; }
/** Linear thread index in its CTA of lane `lane` of warp `key`. */
export function tidOfKey(key: number, lane: number): number { return warpOfKey(key) * 32 + lane; }

export class StepLog implements StepRecorder {
  readonly chunks: Uint32Array[] = [];
  segStep = new Uint32Array(1024);
  segWarp = new Uint32Array(1024);
  nseg = 0;

  chunkFor(step: number, w: Warp): Uint32Array {
    const key = warpKey(w);
    if (this.nseg === 0 || this.segWarp[this.nseg - 1] !== key) {
      if (this.nseg === this.segStep.length) {
        const a = new Uint32Array(this.nseg * 2); a.set(this.segStep); this.segStep = a;
        const b = new Uint32Array(this.nseg * 2); b.set(this.segWarp); this.segWarp = b;
      }
      this.segStep[this.nseg] = step;
      this.segWarp[this.nseg] = key;
      this.nseg++;
    }
    const c = step >>> CHUNK_SHIFT;
    while (this.chunks.length <= c) this.chunks.push(new Uint32Array(2 * CHUNK_STEPS));
    return this.chunks[c]!;
  }

  offsetOf(step: number): number {
    return (step & CHUNK_MASK) * 2;
  }

  /**
   * Room for the steps [from, end) before the machine runs them (chunks, segment slots), so that
   * chunkFor, inlined in the hot loop, never takes its growing paths there: a path first taken
   * in optimized code deoptimizes the hot loop, which then runs slowly until it is recompiled.
   */
  reserve(from: number, end: number): void {
    if (end <= from) return;
    while (this.chunks.length <= (end - 1) >>> CHUNK_SHIFT) this.chunks.push(new Uint32Array(2 * CHUNK_STEPS));
    const need = this.nseg + (end - from);
    if (need <= this.segStep.length) return;
    let n = this.segStep.length;
    while (n < need) n *= 2;
    const a = new Uint32Array(n); a.set(this.segStep); this.segStep = a;
    const b = new Uint32Array(n); b.set(this.segWarp); this.segWarp = b;
  }

  /** Global instruction index of step s. */
  loc(s: number): number {
    return this.chunks[s >>> CHUNK_SHIFT]![(s & CHUNK_MASK) * 2]!;
  }

  mask(s: number): number {
    return this.chunks[s >>> CHUNK_SHIFT]![(s & CHUNK_MASK) * 2 + 1]! | 0;
  }

  /** Index of the segment containing step s. */
  segmentOf(s: number): number {
    let lo = 0, hi = this.nseg - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.segStep[mid]! <= s) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  warpAt(s: number): number {
    return this.segWarp[this.segmentOf(s)]!;
  }

  /** Trim the chunks to what was used (reserve may have made one more). */
  seal(total: number): void {
    this.chunks.length = Math.min(this.chunks.length, Math.ceil(total / CHUNK_STEPS));
    const last = this.chunks.length - 1;
    if (last >= 0) this.chunks[last] = this.chunks[last]!.slice(0, Math.max(0, total - last * CHUNK_STEPS) * 2);
    this.segStep = this.segStep.slice(0, this.nseg);
    this.segWarp = this.segWarp.slice(0, this.nseg);
  }

  bytes(): number {
    let n = this.segStep.byteLength + this.segWarp.byteLength;
    for (const c of this.chunks) n += c.byteLength;
    return n;
  }
}

export interface RecordOptions {
  interval: number;
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
  readonly log = new StepLog();
  readonly checkpoints: Checkpoint[] = [];
  /** Steps recorded; positions are 0..total. */
  total = 0;
  /** Full printf output of the run. */
  stdout = '';
  fault: FaultReport | undefined;
  /** Step of the faulting instruction (== total), or -1. */
  faultStep = -1;
  wallMs = 0;

  constructor(readonly machine: Machine, readonly interval: number) {}

  /** Record the whole run from the machine's initial state. */
  static record(m: Machine, opts: RecordOptions = { interval: DEFAULT_INTERVAL }): Trace {
    const t = new Trace(m, opts.interval);
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
    const t = new Trace(m, opts.interval);
    const r = t.begin();
    const every = opts.progressEveryMs ?? 100;
    let lastReport = performance.now();
    try {
      while (!m.finished) {
        t.recordInterval(r);
        const now = performance.now();
        if (now - lastReport >= every) {
          lastReport = now;
          opts.onProgress?.({ steps: m.warpSteps, threadInstructions: m.threadInstructions, wallMs: now - r.t0, bytes: t.log.bytes() + checkpointBytes(t.checkpoints) });
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
    if (m.warpSteps === this.checkpoints.length * this.interval) this.checkpoints.push(r.snap.take(m));
    const end = Math.min(this.checkpoints.length * this.interval, m.opts.maxSteps + 1);
    this.log.reserve(m.warpSteps, end);
    m.advance(this.checkpoints.length * this.interval);
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
    this.log.seal(m.faultStep >= 0 ? m.faultStep + 1 : m.warpSteps);
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
