/**
 * Memory across launches (#25, src/engine/program/memory.ts) on samples/apps/timeline/offbyone.cu,
 * built with nvcc -g -G (host lines for the call sites, device lines and variables for the
 * kernels). The host's check fails on out[5]; the bug is in the first of three kernels. From
 * finish's read of b[5] (launch 3) the session goes back through scale's write (launch 2) to
 * prefix's write of a[5] (launch 1), and on to the host cudaMemcpy that brought `in` in.
 *
 * Expected values come from the .cu source: lines by their text, launch numbers by the order of
 * the `<<<` lines, each thread from i = 5 and the launch's <<<grid, block>>>, values from the
 * kernels by hand (in[j] = j + 1, a[i] = in[0] + ... + in[i-1], b = 2a, out = b + 1).
 *
 * The program-level CLI (`ptxdbg ./app --batch`) and Engine are the timeline's (a parallel
 * task): this test drives the launches' engines and the memory module directly, through the
 * adapter below from the host's recording to the module's source interface.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { missingTool, ROOT, testIf } from '../helpers.js';
import { nvccBuild } from './nvcc.js';
import { Device, WINDOW_BASE } from '../../src/host/device.js';
import { ProgramLaunches, runProgram, type RecordOptions } from '../../src/host/program.js';
import { launchAt, launchSnapshotAt, memoryAt, readImage, type HostLineLookup, type ProgramRecording } from '../../src/host/recording.js';
import { writeBundle } from '../../src/host/bundle.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/exec/machine.js';
import { type Engine, openEngine } from '../../src/engine/index.js';
import {
  findWriter, gotoWriter, type MemoryEvent, programHistory, programOrigin, programOriginText, type ProgramMemorySource, type ProgramWriter, readGlobal, watchStopText,
} from '../../src/engine/program/memory.js';

const SRC = join(ROOT, 'samples', 'apps', 'timeline', 'offbyone.cu');
const LIB = join(ROOT, 'dist', 'cudart');
const why = missingTool('nvcc') ?? missingTool('addr2line') ?? (existsSync(join(LIB, 'libcudart.so.13')) ? null : `the ptxdbg runtime is not built (${LIB})`);
const run = testIf(why);

let dir: string;
beforeAll(async () => {
  if (why) return;
  dir = mkdtempSync(join(tmpdir(), 'ptxdbg-tmem-'));
  // the sample's own flags (its first line) and -G for device lines and variables
  const flags = /^\/\/ nvcc-flags:(.*)$/m.exec(readFileSync(SRC, 'utf8'))![1]!.trim().split(/\s+/);
  const err = await nvccBuild(SRC, join(dir, 'offbyone'), [...flags, '-G']);
  if (err) throw new Error(`nvcc failed: ${err}`);
}, 600_000);
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

// ---- what the source says ------------------------------------------------------------------------

const source = readFileSync(SRC, 'utf8').split('\n');
/** The 1-based line holding `text` (exactly one). */
function lineOf(text: string): number {
  const at = source.flatMap((l, i) => (l.includes(text) ? [i + 1] : []));
  if (at.length !== 1) throw new Error(`${at.length} lines hold ${text}`);
  return at[0]!;
}
/** The launches in source order (main makes them once each, in order): kernel, grid, block. */
const launches = source.flatMap((l) => {
  const m = /(\w+)<<<(\d+), (\d+)>>>/.exec(l);
  return m ? [{ kernel: m[1]!, grid: Number(m[2]), block: Number(m[3]) }] : [];
});
const launchOf = (kernel: string): number => launches.findIndex((l) => l.kernel === kernel) + 1;
/** Block and thread of global index i in a launch of `kernel` (1-D: i = blockIdx.x * blockDim.x + threadIdx.x). */
const threadOf = (kernel: string, i: number): { block: number[]; thread: number[] } => {
  const b = launches[launchOf(kernel) - 1]!.block;
  return { block: [Math.floor(i / b), 0, 0], thread: [i % b, 0, 0] };
};
const I = 5;
const A_I = Array.from({ length: I }, (_, j) => j + 1).reduce((x, y) => x + y, 0); // in[0]+...+in[4] = 15
const B_I = 2 * A_I;

// ---- recording and the adapter -------------------------------------------------------------------

