/**
 * `check`'s fast verdict on one module: every function parsed, resolved and run through the
 * interpreter's instruction selection one at a time (ptx/index.ts sweepClean), on this thread
 * and, for a large module, on worker threads that each take a share of the bodies
 * (check-worker.ts). It only proves a module clean: anything found, or any thread that fails,
 * and check loads the module whole on this thread to report, so what the user reads never
 * depends on the threads.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { supportVerdict } from '../exec/support.js';
import { type Share, sweepClean } from '../ptx/index.js';
import type { ProgFunction, Program } from '../ptx/resolve.js';

/** What a worker is given (check-worker.ts). */
export interface SweepJob {
  readonly text: string;
  readonly label: string;
  readonly share: Share;
}

/** Whether `share` of the module's bodies is clean (and the module's declarations). */
export function sweepShare(job: SweepJob): boolean {
  let verdict: ((fn: ProgFunction) => number) | undefined;
  return sweepClean(job.text, job.label, (program: Program, fn: ProgFunction) => {
    verdict ??= supportVerdict(program);
    return verdict(fn);
  }, job.share);
}

/** Text per thread below which another thread costs more (its start, its own parse of the declarations) than it saves. */
const BYTES_PER_THREAD = 4 << 20;
const MAX_THREADS = 8;
/** The workers' entry, beside this module (dist/src/cli/, or the bundle's dist/bin/). */
const WORKER = new URL('./check-worker.js', import.meta.url);

/** Threads for a module of `bytes`: one per core, each with at least BYTES_PER_THREAD of text. */
export function sweepThreads(bytes: number): number {
  return Math.max(1, Math.min(availableParallelism(), MAX_THREADS, Math.floor(bytes / BYTES_PER_THREAD)));
}

export interface SweepOptions {
  readonly threads?: number;
  /** The worker's entry (tests running from the sources name the built one). */
  readonly worker?: URL;
}

/**
 * Whether the module is clean. A large module is swept on `threads` worker threads, one share
 * each, even on one core: a worker's young generation can be made large (YOUNG_MB), and with
 * V8's default one, scavenges of each function's short-lived statements were a third of the time.
 */
export async function sweepModule(text: string, label: string, opts: SweepOptions = {}): Promise<boolean> {
  const entry = opts.worker ?? WORKER;
  const threads = opts.threads ?? sweepThreads(text.length);
  const workers = (threads > 1 || text.length >= BYTES_PER_THREAD) && existsSync(entry);
  if (!workers) return sweepShare({ text, label, share: { index: 0, of: 1 } });
  const shares: Promise<boolean>[] = [];
  for (let index = 0; index < threads; index++) shares.push(inWorker(entry, { text, label, share: { index, of: threads } }));
  return (await Promise.all(shares)).every((ok) => ok);
}

/** A worker's young generation, MB: V8's default (16 MB semi-spaces) made GC a third of a sweep; 64 MB ones, under a fifth. */
const YOUNG_MB = 192;

/** One share on a worker thread: false if it finds anything, fails or ends without an answer. */
function inWorker(entry: URL, job: SweepJob): Promise<boolean> {
  return new Promise((resolve) => {
    const w = new Worker(entry, { workerData: job, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB } });
    let answered = false;
    const answer = (ok: boolean): void => {
      if (answered) return;
      answered = true;
      resolve(ok);
      void w.terminate();
    };
    w.on('message', (ok: unknown) => answer(ok === true));
    w.on('error', () => answer(false));
    w.on('exit', () => answer(false));
  });
}
