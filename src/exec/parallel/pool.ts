/**
 * Running a launch's CTAs on several threads: the main thread's Machine and `threads - 1` worker
 * threads take CTA ids from one shared counter and run them on one shared global bank (a
 * SharedArrayBuffer). The main thread starts at once and the workers join when they have parsed
 * the module, so a short launch costs little more than on one thread. Under `auto` the workers are
 * asked in only once what is left of the launch pays for them (auto.ts).
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
import { availableParallelism, loadavg } from 'node:os';
import { existsSync } from 'node:fs';
import type { Machine } from '../machine.js';
import { captureImage } from './image.js';
import { restoreBank, saveBank, type SavedBank } from './saved.js';
import { sequentialReason } from './eligible.js';
import { joinThreshold, JoinWatch, spareThreads } from './auto.js';
import { Claim, CLAIM_BYTES, CLOSED, runUnless, type LaunchJob, type PtxSource, type WorkerInput, type WorkerOutput } from './protocol.js';
import type { Program } from '../../ptx/resolve.js';

/** How a launch ran. */
export type ParallelRun =
  | {
    readonly kind: 'parallel'; readonly threads: number; readonly ctasPerThread: readonly number[];
    /** `auto`: no worker was asked to join (this Machine ran every CTA): why, in words. */
    readonly alone?: string;
  }
  /** It ran on one thread (this Machine ran it all): why. */
  | { readonly kind: 'sequential'; readonly why: string }
  /**
   * The threads stopped (a fault, the step limit): run the launch again on one thread, in a new
   * Machine. Resident memory (launch.resident) is as it was before; a launch's own arena is not.
   */
  | { readonly kind: 'rerun'; readonly why: string };

/** Threads for a launch's CTAs: a count, or 'auto' (one per core, for launches long enough to gain). */
export type Threads = number | 'auto';

/** Threads a `--workers auto` run may use: one per core (auto.ts uses the idle ones). */
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
 * `--workers auto` (`exec`'s default): a launch estimated shorter than this many warp-steps stays
 * on one thread. Below it the threads' costs (a worker starts a thread, parses the module and
 * warms its compiled code; the global bank is copied for a rerun) outweigh what a second core
 * gives. About 50 ms of one thread's work. An explicit thread count shares every eligible launch.
 */
export const AUTO_MIN_STEPS = 1 << 17;
/** Warp-steps per warp guessed for a kernel's first launch (later ones use its last launch's). */
const FIRST_GUESS = 64;

/** Warp-steps per warp of each kernel's last launch, per program. */
const perWarp = new WeakMap<Program, Map<string, number>>();

function warpsOf(m: Machine): number {
  const [gx, gy, gz] = m.launch.grid;
  const [bx, by, bz] = m.launch.block;
  return gx * gy * gz * Math.ceil((bx * by * bz) / 32);
}

/** Note how long `m`'s launch was (it has ended), for the estimate of its kernel's next launch. */
export function noteLaunch(m: Machine): void {
  let known = perWarp.get(m.program);
  if (known === undefined) { known = new Map(); perWarp.set(m.program, known); }
  known.set(m.launch.kernel, m.warpSteps / Math.max(1, warpsOf(m)));
}

/** Why `--workers auto` keeps `m`'s launch on one thread (too short to gain), or undefined. */
function shortReason(m: Machine): string | undefined {
  const est = Math.round(warpsOf(m) * (perWarp.get(m.program)?.get(m.launch.kernel) ?? FIRST_GUESS));
  return est < AUTO_MIN_STEPS ? `a short launch: about ${est} warp-steps, threads from ${AUTO_MIN_STEPS}` : undefined;
}

/** Why `--workers auto` keeps a launch on one thread because other work keeps the other cores busy, or undefined. */
function busyReason(): string | undefined {
  const [load = 0] = loadavg();
  return spareThreads(defaultThreads(), load) <= 1 ? `no idle core: load average ${load.toFixed(2)} on ${defaultThreads()} cores` : undefined;
}

/**
 * Run `m`'s launch on `threads` threads (the main one included; 'auto': one per core, for a launch
 * long enough to gain) when it may (eligible.ts), else leave it to the caller. `source` is the PTX
 * text `m.program` was loaded from, which a worker parses at its first launch of the module.
 * `gone`, when given, says whether the launch's program has ended: then every thread stops between
 * slices and the launch comes back as a rerun (whose sequential run stops the same way).
 */