const addr2line: HostLineLookup = (path, address) => {
  const r = spawnSync('addr2line', ['-e', path, `0x${address.toString(16)}`], { encoding: 'utf8' });
  const m = /^(.*):(\d+)/.exec(r.stdout.trim());
  return m && m[1] !== '??' ? { file: basename(m[1]!), line: Number(m[2]) } : undefined;
};

async function record(o: Partial<RecordOptions> = {}): Promise<ProgramRecording> {
  const device = new Device();
  const launches = new ProgramLaunches(device, {
    opts: { ...DEFAULT_RUN_OPTIONS, maxSteps: 1e8 }, threads: 1, stats: false, races: false, breaks: [], breakOnFault: false,
    capture: undefined, sanitize: undefined, record: { budget: 1 << 30, lines: addr2line, ...o },
    say: () => {}, threadsLine: () => '', openDebugger: () => Promise.reject(new Error('no debugger here')),
  }, 'offbyone', []);
  const ended = await runProgram([join(dir, 'offbyone')], LIB, device, launches, { sanitize: false, captureOutput: true });
  if ('notStarted' in ended) throw new Error(ended.notStarted);
  return launches.recording!;
}

/** The recording as the memory module reads it; a launch's engine opens on its bundle (what `exec --break` opens). */
function memorySource(rec: ProgramRecording, tag: string): ProgramMemorySource & { opened: number[] } {
  const engines = new Map<number, Engine>();
  const opened: number[] = [];
  const events: MemoryEvent[] = rec.events.flatMap((e): MemoryEvent[] => e.kind === 'host'
    ? [{ kind: 'host', index: e.index, api: e.site?.api ?? e.op.op, site: e.site?.text, after: e.after, writes: e.writes }]
    : e.kind === 'launch' ? [{ kind: 'launch', index: e.index, launch: e.launch, kernel: e.kernel, recorded: e.start !== undefined }] : []);
  return {
    events,
    opened,
    image: (l, which, offset, n) => { const img = launchAt(rec, l)?.[which]; return img ? readImage(img, offset, n) : undefined; },
    memoryBefore: (i, offset, n) => memoryAt(rec, i, WINDOW_BASE + BigInt(offset), n),
    engine: (l) => {
      if (!engines.has(l)) {
        const snap = launchSnapshotAt(rec, l);
        if (!snap) return undefined;
        const d = join(dir, `${tag}-launch${l}`);
        mkdirSync(d, { recursive: true });
        writeBundle(d, snap);
        opened.push(l);
        engines.set(l, openEngine({ ptxPath: join(d, 'kernel.ptx'), launch: join(d, 'launch.json') }));
      }
      return engines.get(l);
    },
  };
}

const int = (b: Uint8Array | undefined): number | undefined => (b ? new DataView(b.buffer, b.byteOffset, 4).getInt32(0, true) : undefined);
const fmt = (b: Uint8Array): string => String(int(b));

/** Launch 3 stopped where thread i = 5 of finish reads b[5]. */
function atFinishRead(src: ProgramMemorySource): Engine {
  const e = src.engine(launchOf('finish'))!;
  const t = threadOf('finish', I);
  e.breakAt(`offbyone.cu:${lineOf('if (i < n) out[i] = b[i] + 1')} if blockIdx.x == ${t.block[0]} && threadIdx.x == ${t.thread[0]}`);
  const stop = e.continue({ direction: 'forward' });
  expect(stop.reason).toBe('breakpoint');
  expect(stop.thread.block).toEqual(t.block);
  expect(stop.thread.thread).toEqual(t.thread);
  return e;
}

const rangeOf = (e: Engine, expr: string): { offset: number; size: number } => {
  const lv = e.evaluate(expr).lvalue!;
  expect(lv.space).toBe('global');
  return { offset: lv.address, size: lv.size };
};

