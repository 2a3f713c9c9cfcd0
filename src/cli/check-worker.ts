/** A worker thread of `check`: sweeps its share of a module's bodies (check-sweep.ts) and answers whether it is clean. */
import { parentPort, workerData } from 'node:worker_threads';
import { sweepShare, type SweepJob } from './check-sweep.js';

let ok = false;
try {
  ok = sweepShare(workerData as SweepJob);
} finally {
  parentPort?.postMessage(ok);
}
