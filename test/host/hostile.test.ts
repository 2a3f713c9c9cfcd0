/**
 * Programs that abuse the CUDA runtime (test/host/hostile.cu) under `ptxdbg exec`: the debugger
 * neither hangs nor exits 70 nor loses its connection to the program's later calls, and the
 * program gets what the CUDA Runtime API documents (cudaErrorInvalidValue for a copy that cannot
 * be done, cudaErrorInvalidDeviceFunction for a launch of something that is not a kernel,
 * cudaErrorInvalidConfiguration for a block or grid past the device's limits: block 1..1024
 * threads, grid y at most 65535; cudaErrorInvalidResourceHandle for a stream that is not one).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingTool, ROOT, testIf } from '../helpers.js';
import { nvccBuild } from './nvcc.js';

const CLI = join(ROOT, 'dist', 'bin', 'ptxdbg.js');
const RUNTIME = join(ROOT, 'dist', 'cudart', 'libcudart.so.13');
const why = missingTool('nvcc') ?? missingTool('cc') ?? (existsSync(RUNTIME) ? null : `the ptxdbg runtime is not built (${RUNTIME})`);
const run = testIf(why);

let bin = '';
beforeAll(async () => {
  if (why) return;
  bin = mkdtempSync(join(tmpdir(), 'ptxdbg-hostile-'));
  const err = await nvccBuild(join(ROOT, 'test', 'host', 'hostile.cu'), join(bin, 'hostile'));
  if (err !== undefined) throw new Error(`nvcc failed: ${err}`);
}, 300_000);
afterAll(() => { if (bin) rmSync(bin, { recursive: true, force: true }); });

function exec(mode: string): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, 'exec', '--', './hostile', mode], { cwd: bin, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

run('a signal handler that calls CUDA while the thread is inside cudaMemcpy waits its turn: every call succeeds', () => {
  const r = exec('signal');
  expect(r.out).toBe('malloc: cudaSuccess\ncopies: cudaSuccess\nhandled some\n');
  expect(r.code).toBe(0);
  expect(r.err).toBe('');
}, 150_000);

run('host pointers that are not the program\'s memory and sizes past the allocation are cudaErrorInvalidValue; the next call works', () => {
  const r = exec('wild');
  expect(r.out).toBe(['malloc', 'from 0x10', 'to 0x10', '1 TiB in', 'SIZE_MAX in', 'after']
    .map((w, i) => `${w}: ${i === 0 || i === 5 ? 'cudaSuccess' : 'cudaErrorInvalidValue'}\n`).join(''));
  expect(r.code).toBe(0);
  // one located line for each refused copy, none about a lost connection
  expect(r.err.match(/^ptxdbg: a copy's host (source|destination) \(\d+ bytes at 0x[0-9a-f]+\) is not memory of the program's/gm)).toHaveLength(4);
  expect(r.err).not.toContain('lost');
}, 150_000);

run('garbage written to the runtime\'s socket: the request fails, ptxdbg says why in one line and ends normally', () => {
  const r = exec('garbage');
  expect(r.out).toBe('malloc: cudaSuccess\nmemset: failed\n');
  expect(r.code).toBe(0);
  // 0xff bytes: the frame's u64 length is 2^64 - 1, named exactly
  expect(r.err).toMatch(/^ptxdbg: a request of 18446744073709551615 bytes .*not speaking the ptxdbg runtime protocol; closing the connection$/m);
  expect(r.err).not.toContain('internal error');
}, 150_000);

run('runaway recursion is a launch failure (719) whose report names the repeated frame once, with its count', () => {
  const r = exec('deep');
  expect(r.out).toBe('malloc: cudaSuccess\ndeep: cudaErrorLaunchFailure\n');
  // named as gdb's frames name `_Z3reci` (c++filt: `rec(int)`): its print name, never the mangled one
  expect(r.err).toMatch(/^ {2}called from .* in rec \(\d+ times over\)$/m);
  expect(r.err).toMatch(/^ {2}at instruction \d+ in rec, PTX instruction \d+: /m); // the PTX text itself keeps its symbols
  expect(r.err.split('\n').length).toBeLessThan(20);
}, 150_000);

run('launching what is not a kernel, or with a block or grid past the limits, is refused with the documented errors', () => {
  const r = exec('launches');
  expect(r.out).toBe([
    'malloc: cudaSuccess', 'main as a kernel: cudaErrorInvalidDeviceFunction', 'null kernel: cudaErrorInvalidDeviceFunction',
    'block 0: cudaErrorInvalidConfiguration', 'grid y 65536: cudaErrorInvalidConfiguration', 'block 1025: cudaErrorInvalidConfiguration',
    'a good launch: cudaSuccess', ''].join('\n'));
  expect(r.code).toBe(0);
}, 150_000);

run('a stream handle the program never created, or destroyed, is cudaErrorInvalidResourceHandle, not a crash', () => {
  const r = exec('streams');
  const bad = 'cudaErrorInvalidResourceHandle';
  expect(r.out).toBe([
    'malloc: cudaSuccess', 'create: cudaSuccess', 'launch on it: cudaSuccess', `launch on 0x1234: ${bad}`, `memset on 0x1234: ${bad}`,
    `synchronize 0x1234: ${bad}`, 'destroy: cudaSuccess', `synchronize the destroyed one: ${bad}`, 'default stream: cudaSuccess', ''].join('\n'));
  expect(r.code).toBe(0);
  expect(r.err).toMatch(/^ptxdbg: stream 0x1234 is not a stream this program created/m);
}, 150_000);

run('a launch printing more than the 1 MiB printf buffer of a GPU: all of it is shown, and one line says a GPU would lose some', () => {
  const r = exec('chatter');
  // "line NNNNN of thread 0\n" is 23 bytes: 50,000 lines are 1,150,000 bytes, past 1 MiB (1,048,576)
  const lines = r.out.split('\n');
  expect(lines.filter((l) => /^line \d{5} of thread 0$/.test(l))).toHaveLength(50_000);
  expect(lines.at(-2)).toBe('chatter: cudaSuccess');
  expect(r.err).toMatch(/^ptxdbg: launch 1 chatter<<<\(1,1,1\),\(1,1,1\)>>>: its printf output is 1150000 bytes, more than a GPU's printf buffer \(cudaLimitPrintfFifoSize, 1 MiB by default\) may hold/m);
}, 150_000);

run('SIGTERM to ptxdbg while the program idles ends the program too (no orphan left holding the terminal)', async () => {
  const p = spawn(process.execPath, [CLI, 'exec', '--', './hostile', 'idle'], { cwd: bin, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const pid = await new Promise<number>((done) => {
    p.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /^pid (\d+)$/m.exec(out);
      if (m) done(Number(m[1]));
    });
  });
  const code = await new Promise<number | null>((done) => { p.on('exit', (c, s) => done(c ?? (s === 'SIGTERM' ? 143 : -1))); p.kill('SIGTERM'); });
  expect(code).toBe(143);
  // the program's process is gone (or a zombie about to be reaped by init) within a few seconds
  let alive = true;
  for (let k = 0; k < 50 && alive; k++) {
    await new Promise((r) => setTimeout(r, 100));
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      alive = !/^\d+ \(.*\) [ZX]/.test(stat);
    } catch {
      alive = false;
    }
  }
  expect(alive).toBe(false);
}, 150_000);
