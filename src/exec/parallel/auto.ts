/**
 * `--workers auto` (`exec`'s default): threads only where they pay. A worker thread costs before
 * it gives: it starts, loads ptxdbg, parses the module, and runs its first CTAs in cold code
 * (V8 compiles and optimises the blocks in each thread anew). On a 2-core machine that is a few
 * hundred milliseconds of CPU, more than a launch of half a second gains from a second core
 * (the 256x256 matmul took 1.09 s wall / 1.73 s CPU with a worker against 0.85 / 1.08 s alone).
 * So an `auto` launch starts on the main thread alone, and workers are asked to join only when
 * what is left of it, projected from how fast its CTAs are being taken, is long enough to gain
 * and a core is idle. Results are the same whoever runs a CTA (pool.ts).
 */
import { availableParallelism, loadavg } from 'node:os';

/**
 * Work left on one thread (ms) from which a worker that has never run the module is asked to
 * join: its start and warm-up cost about a few hundred ms of its core (override: PTXDBG_JOIN_MS).
 */
export const JOIN_COLD_MS = 1000;
/** The same for workers that have run the module before (warm code: they cost little). */
export const JOIN_WARM_MS = 200;
/** The projection is made over windows of at least this long (the first CTAs run in cold code). */
const WINDOW_MS = 50;

/**
 * Threads `auto` uses: one per core, less the cores other processes keep busy (the 1-minute load
 * average; this thread is one of the threads), at least 1. On a machine shared with other work a
 * worker gets no core of its own and only adds its start to the run.
 */
export function spareThreads(cores = availableParallelism(), load = loadavg()[0] ?? 0): number {
  return Math.max(1, Math.min(cores, 1 + Math.round(cores - load)));
}

/** The join threshold (ms of work left on one thread), PTXDBG_JOIN_MS overriding the default. */
export function joinThreshold(warm: boolean): number {
  const env = Number(process.env['PTXDBG_JOIN_MS']);
  return process.env['PTXDBG_JOIN_MS'] !== undefined && Number.isFinite(env) && env >= 0 ? env : warm ? JOIN_WARM_MS : JOIN_COLD_MS;
}

/**
 * ms of work left on one thread: `left` CTAs not yet taken, at the pace of the last window
 * (`taken` CTAs taken in `ms`); Infinity when none was taken (each CTA outlasts the window).
 */
export function projectedMs(ms: number, taken: number, left: number): number {
  if (left <= 0) return 0;
  return taken > 0 ? (ms / taken) * left : Infinity;
}

/**
 * Watches a launch the main thread runs alone, between its slices: due() once the work left,
 * projected from the last window, reaches the threshold. `claimed()` reads how many CTAs have
 * been taken (the shared counter).
 */
export class JoinWatch {
  private winStart: number;
  private winTaken: number;
  /** The largest projection made (for the --stats words when no worker joined). */
  private most: number | undefined;
  /** The first window is left out: it holds the resident CTAs' start and the coldest code. */
  private first = true;

  constructor(private readonly total: number, private readonly claimed: () => number, readonly threshold: number, now = performance.now()) {
    this.winStart = now;
    this.winTaken = claimed();
  }

  due(now = performance.now()): boolean {
    const ms = now - this.winStart;
    if (ms < Math.min(WINDOW_MS, this.threshold)) return false;
    const taken = Math.min(this.total, this.claimed());
    const left = projectedMs(ms, taken - this.winTaken, this.total - taken);
    // every CTA taken already: a worker would find none
    const judged = !this.first && taken < this.total;
    this.first = false;
    this.winStart = now;
    this.winTaken = taken;
    if (!judged) return false;
    this.most = Math.max(this.most ?? 0, Math.min(left, 1e9));
    return left >= this.threshold;
  }

  /** Why no worker was asked to join (--stats). */
  why(): string {
    return this.most === undefined ? `it ended before the work left was judged (workers from ${this.threshold} ms of it)`
      : `about ${Math.round(this.most)} ms of work left at most, workers from ${this.threshold} ms`;
  }
}
