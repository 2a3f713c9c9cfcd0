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
import { mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
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

/** Bytes of a full step-log chunk. */
const CHUNK_BYTES = 2 * CHUNK_STEPS * 4;
/** Spilled chunks kept in memory after a read (the engine reads the log in runs of steps). */
const SPILL_CACHE = 4;

/**
 * The default memory budget of a step log: past it, finished chunks go to a temporary file and
 * are read back on demand, so a recording larger than memory stays usable.
 */
export function defaultLogBudget(): number {
  return Math.min(2 ** 31, Math.floor(totalmem() / 4));
}

export class StepLog implements StepRecorder {
  /** Chunks in memory; a spilled chunk's slot is undefined (read it with chunk()). */
  readonly chunks: (Uint32Array | undefined)[] = [];
  segStep = new Uint32Array(1024);
  segWarp = new Uint32Array(1024);
  nseg = 0;
  /** The spill file (unlinked at once: it lives as long as this process holds it), or -1. */
  private fd = -1;
  private resident = 0;
  private readonly cache = new Map<number, Uint32Array>();

  /** `budget`: bytes of chunks kept in memory while recording (the rest is spilled). */
  constructor(private readonly budget = defaultLogBudget()) {}

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
    while (this.chunks.length <= c) {
      // recording only moves forward: every chunk before the new one is finished
      if (this.resident + CHUNK_BYTES > this.budget) this.spill();
      this.chunks.push(new Uint32Array(2 * CHUNK_STEPS));
      this.resident += CHUNK_BYTES;
    }
    return this.chunks[c]!;
  }

  /** Write the finished chunks still in memory to the spill file and let them go. */
  private spill(): void {
    if (this.fd < 0) {
      const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-log-'));
      const path = join(dir, 'steps');
      this.fd = openSync(path, 'w+');
      rmSync(dir, { recursive: true, force: true });
    }
    for (let c = 0; c < this.chunks.length; c++) {
      const chunk = this.chunks[c];
      if (!chunk) continue;
      const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done, c * CHUNK_BYTES + done);
      this.chunks[c] = undefined;
      this.resident -= chunk.byteLength;
    }
  }

  /** Chunk c, read back from the spill file when it was spilled. */
  chunk(c: number): Uint32Array {
    const inMemory = this.chunks[c];
    if (inMemory) return inMemory;
    let got = this.cache.get(c);
    if (got) {
      this.cache.delete(c);
      this.cache.set(c, got);
      return got;
    }
    got = new Uint32Array(2 * CHUNK_STEPS);
    const bytes = new Uint8Array(got.buffer);
    for (let done = 0; done < bytes.length;) {
      const n = readSync(this.fd, bytes, done, bytes.length - done, c * CHUNK_BYTES + done);
      if (n <= 0) throw new TraceError(`the spilled step log ended early (chunk ${c})`);
      done += n;
    }
    if (this.cache.size >= SPILL_CACHE) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(c, got);
    return got;
  }

  /** Chunks written to the spill file so far. */
  get spilled(): number {
    let n = 0;
    for (const c of this.chunks) if (!c) n++;
    return n;
  }

  offsetOf(step: number): number {
    return (step & CHUNK_MASK) * 2;
  }

  /** Global instruction index of step s. */
  loc(s: number): number {
    return this.chunk(s >>> CHUNK_SHIFT)[(s & CHUNK_MASK) * 2]!;
  }

  mask(s: number): number {
    return this.chunk(s >>> CHUNK_SHIFT)[(s & CHUNK_MASK) * 2 + 1]! | 0;
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

  /** Trim the last chunk to what was used. */
  seal(total: number): void {
    const last = this.chunks.length - 1;
    const chunk = last >= 0 ? this.chunks[last] : undefined;
    if (chunk) this.chunks[last] = chunk.slice(0, Math.max(0, total - last * CHUNK_STEPS) * 2);
    this.segStep = this.segStep.slice(0, this.nseg);
    this.segWarp = this.segWarp.slice(0, this.nseg);
  }

  /** Bytes of the log (spilled chunks included). */
  bytes(): number {
    let n = this.segStep.byteLength + this.segWarp.byteLength;
    for (const c of this.chunks) n += c ? c.byteLength : CHUNK_BYTES;
    return n;
  }

  /** Bytes of the log held in memory. */
  residentBytes(): number {
    let n = this.segStep.byteLength + this.segWarp.byteLength;
    for (const c of this.chunks) n += c ? c.byteLength : 0;
    for (const c of this.cache.values()) n += c.byteLength;
    return n;
  }
}

export interface RecordOptions {
  interval: number;
  /** Bytes of step log kept in memory while recording (default: defaultLogBudget()). */
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
