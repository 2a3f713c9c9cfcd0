/**
 * Running a launch's CTAs on several threads: the main thread's Machine and `threads - 1` worker
 * threads take CTA ids from one shared counter and run them on one shared global bank (a
 * SharedArrayBuffer). The main thread starts at once and the workers join when they have parsed
 * the module, so a short launch costs little more than on one thread.
 *
 * Results equal a sequential schedule's: only launches whose CTAs share nothing but global
 * loads, stores and atomics run here (eligible.ts); an atomic holds a lock for its
 * read-modify-write (memops.ts), so atomics of different threads never interleave. What needs
 * the sequential order to be exact (a fault, an assertion, the step limit) ends in `rerun`:
 * the caller runs the launch again on one thread, where the report is the sequential one.
 *
 * Synchronous, like the rest of a run: the main thread waits for the workers with Atomics.wait
 * and reads their reports with receiveMessageOnPort.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import type { Machine } from '../machine.js';
import { captureImage } from './image.js';
import { restoreSaved, savePages } from '../bank-pages.js';
import { sequentialReason } from './eligible.js';
import { Claim, runUnless, type LaunchJob, type PtxSource, type WorkerInput, type WorkerOutput } from './protocol.js';
import type { Program } from '../../ptx/resolve.js';

/** How a launch ran. */
export type ParallelRun =
  | { readonly kind: 'parallel'; readonly threads: number; readonly ctasPerThread: readonly number[] }
  /** It ran on one thread (this Machine ran it all): why. */
  | { readonly kind: 'sequential'; readonly why: string }
  /**
   * The threads stopped (a fault, the step limit): run the launch again on one thread, in a new
   * Machine. Resident memory (launch.resident) is as it was before; a launch's own arena is not.
   */
  | { readonly kind: 'rerun'; readonly why: string };

/** Threads a `--workers auto` run uses: one per core. */
export function defaultThreads(): number {
  return Math.max(1, availableParallelism());
}

/** Worker threads kept for the process's later launches (each keeps the modules it parsed). */
interface Helper {
  readonly worker: Worker;
  readonly port: MessagePort;
  /** Modules this worker has been sent. */
  readonly modules: Set<number>;
}

/** The workers' entry, beside this module (dist/src/exec/parallel/, or the bundle in dist/bin/). */
const WORKER = new URL('./worker.js', import.meta.url);
/** Whether WORKER exists (an unbuilt checkout has none): looked up at the first parallel launch. */
let workerBuilt: boolean | undefined;
/** An Int32 nobody notifies: Atomics.wait on it sleeps. */
const SLEEP = new Int32Array(new SharedArrayBuffer(4));

const helpers: Helper[] = [];
const moduleIds = new WeakMap<Program, number>();
let nextModule = 0;

function helper(i: number): Helper {
  let h = helpers[i];
  if (h === undefined) {
    const { port1, port2 } = new MessageChannel();
    const input: WorkerInput = { port: port2 };
    const worker = new Worker(WORKER, { workerData: input, transferList: [port2] });
    // idle workers must not keep the process alive
    worker.unref();
    port1.unref();
    h = { worker, port: port1, modules: new Set() };
    helpers[i] = h;
  }
  return h;
}

/**
 * Run `m`'s launch on `threads` threads (the main one included) when it may (eligible.ts), else
 * leave it to the caller. `source` is the PTX text `m.program` was loaded from, which a worker
 * parses at its first launch of the module.
 */
/**
 * `gone`, when given, says whether the launch's program has ended: then every thread stops between
 * slices and the launch comes back as a rerun (whose sequential run stops the same way).
 */
export function runOnThreads(m: Machine, source: PtxSource, threads: number, gone?: () => boolean): ParallelRun {
  const [gx, gy, gz] = m.launch.grid;
  const total = gx * gy * gz;
  const why = threads <= 1 ? 'one thread asked for'
    : m.recorder !== undefined || m.mem.probe !== undefined ? 'the run is recorded or observed'
    : !(workerBuilt ??= existsSync(WORKER)) ? 'worker threads are not built (npm run build)'
    : total < 2 ? 'the grid has one CTA'
    : total >= 2 ** 30 ? 'the grid has more CTAs than a shared counter holds'
    : m.warpSteps > 0 || m.nextCta > 0 ? 'the launch has started'
    : sequentialReason(m.program, m.launch);
  if (why !== undefined) return { kind: 'sequential', why };
  const n = Math.min(threads, total);
  let module = moduleIds.get(m.program);
  if (module === undefined) { module = nextModule++; moduleIds.set(m.program, module); }
  // resident memory (a program's) outlives the launch: kept to restore if the launch is rerun;
  // a launch's own arena is made afresh by the caller's rerun
  const before = m.launch.resident ? savePages(m.arena.bank) : undefined;
  const image = captureImage(m);
  const claims = new Int32Array(new SharedArrayBuffer(12));
  const used: Helper[] = [];
  for (let i = 0; i < n - 1; i++) {
    const h = helper(i);
    const job: LaunchJob = { module, source: h.modules.has(module) ? undefined : source, resolved: m.program.deferred?.history, image, claims: claims.buffer as SharedArrayBuffer };
    h.modules.add(module);
    h.port.postMessage(job);
    used.push(h);
  }
  m.ctaClaims = claims;
  const stopAll = (): true => { Atomics.store(claims, Claim.Stop, 1); Atomics.store(claims, Claim.NextCta, total); return true; };
  const ended = gone === undefined ? (m.advance(Infinity), false) : !runUnless(m, () => gone() && stopAll());
  // a fault here stops the workers' claims; they finish the CTAs they hold
  if (m.fault) Atomics.store(claims, Claim.NextCta, total);
  for (let done = Atomics.load(claims, Claim.Finished); done < n - 1; done = Atomics.load(claims, Claim.Finished)) {
    // workers that spin on: told to stop once the program has gone
    if (Atomics.wait(claims, Claim.Finished, done, gone ? 250 : 1000) === 'timed-out' && gone?.()) stopAll();
  }
  const outs = used.map((h) => receive(h.port));
  m.ctaClaims = undefined;
  m.mem.atomicLocks = undefined;
  const failed = outs.find((o): o is Extract<WorkerOutput, { ok: false }> => !o.ok);
  let steps = m.warpSteps;
  let thr = m.threadInstructions;
  for (const o of outs) if (o.ok) { steps += o.warpSteps; thr += o.threadInstructions; }
  const stop = m.fault ? `a fault (${m.fault.kind})` : ended ? 'the program has ended' : failed ? failed.why
    : steps > m.opts.maxSteps ? 'the step limit' : undefined;
  if (stop !== undefined) {
    if (before) restoreSaved(m.arena.bank, before);
    return { kind: 'rerun', why: stop };
  }
  for (const o of outs) if (o.ok) m.arena.bank.mergeDirty(o.dirty);
  m.warpSteps = steps;
  m.threadInstructions = thr;
  return { kind: 'parallel', threads: n, ctasPerThread: [m.ctasClaimed, ...outs.map((o) => (o.ok ? o.ctas : 0))] };
}

/** A worker's report; it posted it before counting itself finished. */
function receive(port: MessagePort): WorkerOutput {
  for (let tries = 0; tries < 1000; tries++) {
    const msg = receiveMessageOnPort(port);
    if (msg) return msg.message as WorkerOutput;
    Atomics.wait(SLEEP, 0, 0, 1);
  }
  return { ok: false, why: 'a worker thread did not report' };
}
