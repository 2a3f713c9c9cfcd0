/**
 * `npm run bench`, the side-by-side part (issue #14): each kernel of ../shared/perf (-O3 build)
 * with recording off and on, against the best other emulator's figure in that folder's README
 * (the target is 1.5x it), the recording overhead, trace bytes per warp-step and peak memory while
 * recording (one recording per process, against the trace's bytes); the whole-process time of a
 * small `ptxdbg run`; and a launch of about 10^9 thread-instructions recorded end to end, with a
 * 64 MiB memory budget and with none. Each measurement that needs its own peak memory runs
 * in a child process (`--one NAME`). Printed, never asserted.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readLaunchFile, type Launch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import type { Program } from '../../src/ptx/resolve.js';
import { DEFAULT_INTERVAL, Trace } from '../../src/trace/trace.js';
import { Session } from '../../src/engine/session.js';
import { bestOffOn } from './measure.js';
import { defaultThreads, runOnThreads } from '../../src/exec/parallel/pool.js';

const ROOT = process.cwd();
const PERF = join(ROOT, '..', 'shared', 'perf');
const SELF = fileURLToPath(import.meta.url);
const CLI = join(ROOT, 'dist', 'bin', 'ptxdbg.js'); // the installed command (package.json's bin)

/** Best other emulator's M thread-instr/s per kernel, from the README's table (ptxdbg's own column left out). */
function references(): Map<string, number> {
  const out = new Map<string, number>();
  const readme = readFileSync(join(PERF, 'README.md'), 'utf8');
  for (const line of readme.split('\n')) {
    const cells = line.split('|').map((c) => c.trim()).filter(Boolean);
    if (cells.length < 3 || !existsSync(join(PERF, cells[0]!))) continue;
    const others = cells.slice(2).map(Number).filter((x) => Number.isFinite(x) && x > 0);
    if (others.length) out.set(cells[0]!, Math.max(...others));
  }
  return out;
}

function load(name: string): { program: Program; launch: Launch } {
  const dir = join(PERF, name);
  const program = loadPtx(readFileSync(join(dir, 'kernel.O3.ptx'), 'utf8'), `${name}.ptx`).program;
  if (!program) throw new Error(`${name}: kernel.O3.ptx does not load`);
  return { program, launch: readLaunchFile(join(dir, 'launch.json'), program) };
}

/** Child: one kernel's figures as a JSON line (its own process, so maxRSS is this kernel's). */
function one(name: string): void {
  const { program, launch } = load(name);
  const { plain, rec, thr, steps, bytes } = bestOffOn(program, launch, 5);
  console.log(JSON.stringify({ name, plain, rec, thr, steps, bytes }));
}

/** The loop kernel with its trip count k scaled so that the launch is about 10^9 thread-instructions. */
function scaledLoop(): { program: Program; launch: Launch } {
  const { program, launch } = load('loop');
  // 31.0 M thread-instructions at k = 256 (README), nearly all of them in the loop
  const k = Math.round((256 * 1e9) / 31.0e6);
  return { program, launch: { ...launch, args: launch.args.map((a) => (a.kind === 'scalar' && a.name === 'k' ? { ...a, value: k } : a)) } };
}

/**
 * Child: one kernel's peak memory (its own process, so maxRSS is this run's) for one run, recorded
 * (`--mem NAME`) or plain (`--plain NAME`), after loading only. NAME `scale` is scaledLoop's launch.
 */
function mem(name: string, record: boolean): void {
  const { program, launch } = name === 'scale' ? scaledLoop() : load(name);
  const rssBefore = process.resourceUsage().maxRSS * 1024;
  const m = new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, maxSteps: 2e9 });
  let bytes = 0;
  if (record) {
    const b = Trace.record(m).bytes();
    bytes = b.log + b.checkpoints;
  } else m.run();
  console.log(JSON.stringify({ name, bytes, rssBefore, rssPeak: process.resourceUsage().maxRSS * 1024 }));
}

