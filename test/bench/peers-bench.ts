/**
 * `npm run bench`, the other PTX emulators in the same run (issue #29): each kernel of
 * ../shared/perf (-O3) under ptxdbg (one launch per process, recording off and on, through that
 * folder's peers/rec-harness.mjs) and under ptoxide and Ocelot as ../shared/perf/peers/build.sh
 * builds them (in $PEERS_WORK, default /tmp/peers-work), interleaved round by round, every program
 * pinned to one core. Medians of CPU time (launch only), M thread-instructions/s, and the ratios
 * the issue asks for: recorded ptxdbg / the best other, recorded / unrecorded. The machine's load
 * is printed with them: figures of a loaded machine compare only within this run.
 * `node dist/test/bench/peers-bench.js [ROUNDS]` (default 5; the issue's figure takes 11, as
 * ../shared/perf/peers/measure.py does). Printed, never asserted.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = process.cwd();
const PERF = join(ROOT, '..', 'shared', 'perf');
const WORK = process.env['PEERS_WORK'] ?? '/tmp/peers-work';
const KERNELS = ['saxpy', 'loop', 'reduce'];
const PEERS = [
  { name: 'ptoxide', exe: join(WORK, 'peers', 'ptoxide-driver', 'target', 'release', 'ptoxide-driver'), sm35: false },
  { name: 'Ocelot', exe: join(WORK, 'peers', 'ocelot-build', 'ocelot-driver'), sm35: true },
];

/** Every program on one core (the last), as measure.py pins them, when taskset is there. */
function pinned(cmd: string[]): string[] {
  const t = spawnSync('taskset', ['-V'], { encoding: 'utf8' });
  return t.status === 0 ? ['taskset', '-c', String(availableParallelism() - 1), ...cmd] : cmd;
}

/** The drivers' launch arguments (../shared/perf/peers/launch2args.mjs): kernel name, grid, block, then buf:TYPE:COUNT or TYPE:VALUE per argument. */
function driverArgs(kernel: string): string[] {
  const l = JSON.parse(readFileSync(join(PERF, kernel, 'launch.json'), 'utf8')) as { kernel: string; grid: number[]; block: number[]; args: { type: string; count?: number; value?: number }[] };
  const d3 = (v: number[]): string[] => [...v, 1, 1].slice(0, 3).map(String);
  return [l.kernel, ...d3(l.grid), ...d3(l.block), ...l.args.map((a) => (a.count !== undefined ? `buf:${a.type}:${a.count}` : `${a.type}:${a.value}`))];
}

/** CPU seconds and thread-instructions of one run, or why there are none. */
function runOnce(cmd: string[], env?: NodeJS.ProcessEnv): { cpu: number; thr?: number } | string {
  const [exe, ...args] = pinned(cmd);
  const r = spawnSync(exe!, args, { encoding: 'utf8', env: env ?? process.env, timeout: 300_000 });
  const out = r.stdout ?? '';
  const m = /launch_s ([\d.]+) cpu_s ([\d.]+)/.exec(out);
  if (m) return { cpu: Number(m[2]) };
  try {
    const j = JSON.parse(out.trim().split('\n').pop()!) as { cpuMs: number; thr: number };
    return { cpu: j.cpuMs / 1000, thr: j.thr };
  } catch {
    return `exit ${r.status}: ${(r.stderr || out).trim().split('\n').pop()}`;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function main(): void {
  const rounds = Number(process.argv[2] ?? 5);
  const harness = join(PERF, 'peers', 'rec-harness.mjs');
  if (!existsSync(harness)) { console.log(`\nother emulators: skipped, ${harness} is not next to this checkout`); return; }
  const peers = PEERS.filter((p) => existsSync(p.exe));
  for (const p of PEERS.filter((q) => !peers.includes(q))) console.log(`\nother emulators: ${p.name} is not built (${p.exe}); ../shared/perf/peers/build.sh builds it`);
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-peers-'));
  const load0 = loadavg()[0]!;
  const cpu = new Map<string, number[]>();
  const thr = new Map<string, number>();
  const note = (key: string, s: number): void => { cpu.set(key, [...(cpu.get(key) ?? []), s]); };
  try {
    for (let r = 0; r < rounds; r++) {
      for (const k of KERNELS) {
        const ptx = join(PERF, k, 'kernel.O3.ptx');
        for (const mode of ['off', 'rec']) {
          const x = runOnce(['node', harness, mode, ptx, join(PERF, k, 'launch.json')], { ...process.env, PTXDBG_ROOT: ROOT });
          if (typeof x === 'string') { console.log(`${k} ptxdbg ${mode}: ${x}`); continue; }
          note(`${k}|ptxdbg ${mode}`, x.cpu);
          if (x.thr !== undefined) thr.set(k, x.thr);
        }
        for (const p of peers) {
          if (p.name === 'ptoxide' && k === 'reduce') continue; // its parser stops at shr.u32 (UnexpectedToken Shr), as measure.py notes
          let file = ptx;
          if (p.sm35) {
            // Ocelot's parser knows targets up to sm_35: the same PTX, retargeted (as measure.py does)
            file = join(dir, `${k}.ptx`);
            writeFileSync(file, readFileSync(ptx, 'utf8').replace('.target sm_80', '.target sm_35'));
          }
          const x = runOnce([p.exe, file, ...driverArgs(k)]);
          if (typeof x !== 'string') note(`${k}|${p.name}`, x.cpu);
          else if (r === 0) console.log(`${k} ${p.name}: ${x}`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nside by side, one launch per process pinned to one core, ${rounds} interleaved rounds, medians of CPU time, M thread-instr/s (load ${load0.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores):`);
  console.log(`${'kernel'.padEnd(8)} ${'off'.padStart(7)} ${'on'.padStart(7)} ${peers.map((p) => p.name.padStart(8)).join(' ')}  on/best other  overhead`);
  for (const k of KERNELS) {
    const n = thr.get(k);
    if (n === undefined) continue;
    const rate = (key: string): number | undefined => (cpu.has(key) ? n / median(cpu.get(key)!) / 1e6 : undefined);
    const off = rate(`${k}|ptxdbg off`), on = rate(`${k}|ptxdbg rec`);
    const others = peers.map((p) => rate(`${k}|${p.name}`));
    const best = Math.max(...others.filter((x): x is number => x !== undefined));
    const f = (x: number | undefined, w: number): string => (x === undefined ? '-' : x.toFixed(1)).padStart(w);
    const ratio = on !== undefined && Number.isFinite(best) ? `${(on / best).toFixed(2)}x` : '-';
    console.log(`${k.padEnd(8)} ${f(off, 7)} ${f(on, 7)} ${others.map((x) => f(x, 8)).join(' ')}  ${ratio.padStart(13)}  ${off && on ? `${(off / on).toFixed(2)}x` : '-'}`);
  }
  console.log('(target: on/best other >= 1.5x on every kernel, overhead <= 1.15x; ptoxide cannot load reduce)');
}

main();
