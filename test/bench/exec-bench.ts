/**
 * `npm run bench` part for whole programs: builds test/bench/exec-bench.cu with nvcc and runs it
 * under `ptxdbg exec`; prints its figures (per-launch overhead, memcpy throughput); then the
 * 256x256 matrix multiply program (matmul.cu), a program of short launches (pipeline.cu) and the
 * time of each of ten launches of one kernel (relaunch.cu).
 * Without nvcc it says so and measures nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingTool, ROOT } from '../helpers.js';

/** CPU seconds of this process's waited-for children so far (Linux /proc; undefined elsewhere). */
function childCpu(): number | undefined {
  try {
    const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[13]) + Number(f[14])) / 100; // cutime, cstime (fields 16, 17) in clock ticks
  } catch {
    return undefined;
  }
}

/**
 * A program under `ptxdbg exec`, whole process: on one thread (--workers 1) and by default
 * (`auto`: worker threads for a launch long enough to gain), three rounds interleaved, medians of
 * wall and CPU time, with the load average (issue #29). The 256x256 tiled matrix multiply
 * (matmul.cu: one launch of 2 M warp-steps, shared) and samples/apps/pipeline.cu (five launches
 * of at most 733 warp-steps: each stays on the main thread, as a worker would cost more).
 */
function wholeProcess(dir: string, name: string, source: string, title: string): void {
  const app = join(dir, name);
  const c = spawnSync('nvcc', ['-cudart', 'shared', '-arch=sm_80', '-O2', '-o', app, source], { encoding: 'utf8' });
  if (c.status !== 0) throw new Error(`nvcc failed:\n${c.stderr}`);
  const runs: Record<string, { wall: number[]; cpu: number[]; line: string }> = {};
  for (let round = 0; round < 3; round++) {
    for (const workers of [['--workers', '1'], []]) {
      const tag = workers.length ? 'one thread' : 'default';
      const cpu0 = childCpu();
      const t0 = performance.now();
      const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'bin', 'ptxdbg.js'), 'exec', ...workers, '--', app], { encoding: 'utf8', cwd: dir });
      const wall = (performance.now() - t0) / 1000;
      const cpu1 = childCpu();
      const e = runs[tag] ??= { wall: [], cpu: [], line: '' };
      e.wall.push(wall);
      if (cpu0 !== undefined && cpu1 !== undefined) e.cpu.push(cpu1 - cpu0);
      e.line = `${r.stdout}`.trim().split('\n').pop() ?? '';
    }
  }
  const med = (xs: number[]): string => (xs.length ? [...xs].sort((a, b) => a - b)[xs.length >> 1]!.toFixed(2) : '?');
  process.stdout.write(`${title} under ptxdbg exec (whole process, median of 3; load ${loadavg().map((x) => x.toFixed(2)).join(' ')}):\n`);
  for (const [tag, e] of Object.entries(runs)) process.stdout.write(`  ${tag}: ${med(e.wall)} s wall, ${med(e.cpu)} s CPU; it printed: ${e.line}\n`);
}

/**
 * ptxdbg's own start under `exec`: a program that makes no CUDA call (/bin/true), whole process,
 * against node starting with nothing to do, five rounds alternated, medians (issue #29: what
 * exec loads before a first launch).
 */
function startup(): void {
  const runs: Record<string, { wall: number[]; cpu: number[] }> = { 'ptxdbg exec -- /bin/true': { wall: [], cpu: [] }, 'node -e 0': { wall: [], cpu: [] } };
  for (let round = 0; round < 5; round++) {
    for (const [tag, args] of [['ptxdbg exec -- /bin/true', [join(ROOT, 'dist', 'bin', 'ptxdbg.js'), 'exec', '--', '/bin/true']], ['node -e 0', ['-e', '0']]] as const) {
      const cpu0 = childCpu();
      const t0 = performance.now();
      spawnSync(process.execPath, [...args], { encoding: 'utf8' });
      runs[tag]!.wall.push((performance.now() - t0) / 1000);
      const cpu1 = childCpu();
      if (cpu0 !== undefined && cpu1 !== undefined) runs[tag]!.cpu.push(cpu1 - cpu0);
    }
  }
  const med = (xs: number[]): string => (xs.length ? [...xs].sort((a, b) => a - b)[xs.length >> 1]!.toFixed(2) : '?');
  process.stdout.write(`start (whole process, median of 5; load ${loadavg().map((x) => x.toFixed(2)).join(' ')}): ${Object.entries(runs).map(([t, e]) => `${t} ${med(e.wall)} s wall, ${med(e.cpu)} s CPU`).join('; ')}\n`);
}

/**
 * Each launch's time (`--stats`, the run of the launch in ptxdbg) of ten launches of one kernel
 * (relaunch.cu) on one thread, medians of 3 runs: the first compiles and warms the code, and a
 * later one should cost the same as the rest (it used to warm every block again: issue #29).
 */
function perLaunch(dir: string): void {
  const app = join(dir, 'relaunch');
  const c = spawnSync('nvcc', ['-cudart', 'shared', '-arch=sm_80', '-O2', '-o', app, join(ROOT, 'test', 'bench', 'relaunch.cu')], { encoding: 'utf8' });
  if (c.status !== 0) throw new Error(`nvcc failed:\n${c.stderr}`);
  const times: number[][] = [];
  for (let round = 0; round < 3; round++) {
    const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'bin', 'ptxdbg.js'), 'exec', '--workers', '1', '--stats', '--', app], { encoding: 'utf8', cwd: dir });
    const ms = [...`${r.stdout}${r.stderr}`.matchAll(/^ptxdbg: launch (\d+) .*?, ([\d.]+) ms/gm)].map((m) => Number(m[2]));
    ms.forEach((t, i) => (times[i] ??= []).push(t));
  }
  const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  process.stdout.write(`relaunch.cu, ten launches of one kernel, ms per launch (--workers 1, median of 3; load ${loadavg().map((x) => x.toFixed(2)).join(' ')}): ${times.map((t) => med(t).toFixed(1)).join(' ')}\n`);
}

const why = missingTool('nvcc');
if (why) {
  process.stdout.write(`exec bench skipped: ${why}\n`);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-exec-bench-'));
  try {
    const app = join(dir, 'exec-bench');
    const c = spawnSync('nvcc', ['-cudart', 'shared', '-arch=sm_80', '-O2', '-o', app, join(ROOT, 'test', 'bench', 'exec-bench.cu')], { encoding: 'utf8' });
    if (c.status !== 0) throw new Error(`nvcc failed:\n${c.stderr}`);
    const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'bin', 'ptxdbg.js'), 'exec', '--', app], { encoding: 'utf8' });
    process.stdout.write(`whole programs (ptxdbg exec):\n${r.stdout}${r.stderr}`);
    startup();
    wholeProcess(dir, 'matmul', join(ROOT, 'test', 'bench', 'matmul.cu'), 'matmul 256x256');
    wholeProcess(dir, 'pipeline', join(ROOT, 'samples', 'apps', 'pipeline.cu'), 'pipeline (5 short launches)');
    perLaunch(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
