/**
 * The whole-program recording (src/host/program.ts, src/host/recording.ts) of the samples in
 * samples/apps/timeline, built with nvcc -g: launches, host events and their call sites, and the
 * device memory at a launch's start. Expected values come from the .cu sources (the lines that
 * make each call, and values computed by hand from the kernels); host lines are read with
 * binutils' addr2line through the recording's line-lookup hook (where src/host/hostlines.ts
 * plugs in).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { missingTool, ROOT, testIf } from '../helpers.js';
import { nvccBuildAll } from './nvcc.js';
import { Device } from '../../src/host/device.js';
import { ProgramLaunches, runProgram, type RecordOptions } from '../../src/host/program.js';
import { launchAt, launchSnapshotAt, memoryAt, type HostEvent, type HostLineLookup, type ProgramRecording } from '../../src/host/recording.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/exec/machine.js';
import { plainName } from '../../src/ptx/names.js';
import { writeBundle } from '../../src/host/bundle.js';

const DIR = join(ROOT, 'samples', 'apps', 'timeline');
const LIB = join(ROOT, 'dist', 'cudart');
const why = missingTool('nvcc') ?? missingTool('addr2line') ?? (existsSync(join(LIB, 'libcudart.so.13')) ? null : `the ptxdbg runtime is not built (${LIB})`);
const run = testIf(why);

let bin: string;

beforeAll(async () => {
  if (why) return;
  bin = mkdtempSync(join(tmpdir(), 'ptxdbg-timeline-'));
  const failures = await nvccBuildAll([
    { name: 'offbyone', source: join(DIR, 'offbyone.cu'), out: join(bin, 'offbyone'), flags: ['-g'] },
    { name: 'rdc', source: join(DIR, 'rdc_main.cu'), out: join(bin, 'rdc'), flags: ['-g', '-rdc=true', join(DIR, 'rdc_other.cu')] },
  ]);
  if (failures.size) throw new Error(`nvcc failed: ${[...failures].map(([n, e]) => `${n}: ${e}`).join('\n')}`);
}, 600_000);
afterAll(() => { if (bin) rmSync(bin, { recursive: true, force: true }); });

/** binutils' answer for an address of an ELF file: its source file's name and line. */
const addr2line: HostLineLookup = (path, address) => {
  const r = spawnSync('addr2line', ['-e', path, `0x${address.toString(16)}`], { encoding: 'utf8' });
  const m = /^(.*):(\d+)/.exec(r.stdout.trim());
  return m && m[1] !== '??' ? { file: basename(m[1]!), line: Number(m[2]) } : undefined;
};

/** The 1-based line of `file` holding `text` (exactly one). */
function lineOf(file: string, text: string): number {
  const lines = readFileSync(join(DIR, file), 'utf8').split('\n');
  const at = lines.flatMap((l, i) => (l.includes(text) ? [i + 1] : []));
  if (at.length !== 1) throw new Error(`${file}: ${at.length} lines hold ${text}`);
  return at[0]!;
}

async function record(app: string, o: Partial<RecordOptions> = {}): Promise<{ code: number; rec: ProgramRecording; err: string[] }> {
  const device = new Device();
  const err: string[] = [];
  const launches = new ProgramLaunches(device, {
    opts: { ...DEFAULT_RUN_OPTIONS, maxSteps: 1e8 }, threads: 1, stats: false, races: false, breaks: [], breakOnFault: false,
    capture: undefined, sanitize: undefined, record: { budget: 1 << 30, lines: addr2line, ...o },
    say: (l) => { err.push(l); }, threadsLine: () => '', openDebugger: () => Promise.reject(new Error('no debugger here')),
  }, app, []);
  const ended = await runProgram([join(bin, app)], LIB, device, launches, { sanitize: false, captureOutput: true, detached: true });
  if ('notStarted' in ended) throw new Error(ended.notStarted);
  return { code: ended.code, rec: launches.recording!, err };
}

const hostEvents = (rec: ProgramRecording): HostEvent[] => rec.events.filter((e): e is HostEvent => e.kind === 'host');
const ints = (b: Uint8Array | undefined): number[] => (b ? [...new Int32Array(b.buffer, b.byteOffset, b.length / 4)] : []);

