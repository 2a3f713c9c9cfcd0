/**
 * A worker thread's side of parallel launches: for each launch, take the main thread's memory
 * layout and run CTAs claimed from the shared counter until none is left. Modules are parsed
 * once, at their first launch, and kept (with their compiled code) for the next ones; a worker
 * joins a launch only if the main thread has not finished it alone meanwhile (Claim.Joined). A fault
 * (or anything else that goes wrong) stops every thread from claiming more CTAs, and the main
 * thread reruns the launch on one thread, where the fault gets its exact, sequential report.
 */
import { workerData } from 'node:worker_threads';
import { loadPtx } from '../../ptx/index.js';
import type { Program } from '../../ptx/resolve.js';
import { Machine } from '../machine.js';
import { imageLaunch, layoutFromImage } from './image.js';
import { Claim, CLOSED, runUnless, type LaunchJob, type WorkerInput, type WorkerOutput, type FarDirty } from './protocol.js';

const { port } = workerData as WorkerInput;
const programs = new Map<number, Program>();

function program(job: LaunchJob): Program {
  let p = programs.get(job.module);
  if (p === undefined) {
    if (job.source === undefined) throw new Error(`module ${job.module} was never sent to this worker`);
    const loaded = loadPtx(job.source.text, job.source.label, { lazy: job.resolved !== undefined });
    if (!loaded.program) throw new Error('the module does not load in a worker');
    p = loaded.program;
    programs.set(job.module, p);
  }
  // resolve what the main thread's copy has, in its order, so both lay memory out alike
  for (const roots of job.resolved ?? []) p.deferred?.reach(roots);
  return p;
}

function run(job: LaunchJob, prog: Program): WorkerOutput {
  const claims = new Int32Array(job.claims);
  let m: Machine | undefined;
  try {
    m = new Machine(prog, imageLaunch(job.image), job.image.opts, layoutFromImage(job.image, prog));
    m.ctaClaims = claims;
    if (!runUnless(m, () => Atomics.load(claims, Claim.Stop) !== 0)) throw new Error('the program has ended');
    if (m.fault) throw new Error(`a fault (${m.fault.kind})`);
    return { ok: true, warpSteps: m.warpSteps, threadInstructions: m.threadInstructions, ctas: m.ctasClaimed, dirty: m.arena.bank.dirty, far: farDirty(m) };
  } catch (e) {
    return failed(job, e, m?.arena.bank.dirty ?? new Uint8Array(0), m ? farDirty(m) : []);
  }
}

/** No thread claims another CTA: the launch is rerun on one thread (`dirty`: the pages this worker wrote). */
/** The dirty flags of the banks past the first (the pages this worker wrote there). */
function farDirty(m: Machine): FarDirty {
  const out: [number, Uint8Array][] = [];
  m.arena.far.forEach((b, k) => { if (b) out.push([k, b.dirty]); });
  return out;
}

function failed(job: LaunchJob, e: unknown, dirty?: Uint8Array, far?: FarDirty): WorkerOutput {
  const [gx, gy, gz] = job.image.launch.grid;
  Atomics.store(new Int32Array(job.claims), Claim.NextCta, gx * gy * gz);
  return { ok: false, why: e instanceof Error ? e.message : String(e), ...(dirty ? { dirty } : {}), ...(far ? { far } : {}) };
}

port.on('message', (job: LaunchJob) => {
  // the module first (parsed at its first job, kept for the later ones), even for a launch
  // that is over by then: its next launch finds it ready
  let prog: Program | undefined;
  let err: unknown;
  try {
    prog = program(job);
  } catch (e) {
    err = e;
  }
  const claims = new Int32Array(job.claims);
  // the main thread closed the launch before this worker came: it ran without it
  if (Atomics.add(claims, Claim.Joined, 1) >= CLOSED) return;
  const out = prog === undefined ? failed(job, err, new Uint8Array(0)) : run(job, prog);
  port.postMessage(out);
  Atomics.add(claims, Claim.Finished, 1);
  Atomics.notify(claims, Claim.Finished);
});
