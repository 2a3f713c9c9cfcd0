/**
 * CTAs shared among threads (src/exec/parallel/). test/fixtures/parallel/parallel.cu holds the
 * kernels (compiled with `nvcc -ptx -arch=sm_80 -O3 -lineinfo` in /src/parallel); every expected
 * value is derived from that source by hand.
 *
 * In-process, two Machines stand for two threads: the second takes the first's layout (as a
 * worker does), both take CTAs from one shared counter and run on one shared global bank, and
 * they run in turns of a few hundred warp-steps, so the split of CTAs between them is fixed
 * and the test is deterministic. The CLI tests then run real worker threads.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { loadPtx } from '../../src/ptx/index.js';
import type { Program } from '../../src/ptx/resolve.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import type { Launch, LaunchArg } from '../../src/exec/launch.js';
import { captureImage, imageLaunch, layoutFromImage } from '../../src/exec/parallel/image.js';
import { sequentialReason } from '../../src/exec/parallel/eligible.js';
import { ROOT, tempDir, testIf } from '../helpers.js';

const PTX = join(ROOT, 'test', 'fixtures', 'parallel', 'parallel.ptx');
const program: Program = loadPtx(readFileSync(PTX, 'utf8'), PTX).program!;

const buffer = (name: string, type: 'u32' | 'u64' | 'f32', count: number, init?: Uint8Array): LaunchArg =>
  ({ kind: 'buffer', name, type, count, init, file: undefined });

/** Run `launch` as two threads taking turns of `turn` warp-steps; the first Machine holds the memory. */
function twoThreads(launch: Launch, turn: number): { a: Machine; b: Machine } {
  const a = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  const image = captureImage(a);
  const b = new Machine(program, imageLaunch(image), image.opts, layoutFromImage(image, program));
  const claims = new Int32Array(new SharedArrayBuffer(8));
  a.ctaClaims = claims;
  b.ctaClaims = claims;
  while (!a.finished || !b.finished) {
    if (!a.finished) a.advance(a.warpSteps + turn);
    if (!b.finished) b.advance(b.warpSteps + turn);
  }
  return { a, b };
}

function words(m: Machine, name: string): Uint32Array {
  const buf = m.buffers.find((x) => x.name === name)!;
  return new Uint32Array(m.arena.bank.u8.slice(buf.alloc.base, buf.alloc.base + buf.alloc.size).buffer);
}

test('two threads share the grid: every CTA runs once, and atomics of both add up', () => {
  const blocks = 64, threads = 128, n = blocks * threads;
  const launch: Launch = {
    kernel: 'count', grid: [blocks, 1, 1], block: [threads, 1, 1], sharedBytes: 0,
    args: [buffer('counter', 'u32', 1), buffer('hist', 'u32', 16), buffer('wide', 'u64', 1), buffer('fsum', 'f32', 1), buffer('out', 'u32', n)],
  };
  const { a, b } = twoThreads(launch, 300);
  expect(a.fault).toBeUndefined();
  expect(b.fault).toBeUndefined();
  // both ran CTAs, none twice: the claims add up to the grid
  expect(a.ctasClaimed).toBeGreaterThan(0);
  expect(b.ctasClaimed).toBeGreaterThan(0);
  expect(a.ctasClaimed + b.ctasClaimed).toBe(blocks);
  expect(words(a, 'counter')[0]).toBe(n);
  expect([...words(a, 'hist')]).toEqual(new Array(16).fill(n / 16));
  const wide = words(a, 'wide');
  expect(BigInt(wide[1]!) * 2n ** 32n + BigInt(wide[0]!)).toBe(BigInt(n) * 2n ** 33n);
  expect(new Float32Array(words(a, 'fsum').buffer)[0]).toBe(n);
  expect([...words(a, 'out')]).toEqual(Array.from({ length: n }, (_, i) => 3 * i));
  // the atomics' locks were all given back
  expect([...a.mem.atomicLocks!].every((x) => x === 0)).toBe(true);
});

