/**
 * `npm run fuzz`: seeded, time-boxed fuzzing of every input ptxdbg reads (PTX text, DWARF bytes,
 * launch files, trace files, debugger commands). Each kind runs in a worker thread; an input that
 * runs past the hang limit is recorded as a hang and the worker restarts after it. Prints counts
 * per kind; the inputs behind any internal error, hang or trace difference are written to a
 * findings directory. Exit 1 if there was any.
 *
 *   node dist/test/fuzz/fuzz.js [--count N] [--seed S] [--kinds ptx,launch] [--hang-ms 10000] [--time-box-s 600]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { KINDS, type Kind } from './targets.js';
import type { WorkerJob, WorkerMessage } from './worker.js';

interface Counts { inputs: number; accepted: number; rejected: number; internal: number; hangs: number; differs: number }

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const count = Number(option('count', '1000'));
const seed = Number(option('seed', '20261124'));
const hangMs = Number(option('hang-ms', '10000'));
const timeBoxS = Number(option('time-box-s', '900'));
const kinds = option('kinds', KINDS.join(',')).split(',') as Kind[];
for (const k of kinds) if (!KINDS.includes(k)) { process.stderr.write(`unknown kind ${k} (kinds: ${KINDS.join(', ')})\n`); process.exit(2); }
const findings = mkdtempSync(join(tmpdir(), 'ptxdbg-fuzz-findings-'));

/** Runs inputs [start, count) of one kind in a worker; resolves with the index to resume at (or count). */
function runWorker(kind: Kind, start: number, counts: Counts, deadline: number): Promise<number> {
  return new Promise((resolve) => {
    const job: WorkerJob = { kind, seed, count, start };
    const w = new Worker(new URL('./worker.js', import.meta.url), { workerData: job });
    let current = start;
    let startedAt = Date.now();
    let finished = false;
    const finish = (next: number): void => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      void w.terminate();
      resolve(next);
    };
    const timer = setInterval(() => {
      if (Date.now() - startedAt > hangMs) {
        counts.hangs++;
        counts.inputs++;
        writeFileSync(join(findings, `${kind}-${current}-hang.txt`), `seed ${seed} kind ${kind} input ${current}: no result after ${hangMs} ms\n`);
        finish(current + 1);
      } else if (Date.now() > deadline) finish(count);
    }, 200);
    w.on('message', (m: WorkerMessage) => {
      if (m.t === 'start') { current = m.i; startedAt = Date.now(); return; }
      counts.inputs++;
      if (m.outcome === 'accepted') counts.accepted++;
      else if (m.outcome === 'rejected') counts.rejected++;
      else {
        if (m.outcome === 'internal') counts.internal++;
        else counts.differs++;
        writeFileSync(join(findings, `${kind}-${m.i}-${m.outcome}.txt`), `seed ${seed} kind ${kind} input ${m.i}\n${m.input ?? ''}\n\n${m.detail ?? ''}\n`);
      }
      if (m.i + 1 >= count) finish(count);
    });
    w.on('error', (e) => {
      counts.internal++;
      counts.inputs++;
      writeFileSync(join(findings, `${kind}-${current}-worker.txt`), `seed ${seed} kind ${kind} input ${current}\n${e.stack ?? String(e)}\n`);
      finish(current + 1);
    });
    w.on('exit', () => finish(count));
  });
}

async function main(): Promise<void> {
  mkdirSync(findings, { recursive: true });
  const deadline = Date.now() + timeBoxS * 1000;
  process.stdout.write(`fuzz: seed ${seed}, ${count} inputs per kind, hang limit ${hangMs} ms, time box ${timeBoxS} s\n`);
  process.stdout.write(`${'kind'.padEnd(10)}${['inputs', 'accepted', 'rejected', 'internal', 'hangs', 'differs', 'seconds'].map((h) => h.padStart(10)).join('')}\n`);
  let bad = 0;
  for (const kind of kinds) {
    const counts: Counts = { inputs: 0, accepted: 0, rejected: 0, internal: 0, hangs: 0, differs: 0 };
    const t0 = Date.now();
    let next = 0;
    while (next < count && Date.now() < deadline) next = await runWorker(kind, next, counts, deadline);
    const row = [counts.inputs, counts.accepted, counts.rejected, counts.internal, counts.hangs, counts.differs, ((Date.now() - t0) / 1000).toFixed(1)];
    process.stdout.write(`${kind.padEnd(10)}${row.map((v) => String(v).padStart(10)).join('')}\n`);
    bad += counts.internal + counts.hangs + counts.differs;
  }
  process.stdout.write(bad ? `fuzz: ${bad} finding(s), inputs in ${findings}\n` : 'fuzz: no internal errors, hangs or trace differences\n');
  if (!bad) rmSync(findings, { recursive: true, force: true }); // nothing found: nothing left behind
  process.exitCode = bad ? 1 : 0;
}

await main();