run('offbyone: three launches with their kernels, grids and host call-site lines', async () => {
  const { code, rec } = await record('offbyone');
  expect(code).toBe(1); // the host's check fails (report(false))
  expect(rec.launches.map((l) => ({ n: l.launch, kernel: plainName(l.kernel), grid: l.grid, block: l.block, line: l.site?.line?.line, fn: l.site?.text.endsWith(' in main') })))
    .toEqual([
      { n: 1, kernel: 'prefix', grid: [1, 1, 1], block: [8, 1, 1], line: lineOf('offbyone.cu', 'prefix<<<'), fn: true },
      { n: 2, kernel: 'scale', grid: [2, 1, 1], block: [4, 1, 1], line: lineOf('offbyone.cu', 'scale<<<'), fn: true },
      { n: 3, kernel: 'finish', grid: [4, 1, 1], block: [2, 1, 1], line: lineOf('offbyone.cu', 'finish<<<'), fn: true },
    ]);
  expect(rec.launches[0]!.site?.text).toBe(`offbyone.cu:${lineOf('offbyone.cu', 'prefix<<<')} in main`);
  // every launch of a 8-thread grid runs some warp-steps, and the recording ends with the program
  for (const l of rec.launches) expect(l.steps).toBeGreaterThan(0);
  expect(rec.exitCode).toBe(1);
  expect(rec.stopped).toBeUndefined();
}, 120_000);

run('offbyone: the host events in program order, each at the source line that made it', async () => {
  const { rec } = await record('offbyone');
  const mallocLine = (v: string): number => lineOf('offbyone.cu', `cudaMalloc(&${v},`);
  const order = rec.events.filter((e) => e.kind !== 'output').map((e) => (e.kind === 'launch' ? `launch ${plainName(e.kernel)}` : `${e.op.op}:${e.site?.line?.line}`));
  expect(order).toEqual([
    `malloc:${mallocLine('d_in')}`, `malloc:${mallocLine('d_a')}`, `malloc:${mallocLine('d_b')}`, `malloc:${mallocLine('d_out')}`,
    `write:${lineOf('offbyone.cu', 'cudaMemcpy(d_in')}`, `set:${lineOf('offbyone.cu', 'cudaMemset(d_out')}`,
    'launch prefix', 'launch scale', 'launch finish',
    `read:${lineOf('offbyone.cu', 'cudaMemcpy(out')}`,
    ...Array.from({ length: 4 }, () => `free:${lineOf('offbyone.cu', 'cudaFree(d_in)')}`),
  ]);
  const copyIn = hostEvents(rec).find((e) => e.op.op === 'write')!;
  expect(copyIn.site?.api).toBe('cudaMemcpy');
  // in[i] = i + 1, 8 ints
  expect(copyIn.writes.map((w) => ('bytes' in w ? ints(w.bytes) : []))).toEqual([[1, 2, 3, 4, 5, 6, 7, 8]]);
  // the program's own output is on the timeline after the launches: out[0] = 0*2+1 = 1, expected 1*2+1 = 3
  const said = rec.events.filter((e) => e.kind === 'output' && e.stream === 'stdout').map((e) => (e.kind === 'output' ? e.text : '')).join('');
  expect(said.split('\n')[0]).toBe('out[0] = 1, expected 3');
  expect(said.trim().split('\n').pop()).toBe('FAIL');
}, 120_000);