test('the threadfence reduction: the last block (by ticket) sees every other block\'s partial sum', () => {
  const blocks = 32, threads = 256, n = blocks * threads;
  const input = new Uint32Array(Array.from({ length: n }, (_, i) => i + 1));
  const launch: Launch = {
    kernel: 'lastBlock', grid: [blocks, 1, 1], block: [threads, 1, 1], sharedBytes: 0,
    args: [buffer('in', 'u32', n, new Uint8Array(input.buffer)), buffer('partial', 'u32', blocks), buffer('total', 'u32', 1)],
  };
  const { a, b } = twoThreads(launch, 200);
  expect(a.ctasClaimed).toBeGreaterThan(0);
  expect(b.ctasClaimed).toBeGreaterThan(0);
  // block k sums 256k+1 .. 256(k+1)
  expect([...words(a, 'partial')]).toEqual(Array.from({ length: blocks }, (_, k) => threads * (threads * k) + (threads * (threads + 1)) / 2));
  expect(words(a, 'total')[0]).toBe((n * (n + 1)) / 2);
});

test('launches that need one ordered machine stay on one thread, and say why', () => {
  const launch = (kernel: string): Launch => ({ kernel, grid: [2, 1, 1], block: [32, 1, 1], sharedBytes: 0, args: [buffer('out', 'u32', 64)] });
  expect(sequentialReason(program, launch('hello'))).toBe('it calls vprintf');
  expect(sequentialReason(program, { ...launch('hello'), cooperative: true })).toBe('a cooperative launch synchronises its whole grid');
  expect(sequentialReason(program, launch('count'))).toBeUndefined();
});