export function runOnThreads(m: Machine, source: PtxSource, threads: Threads, gone?: () => boolean): ParallelRun {
  const [gx, gy, gz] = m.launch.grid;
  const total = gx * gy * gz;
  const auto = threads === 'auto';
  const count = auto ? defaultThreads() : threads;
  const why = count <= 1 ? (auto ? 'one core' : 'one thread asked for')
    : m.recorder !== undefined || m.mem.probe !== undefined ? 'the run is recorded or observed'
    : !(workerBuilt ??= existsSync(WORKER)) ? 'worker threads are not built (npm run build)'
    : total < 2 ? 'the grid has one CTA'
    : total >= 2 ** 30 ? 'the grid has more CTAs than a shared counter holds'
    : m.warpSteps > 0 || m.nextCta > 0 ? 'the launch has started'
    : sequentialReason(m.program, m.launch) ?? (auto ? shortReason(m) ?? busyReason() : undefined);
  if (why !== undefined) return { kind: 'sequential', why };
  const n = Math.min(auto ? spareThreads() : count, total);
  let module = moduleIds.get(m.program);
  if (module === undefined) { module = nextModule++; moduleIds.set(m.program, module); }
  // resident memory (a program's) outlives the launch: kept to restore if the launch is rerun;
  // a launch's own arena is made afresh by the caller's rerun
  const before = m.launch.resident ? saveBank(m.arena.bank) : undefined;
  const beforeFar = m.launch.resident ? m.arena.far.map((b) => (b ? saveBank(b) : undefined)) : [];
  const image = captureImage(m);
  const claims = new Int32Array(new SharedArrayBuffer(CLAIM_BYTES));
  const used: Helper[] = [];
  const post = (): void => {
    for (let i = 0; i < n - 1; i++) {
      const h = helper(i);
      const job: LaunchJob = { module, source: h.modules.has(module) ? undefined : source, resolved: m.program.deferred?.history, image, claims: claims.buffer as SharedArrayBuffer };
      h.modules.add(module);
      h.port.postMessage(job);
      used.push(h);
    }
  };
  // auto: the main thread starts alone; workers are asked in once what is left pays for them
  const watch = auto ? new JoinWatch(total, () => Atomics.load(claims, Claim.NextCta), joinThreshold(helpers[0]?.modules.has(module) === true)) : undefined;
  if (!watch) post();
  m.ctaClaims = claims;
  const stopAll = (): true => { Atomics.store(claims, Claim.Stop, 1); Atomics.store(claims, Claim.NextCta, total); return true; };
  const between = (): boolean => {
    if (gone?.()) return stopAll();
    if (watch && used.length === 0 && watch.due()) post();
    return false;
  };
  const ended = gone === undefined && !watch ? (m.advance(Infinity), false) : !runUnless(m, between);
  // a fault here stops the workers' claims; they finish the CTAs they hold
  if (m.fault) Atomics.store(claims, Claim.NextCta, total);
  // close the launch: a worker not here yet stays out; the ones that joined are waited for
  const joined = Atomics.add(claims, Claim.Joined, CLOSED);
  for (let done = Atomics.load(claims, Claim.Finished); done < joined; done = Atomics.load(claims, Claim.Finished)) {
    // workers that spin on: told to stop once the program has gone
    if (Atomics.wait(claims, Claim.Finished, done, gone ? 250 : 1000) === 'timed-out' && gone?.()) stopAll();
  }
  const reports = receive(used, joined);
  const outs = reports.filter((o): o is WorkerOutput => o !== undefined);
  m.ctaClaims = undefined;
  m.mem.atomicLocks = undefined;
  const failed = outs.find((o): o is Extract<WorkerOutput, { ok: false }> => !o.ok);
  let steps = m.warpSteps;
  let thr = m.threadInstructions;
  for (const o of outs) if (o.ok) { steps += o.warpSteps; thr += o.threadInstructions; }
  const stop = m.fault ? `a fault (${m.fault.kind})` : ended ? 'the program has ended' : failed ? failed.why
    : steps > m.opts.maxSteps ? 'the step limit' : undefined;
  if (stop !== undefined) {
    // the pages each worker wrote (a worker that did not join wrote none; one that did not report: unknown)
    const wrote = reports.map((o) => (o === undefined ? new Uint8Array(0) : o.dirty));
    if (before) restoreBank(m.arena.bank, before, wrote.every((d) => d !== undefined) ? wrote as Uint8Array[] : undefined);
    restoreFar(m, beforeFar, reports);
    return { kind: 'rerun', why: stop };
  }
  for (const o of outs) if (o.ok) m.arena.bank.mergeDirty(o.dirty);
  for (const o of outs) if (o.ok) for (const [k, d] of o.far) m.arena.far[k]?.mergeDirty(d);
  m.warpSteps = steps;
  m.threadInstructions = thr;
  if (watch && used.length === 0) return { kind: 'parallel', threads: 1, ctasPerThread: [m.ctasClaimed], alone: watch.why() };
  return { kind: 'parallel', threads: n, ctasPerThread: [m.ctasClaimed, ...reports.map((o) => (o?.ok ? o.ctas : 0))] };
}

/**
 * The reports of the `joined` workers, by helper (undefined: it did not join; each that joined
 * posted its report before counting itself finished).
 */
function receive(used: readonly Helper[], joined: number): (WorkerOutput | undefined)[] {
  const outs: (WorkerOutput | undefined)[] = used.map(() => undefined);
  let got = 0;
  for (let tries = 0; got < joined && tries < 1000; tries++) {
    used.forEach((h, i) => {
      const msg = outs[i] === undefined ? receiveMessageOnPort(h.port) : undefined;
      if (msg) { outs[i] = msg.message as WorkerOutput; got++; }
    });
    if (got < joined) Atomics.wait(SLEEP, 0, 0, 1);
  }
  if (got < joined) outs[outs.indexOf(undefined)] = { ok: false, why: 'a worker thread did not report' };
  return outs;
}

/**
 * The banks past the first as they were before a launch that is to be rerun: each worker's
 * flags of a bank say what it wrote there (none when it did not join; unknown when it did not
 * report, then every page that may be non-zero is put back or zeroed).
 */
function restoreFar(m: Machine, before: readonly (SavedBank | undefined)[], reports: readonly (WorkerOutput | undefined)[]): void {
  m.arena.far.forEach((b, k) => {
    const saved = before[k];
    if (!b || !saved) return;
    const wrote = reports.map((o) => (o === undefined ? new Uint8Array(0) : o.dirty === undefined ? undefined : o.far?.find(([j]) => j === k)?.[1] ?? new Uint8Array(0)));
    restoreBank(b, saved, wrote.every((d) => d !== undefined) ? wrote as Uint8Array[] : undefined);
  });
}
