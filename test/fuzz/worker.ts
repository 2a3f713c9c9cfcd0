/**
 * Fuzz worker: draws the inputs of one kind from a seed and runs them in order, telling the
 * driver which input it starts before running it, so that a hang can be pinned to its input.
 */
import { parentPort, workerData } from 'node:worker_threads';
import fc from 'fast-check';
import { arbitraryFor, type Kind, runInput } from './targets.js';

export interface WorkerJob { kind: Kind; seed: number; count: number; start: number }
export type WorkerMessage =
  | { t: 'start'; i: number }
  | { t: 'done'; i: number; outcome: string; detail?: string; input?: string };

const job = workerData as WorkerJob;
const port = parentPort!;
const inputs = fc.sample(arbitraryFor(job.kind), { seed: job.seed, numRuns: job.count });
for (let i = job.start; i < inputs.length; i++) {
  port.postMessage({ t: 'start', i } satisfies WorkerMessage);
  const o = await runInput(job.kind, inputs[i]);
  const msg: WorkerMessage = o.kind === 'internal' || o.kind === 'differs'
    ? { t: 'done', i, outcome: o.kind, detail: o.detail.slice(0, 2000), input: JSON.stringify(inputs[i], (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)).slice(0, 4000) }
    : { t: 'done', i, outcome: o.kind };
  port.postMessage(msg);
}