run('origin from finish\'s read of b[5] goes back two launches to prefix\'s write of a[5], then to the host cudaMemcpy of in', async () => {
  const src = memorySource(await record(), 'origin');
  const e3 = atFinishRead(src);
  expect(e3.evaluate('b[i]').value).toBe(String(B_I));

  // launch 3 -> launch 2: scale's thread i = 5 wrote b[5]
  const o2 = programOrigin(src, launchOf('finish'), 'b[i]');
  expect(o2.kind).toBe('device');
  if (o2.kind !== 'device') return;
  expect(o2.launch).toBe(launchOf('scale'));
  expect(o2.answer.stop.thread.block).toEqual(threadOf('scale', I).block);
  expect(o2.answer.stop.thread.thread).toEqual(threadOf('scale', I).thread);
  expect(o2.engine.where().line).toBe(lineOf('if (i < n) b[i] = 2 * a[i]'));
  // the hop is scale's store, with the value it stored (2 * a[5]) among its inputs
  expect(programOriginText(o2)).toMatch(new RegExp(`^In launch 2 scale: .* was last written by PTX \\d+ of _Z5scalePKiPii: st\\.[^\\n]*\\n(.*\\n)*  \\^\\d  %r\\d+ = ${B_I} \\(`));

  // launch 2 -> launch 1: prefix's thread i = 5 wrote a[5] = 15 (the off-by-one: 21 was wanted)
  expect(o2.engine.evaluate('a[i]').value).toBe(String(A_I));
  const o1 = programOrigin(src, launchOf('scale'), 'a[i]');
  expect(o1.kind).toBe('device');
  if (o1.kind !== 'device') return;
  expect(o1.launch).toBe(launchOf('prefix'));
  expect(o1.answer.stop.thread.block).toEqual(threadOf('prefix', I).block);
  expect(o1.answer.stop.thread.thread).toEqual(threadOf('prefix', I).thread);
  expect(o1.engine.where().line).toBe(lineOf('a[i] = s;'));
  expect(o1.engine.where().function).toMatch(/prefix/);

  // launch 1 -> the host: prefix's input in[4] (the last one thread 5 added) came from the cudaMemcpy
  const oh = programOrigin(src, launchOf('prefix'), `in[${I - 1}]`);
  expect(oh.kind).toBe('host');
  if (oh.kind !== 'host' || oh.writer.kind !== 'host') return;
  expect(oh.writer.event.api).toBe('cudaMemcpy');
  expect(oh.writer.event.site).toBe(`offbyone.cu:${lineOf('cudaMemcpy(d_in')} in main`);
  expect(int(oh.writer.before)).toBe(0); // cudaMalloc's memory here starts zeroed
  expect(int(oh.writer.after)).toBe(I); // in[4] = 4 + 1
  expect(programOriginText(oh, fmt)).toBe(`${oh.what} was last written by cudaMemcpy at offbyone.cu:${lineOf('cudaMemcpy(d_in')} in main (host, before launch 1): 0 -> ${I}`);
}, 300_000);

