/**
 * Whole programs (samples/apps, each checking its own results against a host computation and
 * printing PASS) built with `nvcc -cudart shared` and run under `ptxdbg exec`; then capture →
 * run reproducing the outputs byte for byte, sanitize's findings, the debugger opened at a
 * launch while the program waits, and the program's exit code passed through.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingTool, ROOT, testIf } from '../helpers.js';
import { nvccBuildAll } from './nvcc.js';

// the installed command (the bundle in dist/bin): it finds dist/cudart from there too
const CLI = join(ROOT, 'dist', 'bin', 'ptxdbg.js');
const APPS = join(ROOT, 'samples', 'apps');
const RUNTIME = join(ROOT, 'dist', 'cudart', 'libcudart.so.13');
const why = missingTool('nvcc') ?? missingTool('cc') ?? (existsSync(RUNTIME) ? null : `the ptxdbg runtime is not built (${RUNTIME})`);
const run = testIf(why);
const names = readdirSync(APPS).filter((f) => f.endsWith('.cu')).map((f) => f.slice(0, -3)).sort();

let bin: string;

/** A program's own nvcc flags, from a first line `// nvcc-flags: ...` (-rdc=true for dynamic parallelism). */
function extraFlags(name: string): string[] {
  const first = readFileSync(join(APPS, `${name}.cu`), 'utf8').split('\n', 1)[0]!;
  const m = /^\/\/ nvcc-flags: (.*)$/.exec(first);
  return m ? m[1]!.trim().split(/\s+/) : [];
}

function buildAll(): Promise<Map<string, string>> {
  return nvccBuildAll(names.map((name) => ({ name, source: join(APPS, `${name}.cu`), out: join(bin, name), flags: extraFlags(name) })));
}

beforeAll(async () => {
  if (why) return;
  bin = mkdtempSync(join(tmpdir(), 'ptxdbg-apps-'));
  const failures = await buildAll();
  if (failures.size) throw new Error(`nvcc failed: ${[...failures].map(([n, e]) => `${n}: ${e}`).join('\n')}`);
}, 600_000);
afterAll(() => { if (bin) rmSync(bin, { recursive: true, force: true }); });