/**
 * Child: the loop kernel's trip count k scaled so the launch is about 10^9 thread-instructions,
 * recorded (with a 64 MiB memory budget, or none: `--scale inf`), then a debugger session on it.
 */
function scale(budget: number): void {
  const { program, launch: big } = scaledLoop();
  // what the process held before recording (node itself, the loaded program): the recording's share is the rest
  const rssBefore = process.resourceUsage().maxRSS * 1024;
  const t0 = performance.now();
  const m = new Machine(program, big, { ...DEFAULT_RUN_OPTIONS, maxSteps: 2e9 });
  // a 64 MiB budget for the trace in memory (log and checkpoints): step-log chunks past it spill
  // to a file, as a trace larger than memory would
  const t = Trace.record(m, { interval: DEFAULT_INTERVAL, logBudget: budget });
  const recorded = performance.now() - t0;
  const rssRecorded = process.resourceUsage().maxRSS * 1024;
  const thr = m.threadInstructions;
  const b = t.bytes();
  const spilled = t.log.spilledBytes();
  // the debugger on it: a session at the end of the recording, one step back
  const text = readFileSync(join(PERF, 'loop', 'kernel.O3.ptx'), 'utf8');
  const session = new Session('loop.ptx', text, program, big, m.opts, t);
  session.goto(t.total - 1);
  const ms = performance.now() - t0;
  // seeks to random positions (each reads spilled log chunks back as it needs them)
  let x = 12345;
  const seeks: number[] = [];
  for (let i = 0; i < 60; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    const s0 = performance.now();
    session.goto(x % t.total);
    seeks.push(performance.now() - s0);
  }
  seeks.sort((a, b) => a - b);
  console.log(JSON.stringify({
    thr, steps: t.total, recorded, ms, bytes: b.log + b.checkpoints, log: b.log, checkpoints: b.checkpoints, spilledBytes: spilled,
    rssBefore, rssRecorded, rssPeak: process.resourceUsage().maxRSS * 1024, ok: !t.fault,
    spilled: t.log.spilled, resident: t.log.residentBytes(), p50: seeks[30], p99: seeks[59],
  }));
}

function child(args: string[], timeoutMs: number): Record<string, number | string | boolean> | string {
  const r = spawnSync(process.execPath, [SELF, ...args], { encoding: 'utf8', timeout: timeoutMs });
  if (r.status !== 0) return r.error ? `${r.error.message}` : `exit ${r.status ?? r.signal}: ${(r.stderr ?? '').trim().split('\n').pop()}`;
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>;
}