run('offbyone: memory at the start of launch 2 is what launch 1 wrote; launch 1 started from the host copy', async () => {
  const { rec } = await record('offbyone');
  const mallocs = hostEvents(rec).filter((e) => e.op.op === 'malloc').map((e) => (e.op.op === 'malloc' ? e.op.dst : 0n));
  const [dIn, dA, dB] = mallocs;
  const l2 = launchAt(rec, 2)!;
  // prefix's a[i] = in[0] + ... + in[i-1] with in[j] = j + 1: i(i+1)/2
  expect(ints(memoryAt(rec, l2.index, dA!, 32))).toEqual([0, 1, 3, 6, 10, 15, 21, 28]);
  // before launch 1 a holds the zeros cudaMalloc leaves here; in holds the host copy
  const l1 = launchAt(rec, 1)!;
  expect(ints(memoryAt(rec, l1.index, dA!, 32))).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  expect(ints(memoryAt(rec, l1.index, dIn!, 32))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  // at the program's end b = 2a
  expect(ints(memoryAt(rec, rec.events.length, dB!, 32))).toEqual([0, 2, 6, 12, 20, 30, 42, 56]);
  // what reopening launch 2 starts from: its kernel, parameters and a's bytes as above
  const snap = launchSnapshotAt(rec, 2)!;
  expect(plainName(snap.request.kernel)).toBe('scale');
  expect(snap.paramNames.length).toBe(3);
  const a = snap.regions.find((g) => g.offset === Number(dA! - 0x7f0000000000n))!;
  expect(ints(a.bytes)).toEqual([0, 1, 3, 6, 10, 15, 21, 28]);
}, 120_000);

run('--record KERNEL: only its launches are reopenable; the others are one memory event each', async () => {
  const { rec } = await record('offbyone', { kernels: ['scale'] });
  expect(rec.launches.map((l) => l.start !== undefined)).toEqual([false, true, false]);
  // launch 1's effect is still known: its end image
  const dA = hostEvents(rec).filter((e) => e.op.op === 'malloc').map((e) => (e.op.op === 'malloc' ? e.op.dst : 0n))[1]!;
  expect(ints(memoryAt(rec, launchAt(rec, 2)!.index, dA, 32))).toEqual([0, 1, 3, 6, 10, 15, 21, 28]);
  expect(launchSnapshotAt(rec, 1)).toBeUndefined();
}, 120_000);

run('a budget too small stops recording with a message; the program runs to its end', async () => {
  const { code, rec, err } = await record('offbyone', { budget: 1 });
  expect(code).toBe(1);
  expect(rec.stopped).toBe('budget');
  expect(err.some((l) => l.includes('reached its budget of 1 bytes'))).toBe(true);
  // the timeline stays whole (3 launches, the host events after them) but holds no memory past the stop
  expect(rec.launches.map((l) => [plainName(l.kernel), l.start, l.end])).toEqual([['prefix', undefined, undefined], ['scale', undefined, undefined], ['finish', undefined, undefined]]);
  expect(memoryAt(rec, launchAt(rec, 2)!.index, 0x7f0000000000n, 4)).toBeUndefined();
}, 120_000);

run('-rdc: kernels of two translation units, each launch at its line', async () => {
  const { code, rec } = await record('rdc');
  expect(code).toBe(0);
  expect(rec.launches.map((l) => [plainName(l.kernel), l.module, l.site?.line?.line])).toEqual([
    ['fill', 0, lineOf('rdc_main.cu', 'fill<<<')],
    ['bump', 0, lineOf('rdc_main.cu', 'bump<<<')],
  ]);
  // after fill v[i] = i; bump adds 2i + 1
  const v = hostEvents(rec).find((e) => e.op.op === 'malloc')!.op;
  expect(ints(memoryAt(rec, launchAt(rec, 2)!.index, v.op === 'malloc' ? v.dst : 0n, 16))).toEqual([0, 1, 2, 3]);
  expect(ints(memoryAt(rec, rec.events.length, v.op === 'malloc' ? v.dst : 0n, 16))).toEqual([1, 4, 7, 10]);
}, 120_000);

run('the same program recorded twice gives the same recording (events, steps, memory at every launch)', async () => {
  const a = (await record('offbyone')).rec;
  const b = (await record('offbyone')).rec;
  const shape = (rec: ProgramRecording): unknown => rec.events.map((e) => (e.kind === 'launch'
    ? { kernel: e.kernel, steps: e.steps, site: e.site?.text, start: e.start?.regions.map((g) => [g.name, [...memoryAt(rec, e.index, 0x7f0000000000n + BigInt(g.offset), g.size)!]]) }
    : e.kind === 'host' ? { op: e.op, site: e.site?.text, writes: e.writes.map((w) => ('bytes' in w ? [w.offset, [...w.bytes]] : [w.offset, w.n, w.fill])) }
    : { stream: e.stream, text: e.text }));
  expect(shape(b)).toEqual(shape(a));
}, 120_000);

run('launch 2 reopens from the recording: its bundle runs to what the program saw (b = 2a)', async () => {
  const { rec } = await record('offbyone');
  const snap = launchSnapshotAt(rec, 2)!;
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-reopen-'));
  try {
    writeBundle(join(dir, 'bundle'), snap);
    const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'bin', 'ptxdbg.js'), 'run', join(dir, 'bundle'), '--out', join(dir, 'out')], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    // d_b is the third cudaMalloc: scale wrote 2 * (i(i+1)/2) = i(i+1)
    const b = new Uint8Array(readFileSync(join(dir, 'out', 'cudaMalloc_3.bin')));
    expect(ints(b)).toEqual([0, 2, 6, 12, 20, 30, 42, 56]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