// the installed command (the bundle in dist/bin): its worker threads start from worker.js beside it
const CLI = join(ROOT, 'dist', 'bin', 'ptxdbg.js');
const built = existsSync(join(ROOT, 'dist', 'bin', 'worker.js')) ? null : `${CLI} is not built (run npm run build)`;
const cli = (...args: string[]): { status: number | null; stdout: string; stderr: string } => {
  const r = spawnSync('node', [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

testIf(built)('run --workers 2: worker threads give the results of the source, and --stats shows the split', () => {
  const blocks = 256, n = blocks * 128;
  const out = tempDir('ptxdbg-par-');
  const r = cli('run', PTX, '--kernel', 'count', '--grid', String(blocks), '--block', '128',
    '--arg', 'u32[1]', '--arg', 'u32[16]', '--arg', 'u64[1]', '--arg', 'f32[1]', '--arg', `u32[${n}]`, '--workers', '2', '--stats', '--out', out);
  expect(r.status).toBe(0);
  const split = /threads: 2 \(CTAs per thread: (\d+), (\d+)\)/.exec(r.stderr);
  expect(split).not.toBeNull();
  expect(Number(split![1]) + Number(split![2])).toBe(blocks);
  const u32 = (f: string): Uint32Array => new Uint32Array(new Uint8Array(readFileSync(join(out, f))).buffer);
  expect(u32('arg0.bin')[0]).toBe(n);
  expect([...u32('arg1.bin')]).toEqual(new Array(16).fill(n / 16));
  expect(new Float32Array(u32('arg3.bin').buffer)[0]).toBe(n);
  expect(u32('arg4.bin')[12345]).toBe(3 * 12345);
});

testIf(built)('run --workers 2: a fault is reported as a run on one thread reports it', () => {
  const args = ['run', PTX, '--kernel', 'overrun', '--grid', '512', '--block', '64', '--arg', 'u32[32768]', '--arg', 'u32:32768'];
  const one = cli(...args);
  const two = cli(...args, '--workers', '2', '--stats');
  expect(one.status).toBe(3);
  expect(two.status).toBe(3);
  expect(one.stderr).toContain('block (300,0,0) thread (5,0,0)');
  expect(two.stderr).toContain('threads: 1 (rerun on one thread after a fault (oob))');
  expect(two.stderr).toContain(one.stderr.trim());
});

/** node's loadavg() made to answer `load` (the machine's business, which auto weighs) in the CLI's process. */
const withLoad = (load: number): string => `data:text/javascript,${encodeURIComponent(
  `import os from 'node:os'; import { syncBuiltinESMExports } from 'node:module'; os.loadavg = () => [${load}, ${load}, ${load}]; syncBuiltinESMExports();`)}`;
const cliWith = (load: number, env: Record<string, string>, ...args: string[]): { status: number | null; stdout: string; stderr: string } => {
  const r = spawnSync('node', ['--import', withLoad(load), CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

testIf(built)('run --workers auto: workers join a launch once the work left pays for them and a core is idle; otherwise it runs alone and says why', () => {
  const cores = availableParallelism();
  const out = tempDir('ptxdbg-auto-');
  const args = (blocks: number): string[] => ['run', PTX, '--kernel', 'count', '--grid', String(blocks), '--block', '128',
    '--arg', 'u32[1]', '--arg', 'u32[16]', '--arg', 'u64[1]', '--arg', 'f32[1]', '--arg', `u32[${blocks * 128}]`, '--workers', 'auto', '--stats', '--out', out];
  const u32 = (f: string): Uint32Array => new Uint32Array(new Uint8Array(readFileSync(join(out, f))).buffer);
  // 8192 blocks of 128 threads, each adding 1 to the counter: n in it, whoever ran which block;
  // with every bit of work worth a worker (PTXDBG_JOIN_MS=0) on an idle machine, one is asked in
  const blocks = 8192, n = blocks * 128;
  const joined = cliWith(0, { PTXDBG_JOIN_MS: '0' }, ...args(blocks));
  expect(joined.status).toBe(0);
  expect(u32('arg0.bin')[0]).toBe(n);
  expect(u32('arg4.bin')[n - 1]).toBe(3 * (n - 1));
  if (cores > 1) {
    const split = /threads: (\d+) \(CTAs per thread: ([\d, ]+)\)/.exec(joined.stderr);
    expect(split).not.toBeNull();
    expect(Number(split![1])).toBe(Math.min(cores, blocks));
    expect(split![2]!.split(', ').reduce((a, b) => a + Number(b), 0)).toBe(blocks);
  } else {
    expect(joined.stderr).toContain('threads: 1 (one core)');
  }
  // the same launch where no amount of work left pays (the default is a second of it: how long
  // this launch takes depends on the machine): it runs alone and says how much work it saw left
  const alone = cliWith(0, { PTXDBG_JOIN_MS: '1000000000' }, ...args(blocks));
  expect(alone.status).toBe(0);
  expect(u32('arg0.bin')[0]).toBe(n);
  expect(alone.stderr).toMatch(cores > 1 ? /threads: 1 \(about \d+ ms of work left at most, workers from 1000000000 ms\)/ : /threads: 1 \(one core\)/);
  // other work keeps every core busy: no worker, said with the load
  if (cores > 1) expect(cliWith(cores, { PTXDBG_JOIN_MS: '0' }, ...args(blocks)).stderr).toContain(`threads: 1 (no idle core: load average ${cores.toFixed(2)} on ${cores} cores)`);
  // 4 blocks: 16 warps, 1024 warp-steps guessed: too short whatever the machine does
  const short = cliWith(0, {}, ...args(4));
  expect(short.status).toBe(0);
  expect(short.stderr).toContain(cores > 1 ? 'threads: 1 (a short launch: about 1024 warp-steps, threads from 131072)' : 'threads: 1 (one core)');
});

testIf(built)('run --workers: printf keeps a launch on one thread; a bad count is a usage error', () => {
  const r = cli('run', PTX, '--kernel', 'hello', '--grid', '4', '--block', '32', '--arg', 'u32[4]', '--workers', '2', '--stats');
  expect(r.status).toBe(0);
  expect(r.stdout).toBe('block 1\n');
  expect(r.stderr).toContain('threads: 1 (it calls vprintf)');
  const bad = cli('run', PTX, '--kernel', 'hello', '--grid', '4', '--block', '32', '--arg', 'u32[4]', '--workers', '0');
  expect(bad.status).toBe(2);
  expect(bad.stderr).toContain('--workers takes a thread count from 1 to 256');
});