run('watch b[5] in launch 3, reverse-continue: scale\'s write in launch 2; watch a[5]: prefix\'s in launch 1; watch in[4]: the host copy', async () => {
  const rec = await record();
  const src = memorySource(rec, 'watch');
  const e3 = atFinishRead(src);
  const b5 = rangeOf(e3, 'b[i]');
  const w2 = findWriter(src, b5, { kind: 'launch', launch: 3, step: e3.position().step }, 'backward')!;
  expect(w2.kind).toBe('device');
  if (w2.kind !== 'device') return;
  expect([w2.launch, w2.block, w2.thread, basename(w2.file ?? ''), w2.line, int(w2.before), int(w2.after)])
    .toEqual([launchOf('scale'), threadOf('scale', I).block, threadOf('scale', I).thread, 'offbyone.cu', lineOf('if (i < n) b[i] = 2 * a[i]'), 0, B_I]);
  const t2 = threadOf('scale', I);
  expect(watchStopText(2, 'b[i]', w2, 'backward', fmt)).toBe(
    `Hardware watchpoint 2: b[i]\n\nOld value = 0\nNew value = ${B_I}\nwritten by launch 2 scale, block (${t2.block.join(',')}) thread (${t2.thread.join(',')}) at offbyone.cu:${lineOf('if (i < n) b[i] = 2 * a[i]')} (step ${w2.step})`);
  const e2 = gotoWriter(src, w2, 'backward');
  expect(e2.where().line).toBe(lineOf('if (i < n) b[i] = 2 * a[i]'));

  const a5 = rangeOf(e2, 'a[i]');
  const w1 = findWriter(src, a5, { kind: 'launch', launch: 2, step: e2.position().step }, 'backward')!;
  expect(w1.kind === 'device' && [w1.launch, w1.block, w1.thread, w1.line, int(w1.after)])
    .toEqual([launchOf('prefix'), threadOf('prefix', I).block, threadOf('prefix', I).thread, lineOf('a[i] = s;'), A_I]);
  const e1 = gotoWriter(src, w1 as ProgramWriter & { kind: 'device' }, 'backward');
  expect(e1.where().line).toBe(lineOf('a[i] = s;'));

  const in4 = rangeOf(e1, `in[${I - 1}]`);
  const wh = findWriter(src, in4, { kind: 'launch', launch: 1, step: e1.position().step }, 'backward')!;
  expect(wh.kind === 'host' && [wh.event.api, wh.event.site, int(wh.after)]).toEqual(['cudaMemcpy', `offbyone.cu:${lineOf('cudaMemcpy(d_in')} in main`, I]);
  // nothing changed in[4] before the copy (cudaMalloc's zeros over zeros are no change)
  expect(findWriter(src, in4, { kind: 'host', index: wh.kind === 'host' ? wh.event.index : 0 }, 'backward')).toBeUndefined();

  // forward from the program's start on out[5]: cudaMemset writes zeros over zeros (no change), so finish's write is first
  const out5 = rangeOf(e3, 'out[i]');
  const wf = findWriter(src, out5, { kind: 'host', index: 0 }, 'forward')!;
  expect(wf.kind === 'device' && [wf.launch, wf.block, wf.thread, wf.line, int(wf.after)])
    .toEqual([launchOf('finish'), threadOf('finish', I).block, threadOf('finish', I).thread, lineOf('if (i < n) out[i] = b[i] + 1'), B_I + 1]);
  // launches 1 and 2 left out[5] as it was (their images agree there): only launch 3 is re-executed
  const fresh = memorySource(rec, 'fresh');
  expect(int(findWriter(fresh, out5, { kind: 'host', index: 0 }, 'forward')?.after)).toBe(B_I + 1);
  expect(fresh.opened).toEqual([launchOf('finish')]);
  // and memory at any point: out[5] before finish ran, and after
  expect(int(readGlobal(src, { kind: 'launch', launch: 3, step: 0 }, out5.offset, 4))).toBe(0);
  expect(int(readGlobal(src, { kind: 'host', index: src.events[src.events.length - 1]!.index }, out5.offset, 4))).toBe(B_I + 1);
}, 300_000);

run('history a[5] spans launches: prefix\'s one write in launch 1; history in[4]: the host copy', async () => {
  const src = memorySource(await record(), 'history');
  // a[5] named through scale's parameter `a` in launch 2 (prefix's `a` is the same buffer)
  const e2 = src.engine(launchOf('scale'))!;
  e2.setFocus({ block: threadOf('scale', I).block as [number, number, number], thread: threadOf('scale', I).thread as [number, number, number] });
  const a5 = rangeOf(e2, `a[${I}]`);
  const h = programHistory(src, a5);
  expect(h.map((w) => (w.kind === 'device' ? [w.launch, w.thread, w.line, int(w.before), int(w.after)] : w.kind)))
    .toEqual([[launchOf('prefix'), threadOf('prefix', I).thread, lineOf('a[i] = s;'), 0, A_I]]);
  // in[4]: only the host's copy changed it (no kernel writes `in`)
  const e1 = src.engine(launchOf('prefix'))!;
  const h4 = programHistory(src, rangeOf(e1, `in[${I - 1}]`));
  expect(h4.map((w) => (w.kind === 'host' ? [w.event.api, w.event.site, int(w.before), int(w.after)] : w.kind)))
    .toEqual([['cudaMemcpy', `offbyone.cu:${lineOf('cudaMemcpy(d_in')} in main`, 0, I]]);
}, 300_000);

run('--record finish: the writer of b[5] is launch 2 as a whole, not recorded', async () => {
  const src = memorySource(await record({ kernels: ['finish'] }), 'partial');
  atFinishRead(src);
  const o = programOrigin(src, launchOf('finish'), 'b[i]');
  expect(o.kind).toBe('launch');
  expect(programOriginText(o, fmt)).toBe(`${o.kind === 'launch' ? o.what : ''} was last written by launch 2 scale, not recorded (its threads were not kept: record it to see which one): 0 -> ${B_I}`);
}, 300_000);