function mib(bytes: number, digits = 0): string {
  return (bytes / 2 ** 20).toFixed(digits);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function main(): void {
  if (!existsSync(PERF)) {
    console.log(`\nside-by-side kernels: skipped, ${PERF} is not next to this checkout`);
    return;
  }
  const refs = references();
  console.log('\nside-by-side kernels (../shared/perf, -O3; best of 5, plain and recorded runs alternating; M thread-instr/s; target: recording on >= 1.5x the best other emulator)\n');
  console.log(`${'kernel'.padEnd(8)} ${'off'.padStart(7)} ${'on'.padStart(7)} ${'best other'.padStart(10)} ${'on/other'.padStart(8)} ${'overhead'.padStart(8)} ${'B/step'.padStart(7)} ${'trace MB'.padStart(8)}`);
  const kernels = readdirSync(PERF).filter((n) => existsSync(join(PERF, n, 'launch.json'))).sort();
  for (const name of kernels) {
    const r = child(['--one', name], 300_000);
    if (typeof r === 'string') { console.log(`${name.padEnd(8)} failed: ${r}`); continue; }
    const thr = r['thr'] as number, plain = r['plain'] as number, rec = r['rec'] as number, steps = r['steps'] as number, bytes = r['bytes'] as number;
    const off = thr / plain / 1e3, on = thr / rec / 1e3;
    const ref = refs.get(name);
    console.log(`${name.padEnd(8)} ${off.toFixed(1).padStart(7)} ${on.toFixed(1).padStart(7)} ${(ref?.toFixed(1) ?? '-').padStart(10)} ${(ref ? `${(on / ref).toFixed(2)}x` : '-').padStart(8)} ${`${(rec / plain).toFixed(2)}x`.padStart(8)} ${(bytes / steps).toFixed(2).padStart(7)} ${(bytes / 1e6).toFixed(1).padStart(8)}`);
  }
  console.log('\nmemory while recording (MiB; peak RSS of a process that loads the kernel and records it once, against that of one that runs it once unrecorded; target: the recording\'s share <= 1.5x the trace\'s bytes)\n');
  console.log(`${'kernel'.padEnd(8)} ${'trace'.padStart(6)} ${'loaded'.padStart(7)} ${'plain'.padStart(6)} ${'recorded'.padStart(8)} ${'recorded/trace'.padStart(14)} ${'(recorded-loaded)/trace'.padStart(23)} ${'(recorded-plain)/trace'.padStart(22)}`);
  for (const name of kernels) {
    const r = child(['--mem', name], 300_000), p = child(['--plain', name], 300_000);
    if (typeof r === 'string' || typeof p === 'string') { console.log(`${name.padEnd(8)} failed: ${typeof r === 'string' ? r : p}`); continue; }
    const bytes = r['bytes'] as number, before = r['rssBefore'] as number, peak = r['rssPeak'] as number, plain = p['rssPeak'] as number;
    console.log(`${name.padEnd(8)} ${mib(bytes, 1).padStart(6)} ${mib(before).padStart(7)} ${mib(plain).padStart(6)} ${mib(peak).padStart(8)} ${`${(peak / bytes).toFixed(2)}x`.padStart(14)} ${`${((peak - before) / bytes).toFixed(2)}x`.padStart(23)} ${`${((peak - plain) / bytes).toFixed(2)}x`.padStart(22)}`);
  }
  // whole process: start, parse, launch, exit
  const small = join(ROOT, 'samples', 'saxpy', 'kernel.O3.ptx');
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, [CLI, 'run', small], { stdio: 'ignore' });
    times.push(performance.now() - t0);
  }
  const bare: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    bare.push(performance.now() - t0);
  }
  console.log(`\nwhole process, ptxdbg run samples/saxpy/kernel.O3.ptx: median ${median(times).toFixed(0)} ms (target <= 150 ms; node -e 0 alone: ${median(bare).toFixed(0)} ms)`);
  const plainScale = child(['--plain', 'scale'], 600_000);
  for (const budget of ['64', 'inf']) {
    const s = child(['--scale', budget], 600_000);
    const label = budget === 'inf' ? 'no memory budget (everything in memory)' : 'a 64 MiB memory budget (log and checkpoints; log chunks spill past it)';
    if (typeof s === 'string') { console.log(`scale, ${label}: 10^9 thread-instructions recorded: failed (${s})`); continue; }
    const bytes = s['bytes'] as number, spilled = s['spilledBytes'] as number, before = s['rssBefore'] as number, rec = s['rssRecorded'] as number, peak = s['rssPeak'] as number;
    console.log(`scale, ${label}: ${((s['thr'] as number) / 1e9).toFixed(2)}e9 thread-instructions (${s['steps']} warp-steps) recorded in ${((s['recorded'] as number) / 1000).toFixed(1)} s, debugger open at the last step after ${((s['ms'] as number) / 1000).toFixed(1)} s (target <= 10 s)${s['ok'] ? '' : ', the run faulted'}`);
    console.log(`  trace ${mib(bytes)} MiB (log ${mib(s['log'] as number)}, checkpoints ${mib(s['checkpoints'] as number)}): ${mib(bytes - spilled)} MiB in memory, ${mib(spilled)} MiB spilled (${s['spilled']} log chunks); goto p50 ${(s['p50'] as number).toFixed(1)} ms, p99 ${(s['p99'] as number).toFixed(1)} ms (target p99 <= 50 ms)`);
    const ratios = (rss: number): string => `${mib(rss)} MiB: / trace ${(rss / bytes).toFixed(2)}x (whole process), (- before) / trace ${((rss - before) / bytes).toFixed(2)}x`;
    console.log(`  RSS (target <= 2048 MiB; the recording's share <= 1.5x the trace): ${mib(before)} MiB before recording; peak at the end of it ${ratios(rec)}; after the seeks ${ratios(peak)}`);
    if (typeof plainScale !== 'string') console.log(`  the same launch unrecorded peaks at ${mib(plainScale['rssPeak'] as number)} MiB: (end of recording - unrecorded) / trace ${((rec - (plainScale['rssPeak'] as number)) / bytes).toFixed(2)}x`);
  }
  const w = child(['--workers'], 600_000);
  if (typeof w === 'string') console.log(`workers: failed (${w})`);
  else {
    const rows = w['rows'] as unknown as { name: string; seq: number; cold: number; warm: number; split: string }[];
    console.log(`\nworkers (run without recording, ${w['threads']} threads = one per core; wall ms, best of 3; speed-up = one thread / threads):`);
    for (const r of rows) {
      console.log(`${r.name.padEnd(8)} one thread ${r.seq.toFixed(0).padStart(6)} ms, ${w['threads']} threads ${r.warm.toFixed(0).padStart(6)} ms: ${(r.seq / r.warm).toFixed(2)}x (first launch, the process and its workers cold: ${r.cold.toFixed(0)} ms, ${(r.seq / r.cold).toFixed(2)}x; CTAs per thread ${r.split})`);
    }
  }
}