function ptxdbg(args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: bin, stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

run('there are at least 15 sample programs', () => {
  expect(names.length).toBeGreaterThanOrEqual(15);
});

describe('every sample program passes its own check under ptxdbg exec', () => {
  for (const name of names) {
    run(name, () => {
      const r = ptxdbg(['exec', '--', `./${name}`]);
      expect({ name, code: r.code, tail: r.out.trim().split('\n').pop() }).toEqual({ name, code: 0, tail: 'PASS' });
      expect(r.err).not.toContain('internal error');
      // errors.cu calls cudaIpcGetMemHandle on purpose to see it refused
      if (name !== 'errors') expect(r.err).not.toContain('not implemented');
    });
  }
});

run('a kernel printf comes out in program order, before the host line that follows the launch', () => {
  const r = ptxdbg(['exec', '--', './symbols']);
  expect(r.out.split('\n').slice(0, 2)).toEqual(['hello from thread 0', 'counter=6 via pointer=6 mismatches=0']);
});

run('a fault is reported where it happened and the program gets the sticky error', () => {
  // out[i] for i == n == 256 with blocks of 256: block 1, thread 0 (oob.cu)
  const r = ptxdbg(['exec', '--', './oob']);
  expect(r.out).toContain('launch: cudaErrorIllegalAddress; a later call: cudaErrorIllegalAddress');
  expect(r.err).toMatch(/out-of-bounds global write of 4 bytes .*cudaMalloc #1/);
  expect(r.err).toContain('in block (1,0,0) thread (0,0,0)');
  const a = ptxdbg(['exec', '--', './assert']);
  expect(a.out).toContain('launch: cudaErrorAssert');
  // the element made negative is 41 (assert.cu)
  expect(a.err).toContain('thread: [41,0,0] Assertion `v[i] > 0` failed.');
});

run('--stats prints one line per launch with its configuration', () => {
  const r = ptxdbg(['exec', '--stats', '--', './pipeline']);
  const lines = r.err.split('\n').filter((l) => l.startsWith('ptxdbg: launch'));
  // pipeline.cu launches produce, transform, keep, sumInto, release; 777 elements in blocks of 128 = 7 blocks
  expect(lines.map((l) => /launch (\d+) (\w+<<<[^>]*>>>)/.exec(l)!.slice(1).join(' '))).toEqual([
    '1 produce<<<(7,1,1),(128,1,1)>>>', '2 transform<<<(7,1,1),(128,1,1)>>>', '3 keep<<<(1,1,1),(1,1,1)>>>',
    '4 sumInto<<<(7,1,1),(128,1,1)>>>', '5 release<<<(1,1,1),(1,1,1)>>>',
  ]);
});

run('exec keeps a short launch on one thread by default (threads would cost more than they give); --workers 2 shares it; --workers 1 keeps every launch on one', () => {
  const one = ptxdbg(['exec', '--stats', '--workers', '1', '--', './pipeline']);
  const def = ptxdbg(['exec', '--stats', '--', './pipeline']);
  const two = ptxdbg(['exec', '--stats', '--workers', '2', '--', './pipeline']);
  expect([one.code, def.code, two.code]).toEqual([0, 0, 0]);
  const produce = (err: string): string => err.split('\n').find((l) => l.includes('produce<<<'))!;
  expect(produce(one.err)).not.toContain('threads:');
  // produce<<<7, 128>>>: 7 CTAs of 4 warps, a first launch guessed at 64 warp-steps a warp: 1792
  const cores = availableParallelism();
  expect(produce(def.err)).toContain(cores > 1 ? 'threads: 1 (a short launch: about 1792 warp-steps, threads from 131072)' : 'threads: 1 (one core)');
  // it stores only: it may run on threads, the main one and a worker
  expect(produce(two.err)).toContain('threads: 2 (CTAs per thread:');
  expect(def.out).toBe(one.out);
  expect(two.out).toBe(one.out);
});

run('exec --workers 2: a launch that faults on threads is rerun on one from the memory it started with, and reports as one thread does', () => {
  // oob.cu: fill<<<2, 256>>> writes out[256], one past the buffer (block 1, thread 0)
  const one = ptxdbg(['exec', '--workers', '1', '--', './oob']);
  const two = ptxdbg(['exec', '--workers', '2', '--stats', '--', './oob']);
  expect(two.err).toContain('threads: 1 (rerun on one thread after a fault (oob))');
  expect(two.code).toBe(one.code);
  expect(two.out).toBe(one.out);
  expect(two.err.split('\n').filter((l) => !l.includes('warp-steps')).join('\n')).toBe(one.err);
});

run('capture writes a bundle per launch and `run` on each reproduces its outputs byte for byte', () => {
  const cap = join(bin, 'cap');
  const r = ptxdbg(['capture', '-o', cap, '--', './pipeline']);
  expect(r.code).toBe(0);
  const bundles = readdirSync(cap).sort();
  expect(bundles).toEqual(['0001-produce', '0002-transform', '0003-keep', '0004-sumInto', '0005-release']);
  for (const b of bundles) {
    const out = join(bin, 'rerun', b);
    const again = ptxdbg(['run', join(cap, b), '--out', out]);
    expect({ b, code: again.code, err: again.err }).toEqual({ b, code: 0, err: '' });
    const expected = readdirSync(join(cap, b, 'expected'));
    expect(expected.length).toBeGreaterThan(0);
    for (const f of expected) expect({ b, f, same: readFileSync(join(out, f)).equals(readFileSync(join(cap, b, 'expected', f))) }).toEqual({ b, f, same: true });
  }
  // the sum the program checked (sumInto's output) is in the bundle: 3*777*776/2 + sum (i%8)^2
  const sumFile = readdirSync(join(cap, '0004-sumInto', 'expected')).find((f) => f.includes('4'));
  expect(sumFile).toBeDefined();
  expect(readFileSync(join(cap, '0004-sumInto', 'expected', sumFile!)).readBigUInt64LE(0)).toBe(904428n + 13580n);
});

run('child grids launched from device code are launches of their own, depth first, the tail launch last', () => {
  // children.cu: 1000 elements split in halves down to 64 or fewer (1000, 500, 250, 125, 62|63):
  // 1 + 2 + 4 + 8 + 16 split grids, 16 scale grids, 1 tail launch of total
  const r = ptxdbg(['exec', '--stats', '--', './children']);
  expect(r.code).toBe(0);
  const names = r.err.split('\n').filter((l) => l.startsWith('ptxdbg: launch')).map((l) => /launch \d+ (\w+)/.exec(l)![1]);
  expect(names.length).toBe(1 + 31 + 16 + 1);
  expect(names.filter((n) => n === 'split').length).toBe(31);
  expect(names.filter((n) => n === 'scale').length).toBe(16);
  expect(names[0]).toBe('root');
  expect(names[names.length - 1]).toBe('total');
  // depth first: the first split's first child split follows it, and the first scale comes after 4 more splits
  expect(names.slice(1, 7)).toEqual(['split', 'split', 'split', 'split', 'split', 'scale']);
  expect(r.err).toContain('(launched from the device by block (0,0,0) thread (0,0,0))');
});

run('a captured launch that launches child grids reruns them: its bundle reproduces the whole tree', () => {
  const cap = join(bin, 'cap-children');
  expect(ptxdbg(['capture', '-o', cap, '--kernel', 'root', '--', './children']).code).toBe(0);
  expect(readdirSync(cap)).toEqual(['0001-root']);
  const b = join(cap, '0001-root');
  const out = join(bin, 'rerun-children');
  const again = ptxdbg(['run', b, '--out', out]);
  expect(again.code).toBe(0);
  for (const f of readdirSync(join(b, 'expected'))) expect({ f, same: readFileSync(join(out, f)).equals(readFileSync(join(b, 'expected', f))) }).toEqual({ f, same: true });
  // the tail launch's sum is in root's outputs: elements i + 1 scaled by 5 (every leaf is at depth 4)
  expect(readFileSync(join(b, 'expected', 'cudaMalloc_2.bin')).readBigUInt64LE(0)).toBe(5n * 500500n);
});

run('capture into a place it cannot write is a message, not a crash; the program still runs', () => {
  writeFileSync(join(bin, 'a-file'), 'x');
  const r = ptxdbg(['capture', '-o', join('a-file', 'bundles'), '--', './symbols']);
  expect(r.code).toBe(2);
  expect(r.err).toBe('ptxdbg: cannot create the capture directory a-file/bundles: a file of that name is in the way\n');
  // the first bundle's folder is taken by a file: reported, capturing stops, the program passes
  const dir = mkdtempSync(join(bin, 'cap-'));
  writeFileSync(join(dir, '0001-vecAdd'), 'x');
  const c = ptxdbg(['capture', '-o', dir, '--', './symbols']);
  expect(c.code).toBe(0);
  expect(c.err).toContain('0001-vecAdd: a file of that name is in the way; capturing stops');
  expect(c.out.trim().split('\n').pop()).toBe('PASS');
});

run('a --break that matches no launch says so when the program ends', () => {
  // symbols.cu launches vecAdd once
  const r = ptxdbg(['exec', '--break', 'vecAdd#2', '--break', 'nosuch', '--', './symbols']);
  expect(r.code).toBe(0);
  expect(r.err).toContain('ptxdbg: --break vecAdd#2: the program made no such launch\n');
  expect(r.err).toContain('ptxdbg: --break nosuch: the program made no such launch\n');
});

/** The report lines (compute-sanitizer writes them to stdout with the program's own output). */
const report = (out: string): string[] => out.split('\n').filter((l) => l.startsWith('========='));
const hex = '0x[0-9a-f]+';

run('sanitize memcheck: the out-of-bounds write, then the API error of each call after it, as compute-sanitizer reports them', () => {
  // oob.cu: out[i] for i == n == 256, blocks of 256 threads: block 1, thread 0 writes out[256],
  // the byte after the 1024-byte allocation ("1 bytes after": compute-sanitizer counts from the
  // last byte); then cudaDeviceSynchronize and cudaMemset fail: the context is gone (719)
  const m = ptxdbg(['sanitize', '--', './oob']);
  expect(m.code).toBe(1); // the program's own exit code: it expected cudaErrorIllegalAddress
  const lines = report(m.out);
  const expected = [
    /^========= COMPUTE-SANITIZER$/,
    /^========= Invalid __global__ write of size 4 bytes$/,
    /^=========     at fill\(int \*, int\)\+0x[0-9a-f]+$/,
    /^=========     by thread \(0,0,0\) in block \(1,0,0\)$/,
    new RegExp(`^=========     Address ${hex} is out of bounds$`),
    new RegExp(`^=========     and is 1 bytes after the nearest allocation at ${hex} of size 1,024 bytes$`),
    /^=========     Saved host backtrace up to driver entry point at kernel launch time$/,
    new RegExp(`^=========         Host Frame: main \\[${hex}\\] in oob$`),
    /^=========$/,
    /^========= Program hit cudaErrorLaunchFailure \(error 719\) due to "unspecified launch failure" on CUDA API call to cudaDeviceSynchronize\.$/,
    /^=========     Saved host backtrace up to driver entry point at error$/,
    new RegExp(`^=========         Host Frame: main \\[${hex}\\] in oob$`),
    /^=========$/,
    /^========= Program hit cudaErrorLaunchFailure \(error 719\) due to "unspecified launch failure" on CUDA API call to cudaMemset\.$/,
    /^=========     Saved host backtrace up to driver entry point at error$/,
    new RegExp(`^=========         Host Frame: main \\[${hex}\\] in oob$`),
    /^=========$/,
    /^========= Target application returned an error$/,
    /^========= ERROR SUMMARY: 3 errors$/,
  ];
  expect(lines.length).toBe(expected.length);
  lines.forEach((l, i) => expect({ i, l }).toEqual({ i, l: expect.stringMatching(expected[i]!) }));
  // the launch frame and the failed calls' frames are three call sites in main, in that order
  const offsets = lines.filter((l) => l.includes('Host Frame')).map((l) => parseInt(/\[0x([0-9a-f]+)\]/.exec(l)![1]!, 16));
  expect(offsets[0]! < offsets[1]! && offsets[1]! < offsets[2]!).toBe(true);
  expect(m.err).toBe('');
  const clean = ptxdbg(['sanitize', '--', './templates']);
  expect(clean.code).toBe(0);
  expect(report(clean.out)).toEqual(['========= COMPUTE-SANITIZER', '========= ERROR SUMMARY: 0 errors']);
});

run('sanitize into a reader that stops after one line (| head -1) ends as a C tool does on SIGPIPE: exit 141, no trace', () => {
  // PIPESTATUS[0] is ptxdbg's own status; head takes the banner and closes the pipe
  const r = spawnSync('bash', ['-c', `"${process.execPath}" "${CLI}" sanitize -- ./memcheck_demo | head -1; exit \${PIPESTATUS[0]}`], { encoding: 'utf8', cwd: bin, timeout: 300_000 });
  expect(r.stdout).toBe('========= COMPUTE-SANITIZER\n');
  expect(r.stderr).not.toMatch(/EPIPE|internal error|node:events/);
  expect(r.status).toBe(128 + 13);
});

run('sanitize on memcheck_demo.cu: the documentation\'s debug-build transcript with --destroy-on-device-error kernel and --leak-check full', () => {
  const r = ptxdbg(['sanitize', '--destroy-on-device-error', 'kernel', '--leak-check', 'full', '--', './memcheck_demo']);
  expect(r.code).toBe(0);
  const expected = [
    /^========= COMPUTE-SANITIZER$/,
    /^========= Invalid __global__ write of size 4 bytes$/,
    /^=========     at unaligned_kernel\(int \*\)\+0x[0-9a-f]+ in memcheck_demo.cu:9$/,
    /^=========     by thread \(0,0,0\) in block \(0,0,0\)$/,
    new RegExp(`^=========     Address ${hex} is misaligned$`),
    new RegExp(`^=========     and is inside the nearest allocation at ${hex} of size 4 bytes$`),
    /^=========     Saved host backtrace up to driver entry point at kernel launch time$/,
    new RegExp(`^=========         Host Frame: run_unaligned\\(\\) \\[${hex}\\] in memcheck_demo$`),
    new RegExp(`^=========         Host Frame: main \\[${hex}\\] in memcheck_demo$`),
    /^=========$/,
    /^========= Invalid __global__ write of size 4 bytes$/,
    /^=========     at out_of_bounds_function\(\)\+0x[0-9a-f]+ in memcheck_demo.cu:10$/,
    /^=========     by thread \(0,0,0\) in block \(0,0,0\)$/,
    /^=========     Address 0x87654320 is out of bounds$/,
    new RegExp(`^=========     and is [0-9,]+ bytes before the nearest allocation at ${hex} of size 1,024 bytes$`),
    /^=========     Device Frame: out_of_bounds_kernel\(\)\+0x[0-9a-f]+ in memcheck_demo.cu:11$/,
    /^=========     Saved host backtrace up to driver entry point at kernel launch time$/,
    new RegExp(`^=========         Host Frame: run_out_of_bounds\\(\\) \\[${hex}\\] in memcheck_demo$`),
    new RegExp(`^=========         Host Frame: main \\[${hex}\\] in memcheck_demo$`),
    /^=========$/,
    new RegExp(`^========= Leaked 1,024 bytes at ${hex}$`),
    /^=========     Saved host backtrace up to driver entry point at allocation time$/,
    // cuda_runtime.h's template wrapper is the program's own code (compute-sanitizer shows its cudaMalloc frame)
    new RegExp(`^=========         Host Frame: cudaError cudaMalloc<int>\\(int \\*\\*, unsigned long\\) \\[${hex}\\] in memcheck_demo$`),
    new RegExp(`^=========         Host Frame: main \\[${hex}\\] in memcheck_demo$`),
    /^=========$/,
    /^========= LEAK SUMMARY: 1024 bytes leaked in 1 allocations$/,
    /^========= ERROR SUMMARY: 3 errors$/,
  ];
  // the program's own output goes through its stdio buffer (a pipe here): it comes apart
  expect(r.out.split('\n').filter((l) => !l.startsWith('========='))).toEqual(['Mallocing memory', 'Running unaligned_kernel: no error', 'Running out_of_bounds_kernel: no error', 'PASS', '']);
  const lines = report(r.out);
  expect(lines.length).toBe(expected.length);
  lines.forEach((l, i) => expect({ i, l }).toEqual({ i, l: expect.stringMatching(expected[i]!) }));
});

run('sanitize racecheck: the missing __syncwarp as an analysis record (a warning: lanes of one warp), RACECHECK SUMMARY, --error-exitcode', () => {
  // race.cu: each of 128 threads reads the 4 bytes its neighbour wrote: 512 byte hazards
  const rc = ptxdbg(['sanitize', '--tool', 'racecheck', '--', './race']);
  expect(rc.code).toBe(0); // compute-sanitizer's --error-exitcode is 0 unless given
  expect(report(rc.out)).toEqual([
    '========= COMPUTE-SANITIZER',
    expect.stringMatching(/^========= Warning: Race reported between Write access at shiftLeft\(const int \*, int \*\)\+0x[0-9a-f]+$/),
    expect.stringMatching(/^=========     and Read access at shiftLeft\(const int \*, int \*\)\+0x[0-9a-f]+ \[512 hazards\]$/),
    '=========',
    '========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)',
  ]);
  const hz = ptxdbg(['sanitize', '--tool', 'racecheck', '--racecheck-report', 'hazard', '--error-exitcode', '7', '--', './race']);
  expect(hz.code).toBe(7);
  expect(report(hz.out)[1]).toMatch(new RegExp(`^========= Warning: \\(Warp Level Programming\\) Potential RAW hazard detected at __shared__ ${hex} in block \\(0,0,0\\) :$`));
  expect(report(hz.out)[2]).toMatch(/^=========     Write Thread \(\d+,0,0\) at shiftLeft\(const int \*, int \*\)\+0x[0-9a-f]+$/);
  expect(report(hz.out)[3]).toMatch(/^=========     Read Thread \(\d+,0,0\) at shiftLeft\(const int \*, int \*\)\+0x[0-9a-f]+$/);
  // --print-level error: warnings are not displayed
  const quiet = ptxdbg(['sanitize', '--tool', 'racecheck', '--print-level', 'error', '--', './race']);
  expect(report(quiet.out)).toEqual(['========= COMPUTE-SANITIZER', '========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)']);
});

run('sanitize: --kernel-name-exclude leaves a launch unchecked, --log-file takes the report off stdout', () => {
  // the fill launch runs unchecked: the program gets the GPU's error (700) and memcheck reports
  // only the failed calls after it
  const log = join(bin, 'report-%p.txt');
  const r = ptxdbg(['sanitize', '--kernel-name-exclude', 'kns=fill', '--log-file', log, '--', './oob']);
  expect(r.code).toBe(0);
  expect(r.out).toBe('launch: cudaErrorIllegalAddress; a later call: cudaErrorIllegalAddress\nPASS\n');
  const file = readdirSync(bin).find((f) => /^report-\d+\.txt$/.test(f))!;
  const lines = report(readFileSync(join(bin, file), 'utf8'));
  expect(lines.filter((l) => l.includes('Program hit'))).toEqual([
    '========= Program hit cudaErrorIllegalAddress (error 700) due to "an illegal memory access was encountered" on CUDA API call to cudaDeviceSynchronize.',
    '========= Program hit cudaErrorIllegalAddress (error 700) due to "an illegal memory access was encountered" on CUDA API call to cudaMemset.',
  ]);
  expect(lines.some((l) => l.includes('Invalid __global__'))).toBe(false);
  expect(lines[lines.length - 1]).toBe('========= ERROR SUMMARY: 2 errors');
  expect(r.err).toContain('out-of-bounds global write of 4 bytes');
});

run('sanitize --tool initcheck: each thread\'s read of never-written memory, and none where everything is written first', () => {
  // uninit.cu copies 64 of 128 ints; blocks of 64 threads: block 1 reads in[64..127], 64 reads
  const r = ptxdbg(['sanitize', '--tool', 'initcheck', '--', './uninit']);
  expect(r.code).toBe(0);
  const lines = report(r.out);
  expect(lines.filter((l) => l === '========= Uninitialized __global__ memory read of size 4 bytes').length).toBe(64);
  expect(lines[2]).toMatch(/^=========     at twice\(const int \*, int \*\)\+0x[0-9a-f]+$/);
  expect(lines[3]).toBe('=========     by thread (0,0,0) in block (1,0,0)');
  expect(lines[lines.length - 1]).toBe('========= ERROR SUMMARY: 64 errors');
  // the shared-memory reduction writes each element before reading it; the pipeline's memory
  // is written by copies, memsets, kernels and device malloc'd blocks before it is read
  for (const app of ['./templates', './pipeline', './dynshared']) {
    const c = ptxdbg(['sanitize', '--tool', 'initcheck', '--', app]);
    expect({ app, code: c.code, summary: /ERROR SUMMARY: \d+ errors?/.exec(c.out)?.[0] }).toEqual({ app, code: 0, summary: 'ERROR SUMMARY: 0 errors' });
  }
});

run('exec --races reports the race of each launch with both accesses; the program still runs to its end', () => {
  // race.cu: thread t reads s[t ^ 1], written by its neighbour lane with no __syncwarp between
  const r = ptxdbg(['exec', '--races', '--', './race']);
  expect(r.code).toBe(0);
  expect(r.err).toContain('ptxdbg: launch 1 shiftLeft<<<(1,1,1),(128,1,1)>>>:');
  expect(r.err).toMatch(/race 1: RAW on shared memory .*intra-warp, 128 occurrences/);
  expect(r.out.trim().split('\n').pop()).toBe('PASS');
});

run('--break opens the debugger at that launch while the program waits; the program then finishes', () => {
  const r = ptxdbg(['exec', '--break', 'transform', '--batch', '--ex', 'info cuda kernels', '--ex', 'continue', '--', './pipeline']);
  expect(r.code).toBe(0);
  expect(r.err).toContain('launch 2 transform<<<(7,1,1),(128,1,1)>>> (launch 1 of transform): opening the debugger');
  expect(r.out).toMatch(/\(7,1,1\) +\(128,1,1\) +transform/);
  expect(r.out.trim().split('\n').pop()).toBe('PASS');
});

run('--break-on-fault opens the debugger stopped at the fault, in the faulting thread', () => {
  // oob.cu: out[i] for i == n == 256, blocks of 256 threads: block 1, thread 0 writes out[256]
  const r = ptxdbg(['exec', '--break-on-fault', '--batch', '--ex', 'print blockIdx.x * blockDim.x + threadIdx.x', '--', './oob']);
  expect(r.code).toBe(0);
  expect(r.out).toContain('Program stopped: ptxdbg: oob: out-of-bounds global write of 4 bytes');
  expect(r.out).toMatch(/\$1 = 256\n/);
  expect(r.out.trim().split('\n').pop()).toBe('PASS');
});

run('an -rdc program of two translation units runs: a device function and a variable defined in the other unit', () => {
  // twice(x) = 2x + 1 from b.cu; counter starts at 100 in b.cu and each of 4 threads adds 1
  writeFileSync(join(bin, 'rdc_a.cu'), `#include <cstdio>
extern __device__ int twice(int);
extern __device__ int counter;
__global__ void k(int *o) { o[threadIdx.x] = twice(threadIdx.x); atomicAdd(&counter, 1); }
int main() { int *o, h[4], c = 0; cudaMalloc(&o, 16); k<<<1, 4>>>(o); cudaMemcpy(h, o, 16, cudaMemcpyDeviceToHost);
  cudaMemcpyFromSymbol(&c, counter, 4); printf("%d %d %d %d %d\\n", h[0], h[1], h[2], h[3], c); return 0; }
`);
  writeFileSync(join(bin, 'rdc_b.cu'), '__device__ int counter = 100;\n__device__ int twice(int x) { return 2 * x + 1; }\n');
  const built = spawnSync('nvcc', ['-cudart', 'shared', '-arch=sm_80', '-rdc=true', '-o', join(bin, 'rdc'), join(bin, 'rdc_a.cu'), join(bin, 'rdc_b.cu')], { encoding: 'utf8' });
  expect({ status: built.status, stderr: built.status === 0 ? '' : built.stderr }).toEqual({ status: 0, stderr: '' });
  const r = ptxdbg(['exec', '--', './rdc']);
  expect({ code: r.code, out: r.out }).toEqual({ code: 0, out: '1 3 5 7 104\n' });
});

run("the program's exit code is ptxdbg's; a missing program is a usage error", () => {
  writeFileSync(join(bin, 'three.cu'), 'int main() { return 3; }\n');
  expect(spawnSync('nvcc', ['-cudart', 'shared', '-o', join(bin, 'three'), join(bin, 'three.cu')]).status).toBe(0);
  expect(ptxdbg(['exec', '--', './three']).code).toBe(3);
  // a host write to cudaMalloc memory faults in the program, as on a GPU: 128 + SIGSEGV (11)
  writeFileSync(join(bin, 'hostderef.cu'), 'int main() { int *d; cudaMalloc(&d, 16); d[0] = 1; return 0; }\n');
  expect(spawnSync('nvcc', ['-cudart', 'shared', '-o', join(bin, 'hostderef'), join(bin, 'hostderef.cu')]).status).toBe(0);
  const segv = ptxdbg(['exec', '--', './hostderef']);
  expect(segv.code).toBe(139);
  expect(segv.err).toContain('./hostderef was killed by SIGSEGV (if it read or wrote device memory from the host');
  const missing = ptxdbg(['exec', '--', './no-such-program']);
  expect(missing.code).toBe(2);
  expect(missing.err).toContain('cannot run ./no-such-program: no such program');
  // EACCES in words: a directory, a source file without the execute bit (not node's 'spawn ... EACCES')
  const dir = ptxdbg(['exec', '--', bin]);
  expect([dir.code, dir.err]).toEqual([2, `ptxdbg: cannot run ${bin}: it is a directory, not a program\n`]);
  const source = ptxdbg(['exec', '--', './three.cu']);
  expect([source.code, source.err]).toEqual([2, 'ptxdbg: cannot run ./three.cu: permission denied (is it executable? chmod +x)\n']);
});

run('extract writes the PTX nvcc embedded; info and check read it whole: the kernels, parameters and variables of pipeline.cu', () => {
  const r = ptxdbg(['extract', './pipeline', '-o', 'extracted']);
  expect(r.code).toBe(0);
  const file = /PTX \d+\.\d+ for compute_80, \d+ bytes.* -> (extracted\/pipeline\.1\.sm_80\.ptx)$/m.exec(r.out)?.[1];
  expect(file).toBe('extracted/pipeline.1.sm_80.ptx');
  expect(ptxdbg(['check', file!]).out).toBe(`${file}: ok\n`);
  const info = ptxdbg(['info', file!, '--json']);
  expect(info.code).toBe(0);
  const got = JSON.parse(info.out) as { entries: { name: string; params: { size: number }[] }[]; externs: string[]; globals: { name: string; space: string; size: number }[] };
  // pipeline.cu: each __global__ kernel's name and parameter count (pointers and ints, C++-mangled
  // as _Z<length><name>...), the __device__ pointer `scratch`, and malloc/free called in kernels
  const source = readFileSync(join(APPS, 'pipeline.cu'), 'utf8');
  const kernels = [...source.matchAll(/__global__ void (\w+)\(([^)]*)\)/g)].map((m) => ({ name: m[1]!, params: m[2]!.trim() ? m[2]!.split(',').length : 0 }));
  expect(kernels.length).toBe(5);
  const plain = (mangled: string): string => { const m = /^_Z(\d+)/.exec(mangled); return m ? mangled.slice(m[0].length, m[0].length + Number(m[1])) : mangled; };
  expect(got.entries.map((e) => ({ name: plain(e.name), params: e.params.length })).sort((a, b) => a.name.localeCompare(b.name)))
    .toEqual(kernels.sort((a, b) => a.name.localeCompare(b.name)));
  expect(got.globals.filter((g) => g.name.includes('scratch')).map((g) => [g.space, g.size])).toEqual([['global', 8]]);
  expect(got.externs).toEqual(expect.arrayContaining(['malloc', 'free']));
});
