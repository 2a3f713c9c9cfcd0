/**
 * `npm run bench` part for the whole-program recording (issue #25): samples/apps/timeline/many.cu,
 * 1,000 launches of two kernels, built with nvcc and run on the ptxdbg runtime.
 *   - cost: the program recorded whole against a plain `exec` run (the same host layer, the same
 *     worker threads, in this process), wall and CPU time and their ratios (target ≤ 1.5×); the
 *     three runs alternate, ROUNDS times, and the fastest of each counts (a loaded machine slows
 *     one run or another, not one kind);
 *   - memory: the bytes the recording holds against its budget, and the process's RSS after it;
 *   - travel: `goto` to random positions across the launches (seeded), p50/p90/p99/max (target p99
 *     ≤ 50 ms) and the collections (GC) that fell in them; the first visit of a launch records its
 *     warp-steps, which is the cost counted;
 *   - the same figures with only one kernel recorded (`--record add_round`).
 * It prints figures and asserts nothing about time (the machine may be loaded: see `uptime`).
 * Without nvcc or the runtime it says so and measures nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { missingTool, ROOT } from '../helpers.js';
import { Device } from '../../src/host/device.js';
import { ProgramLaunches, runProgram, type RecordOptions } from '../../src/host/program.js';
import type { ProgramRecording } from '../../src/host/recording.js';
import { programSource } from '../../src/host/program-source.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/exec/machine.js';
import { openProgramEngine, positionOf, type Engine } from '../../src/engine/index.js';
import { threadCount } from '../../src/cli/run.js';
import { EXEC_MAX_STEPS } from '../../src/cli/exec.js';

const LIB = join(ROOT, 'dist', 'cudart');
const BUDGET = 1 << 30;
const GOTOS = 300;
const ROUNDS = 2;

interface Run { wall: number; cpu: number; code: number; rec: ProgramRecording | undefined }

/** One run of the program on the host layer, as `ptxdbg exec` runs it (`record`: as `ptxdbg ./app` records it). */
async function runOnce(app: string, record: RecordOptions | undefined): Promise<Run> {
  global.gc?.();
  const device = new Device();
  const launches = new ProgramLaunches(device, {
    opts: { ...DEFAULT_RUN_OPTIONS, maxSteps: EXEC_MAX_STEPS }, threads: threadCount(undefined), stats: false, races: false, breaks: [], breakOnFault: false,
    capture: undefined, sanitize: undefined, record, say: () => undefined, threadsLine: () => '', openDebugger: () => Promise.reject(new Error('no debugger in the bench')),
  }, app, []);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const ended = await runProgram([app], LIB, device, launches, { sanitize: false, captureOutput: true, detached: true });
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if ('notStarted' in ended) throw new Error(ended.notStarted);
  return { wall, cpu: (c.user + c.system) / 1000, code: ended.code, rec: launches.recording };
}

/** A small seeded generator (xorshift32): the same positions on every run. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x / 2 ** 32;
  };
}

const pct = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (x: number): string => `${x.toFixed(1)} ms`;

/** `goto` random positions across the recorded launches: the times, sorted. */
function gotos(engine: Engine, n: number): number[] {
  global.gc?.(); // the recording run's garbage is not the gotos' to collect
  const recorded = engine.launches().filter((l) => l.steps !== undefined);
  const next = rng(25);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const l = recorded[Math.floor(next() * recorded.length)]!;
    const step = Math.floor(next() * (l.steps! + 1));
    const t0 = performance.now();
    const stop = engine.goto(positionOf(l.index, step));
    times.push(performance.now() - t0);
    if (stop.position.launch !== l.index || stop.position.step !== step) throw new Error(`goto launch ${l.index} step ${step} landed at ${stop.position.launch}:${stop.position.step}`);
  }
  return times.sort((a, b) => a - b);
}

/** The fastest of runs (by wall time). */
const fastest = (runs: readonly Run[]): Run => [...runs].sort((a, b) => a.wall - b.wall)[0]!;

async function report(plain: Run, label: string, r: Run): Promise<void> {
  const rec = r.rec!;
  const recorded = rec.launches.filter((l) => l.start !== undefined).length;
  process.stdout.write(`  ${label}: ${ms(r.wall)} (${(r.wall / plain.wall).toFixed(2)}× plain exec; target ≤ 1.5×), CPU ${ms(r.cpu)} (${(r.cpu / plain.cpu).toFixed(2)}×), exit ${r.code}\n`);
  process.stdout.write(`    ${rec.launches.length} launches, ${recorded} recorded; recording holds ${(rec.bytes / 2 ** 20).toFixed(2)} MiB of a ${(BUDGET / 2 ** 20).toFixed(0)} MiB budget${rec.stopped ? ` (stopped: ${rec.stopped})` : ''}\n`);
  const gcs: number[] = [];
  const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) gcs.push(e.duration); });
  obs.observe({ entryTypes: ['gc'] });
  const engine = openProgramEngine(programSource(rec), {});
  const t = gotos(engine, GOTOS);
  await new Promise((done) => setTimeout(done, 20)); // the observer hears of collections after the fact
  obs.disconnect();
  const gc = gcs.reduce((a, b) => a + b, 0);
  process.stdout.write(`    goto ${GOTOS} random positions across ${recorded} launches: p50 ${ms(pct(t, 50))}, p90 ${ms(pct(t, 90))}, p99 ${ms(pct(t, 99))} (target ≤ 50 ms), max ${ms(t[t.length - 1]!)}; ${gcs.length} collections seen, ${ms(gc)}; process RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB after\n`);
}

async function main(): Promise<void> {
  const why = missingTool('nvcc') ?? (existsSync(join(LIB, 'libcudart.so.13')) ? null : `the ptxdbg runtime is not built (${LIB})`);
  if (why) { process.stdout.write(`whole-program recording bench skipped: ${why}\n`); return; }
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-program-bench-'));
  try {
    const app = join(dir, 'many');
    const c = spawnSync('nvcc', ['-cudart', 'shared', '-arch=sm_80', '-o', app, join(ROOT, 'samples', 'apps', 'timeline', 'many.cu')], { encoding: 'utf8' });
    if (c.status !== 0) throw new Error(`nvcc failed:\n${c.stderr}`);
    process.stdout.write(`whole-program recording (samples/apps/timeline/many.cu, 1,000 launches; load ${loadavg().map((x) => x.toFixed(2)).join(' ')}):\n`);
    // a cold start warms the code up for all three
    await runOnce(app, undefined);
    const runs: Run[][] = [[], [], []];
    const kinds: (RecordOptions | undefined)[] = [undefined, { budget: BUDGET }, { budget: BUDGET, kernels: ['add_round'] }];
    for (let r = 0; r < ROUNDS; r++) for (let k = 0; k < kinds.length; k++) runs[k]!.push(await runOnce(app, kinds[k]));
    const [plain, whole, one] = runs.map(fastest) as [Run, Run, Run];
    // only the recordings travelled in stay: the others' heap would be marked by every collection in the gotos
    for (const rs of runs) for (const r of rs) if (r !== whole && r !== one) r.rec = undefined;
    process.stdout.write(`  plain exec: ${ms(plain.wall)}, CPU ${ms(plain.cpu)}, exit ${plain.code} (fastest of ${ROUNDS}, the three kinds alternated)\n`);
    await report(plain, 'recorded whole', whole);
    whole.rec = undefined;
    await report(plain, 'only add_round recorded (--record add_round)', one);
    process.stdout.write(`  (load after: ${loadavg().map((x) => x.toFixed(2)).join(' ')})\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