/** Child: each kernel on one thread and on one thread per core (src/exec/parallel/), wall time. */
function workers(): void {
  const threads = defaultThreads();
  const rows: { name: string; seq: number; cold: number; warm: number; split: string }[] = [];
  for (const name of readdirSync(PERF).filter((n) => existsSync(join(PERF, n, 'launch.json'))).sort()) {
    const text = readFileSync(join(PERF, name, 'kernel.O3.ptx'), 'utf8');
    const { program, launch } = load(name);
    const source = { text, label: `${name}.ptx` };
    const timed = (n: number): { ms: number; split: string } => {
      const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
      const t0 = performance.now();
      const r = n > 1 ? runOnThreads(m, source, n) : undefined;
      if (r === undefined || r.kind !== 'parallel') m.run();
      if (m.fault) throw new Error(`${name}: ${m.fault.message}`);
      return { ms: performance.now() - t0, split: r?.kind === 'parallel' ? r.ctasPerThread.join('/') : r ? r.why : '' };
    };
    const cold = timed(threads);
    let seq = Infinity, warm = Infinity, split = cold.split;
    for (let i = 0; i < 3; i++) {
      seq = Math.min(seq, timed(1).ms);
      const t = timed(threads);
      if (t.ms < warm) { warm = t.ms; split = t.split; }
    }
    rows.push({ name, seq, cold: cold.ms, warm, split });
  }
  console.log(JSON.stringify({ threads, rows }));
}

const arg = process.argv.indexOf('--one');
const memArg = process.argv.indexOf('--mem');
const scaleArg = process.argv.indexOf('--scale');
if (arg >= 0) one(process.argv[arg + 1]!);
else if (memArg >= 0) mem(process.argv[memArg + 1]!, true);
else if (process.argv.includes('--plain')) mem(process.argv[process.argv.indexOf('--plain') + 1]!, false);
else if (scaleArg >= 0) scale(process.argv[scaleArg + 1] === 'inf' ? Infinity : 64 * 2 ** 20);
else if (process.argv.includes('--workers')) workers();
else main();
