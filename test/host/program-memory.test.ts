/**
 * Memory across launches (#25, src/engine/program/memory.ts) in one debugging session over the
 * whole of samples/apps/timeline/offbyone.cu, built with nvcc -g (its first line) and -G (device
 * lines and variables). The host's check fails on out[5]; the bug is in the first of three
 * kernels. From finish's read of b[5] (launch 3) the session goes back through scale's write
 * (launch 2) to prefix's write of a[5] (launch 1), and on to the host cudaMemcpy that brought
 * `in` in: by `origin`, and by `watch` + `reverse-continue`.
 *
 * The session is what `ptxdbg ./offbyone --batch` runs (src/cli/program.ts): the program recorded
 * once, the engine opened on its recording (openProgramEngine over src/host/program-source.ts),
 * gdb commands run one after another on it; here in-process, so each command's output and the
 * engine's position can be asserted.
 *
 * Expected values come from the .cu source: lines by their text, launch numbers by the order of
 * the `<<<` lines, each thread from i = 5 and the launch's <<<grid, block>>>, values from the
 * kernels by hand (in[j] = j + 1, a[i] = in[0] + ... + in[i-1], b = 2a, out = b + 1).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { missingTool, ROOT, testIf } from '../helpers.js';
import { nvccBuild } from './nvcc.js';
import { Device } from '../../src/host/device.js';
import { HostLines } from '../../src/host/hostlines.js';
import { ProgramLaunches, runProgram, type RecordOptions } from '../../src/host/program.js';
import { programSource } from '../../src/host/program-source.js';
import type { HostLineLookup, ProgramRecording } from '../../src/host/recording.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/exec/machine.js';
import { type Engine, type OriginAnswer, openProgramEngine } from '../../src/engine/index.js';
import { executeCommand } from '../../src/frontends/gdb/commands.js';
import { findWriter, memorySourceOf, programHistory, readGlobal } from '../../src/engine/program/memory.js';
import { ProgramTimeline } from '../../src/engine/program/timeline.js';

const SRC = join(ROOT, 'samples', 'apps', 'timeline', 'offbyone.cu');
const LIB = join(ROOT, 'dist', 'cudart');
const CLI = join(ROOT, 'dist', 'bin', 'ptxdbg.js');
const why = missingTool('nvcc') ?? (existsSync(join(LIB, 'libcudart.so.13')) ? null : `the ptxdbg runtime is not built (${LIB})`);
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
const who = (kernel: string, i: number): string => {
  const t = threadOf(kernel, i);
  return `launch ${launchOf(kernel)} ${kernel}, block (${t.block.join(',')}) thread (${t.thread.join(',')})`;
};
const I = 5;
const A_I = Array.from({ length: I }, (_, j) => j + 1).reduce((x, y) => x + y, 0); // in[0]+...+in[4] = 15 (21 was wanted)
const B_I = 2 * A_I;
const FINISH_LINE = lineOf('if (i < n) out[i] = b[i] + 1');
const SCALE_LINE = lineOf('if (i < n) b[i] = 2 * a[i]');
const PREFIX_LINE = lineOf('a[i] = s;');
const COPY_IN = `cudaMemcpy at offbyone.cu:${lineOf('cudaMemcpy(d_in')} in main (host, before launch 1)`;

// ---- recording, and the session ------------------------------------------------------------------

/** Host lines as `ptxdbg ./app` reads them: the program's own .debug_line. */
function hostLines(): HostLineLookup {
  const lines = new HostLines();
  return (path, address) => {
    const l = lines.at(path, address);
    return l.file !== undefined && l.line !== undefined && l.line > 0 ? { file: basename(l.file), line: l.line } : undefined;
  };
}

async function record(o: Partial<RecordOptions> = {}): Promise<ProgramRecording> {
  const device = new Device();
  const pl = new ProgramLaunches(device, {
    opts: { ...DEFAULT_RUN_OPTIONS, maxSteps: 1e8 }, threads: 1, stats: false, races: false, breaks: [], breakOnFault: false,
    capture: undefined, sanitize: undefined, record: { budget: 1 << 30, lines: hostLines(), ...o },
    say: () => {}, threadsLine: () => '', openDebugger: () => Promise.reject(new Error('no debugger here')),
  }, 'offbyone', []);
  const ended = await runProgram([join(dir, 'offbyone')], LIB, device, pl, { sanitize: false, captureOutput: true, detached: true });
  if ('notStarted' in ended) throw new Error(ended.notStarted);
  return pl.recording!;
}

/** One gdb command of the session: its output (a failed command fails the test). */
function gdb(e: Engine, line: string): string {
  const r = executeCommand(e, line);
  if (r.error) throw new Error(`${line}: ${r.output}`);
  return r.output;
}

/** The session stopped where thread i = 5 of finish (launch 3) reads b[5]. */
function atFinishRead(e: Engine): void {
  const t = threadOf('finish', I);
  gdb(e, `break offbyone.cu:${FINISH_LINE} if blockIdx.x == ${t.block[0]} && threadIdx.x == ${t.thread[0]}`);
  gdb(e, 'continue');
  expect(e.position().launch).toBe(launchOf('finish'));
  expect([e.focus().block, e.focus().thread]).toEqual([t.block, t.thread]);
  expect(e.where().line).toBe(FINISH_LINE);
}

/** The session is in launch `kernel`'s thread i = 5 at `line`. */
function expectAt(e: Engine, kernel: string, line: number): void {
  const t = threadOf(kernel, I);
  expect([e.position().launch, e.focus().block, e.focus().thread, e.where().line]).toEqual([launchOf(kernel), t.block, t.thread, line]);
}

run('origin: from finish\'s read of b[5] back two launches to prefix\'s write of a[5], and on to the host cudaMemcpy of in', async () => {
  const e = openProgramEngine(programSource(await record()));
  atFinishRead(e);
  expect(gdb(e, 'print b[i]')).toBe(`$1 = ${B_I}`);

  // launch 3 -> launch 2: scale's thread i = 5 stored b[5] = 2 * a[5]
  const o2 = gdb(e, 'origin b[i]');
  expect(o2).toMatch(new RegExp(`was last written by ${who('scale', I).replace(/[()]/g, '\\$&')} at offbyone\\.cu:${SCALE_LINE} \\(step \\d+\\): PTX \\d+ of scale: st\\.`));
  expectAt(e, 'scale', SCALE_LINE);
  expect(gdb(e, 'print a[i]')).toBe(`$2 = ${A_I}`);

  // launch 2 -> launch 1: prefix's thread i = 5 stored a[5] = 15 (the off-by-one: 21 was wanted)
  const o1 = gdb(e, 'origin a[i]');
  expect(o1).toContain(`was last written by ${who('prefix', I)} at offbyone.cu:${PREFIX_LINE} (step `);
  expectAt(e, 'prefix', PREFIX_LINE);

  // launch 1 -> the host: prefix's last input, in[4] = 5, came from the cudaMemcpy of `in`
  const oh = gdb(e, `origin in[${I - 1}]`);
  expect(oh.split('\n')[0]).toMatch(new RegExp(`was last written by ${COPY_IN.replace(/[().]/g, '\\$&')}: 0 \\(0x00000000\\) -> ${I} \\(0x0+${I}\\)$`));
  // no thread wrote it: the position goes to the copy, the 5th of main's six CUDA calls before prefix<<< (cudaMalloc x4, cudaMemcpy, cudaMemset): step -2 of launch 1
  expect(e.position()).toEqual({ launch: 1, step: -2 });
}, 300_000);

/**
 * Follow `origin ^N` back from answer `a` along the values `wants` (the value as it is computed
 * from its inputs, from the source): at each hop a memory input holding one of them (a load's
 * source), else a register holding one, the earliest listed first; until the answer is in
 * another launch or on the host.
 */
function followValue(e: Engine, a: OriginAnswer, wants: readonly number[]): OriginAnswer {
  const launch = e.position().launch;
  const valueOf = (x: { bits: bigint | undefined; bytes: Uint8Array | undefined }): bigint | undefined =>
    x.bits ?? (x.bytes ? x.bytes.reduceRight((v, b) => (v << 8n) | BigInt(b), 0n) : undefined);
  for (let hops = 0; hops < 10; hops++) {
    const inputs = a.hop!.inputs;
    const holds = (kind: string, w: number): number => inputs.findIndex((x) => x.follow?.kind === kind && valueOf(x) === BigInt(w));
    const memory = wants.map((w) => holds('memory', w)).find((i) => i >= 0);
    const i = memory ?? wants.map((w) => holds('register', w)).find((k) => k >= 0);
    if (i === undefined) throw new Error(`no input holds ${wants.join(' or ')}: ${inputs.map((x) => `${x.text}=${valueOf(x)}`).join(', ')}`);
    a = e.origin(`^${i + 1}`);
    if (!a.hop || e.position().launch !== launch) return a;
  }
  throw new Error(`still in launch ${launch} after 10 hops`);
}

run('origin ^N follows the value itself: b[5] = 30 through scale\'s multiply and load into prefix\'s store, then its input in[4] = 5 to the host copy', async () => {
  const e = openProgramEngine(programSource(await record()));
  atFinishRead(e);
  const a2 = e.origin('b[i]');
  expectAt(e, 'scale', SCALE_LINE);
  // scale: st b[i] (30) <- mul by 2 <- ld a[i] (15), whose memory input leads into launch 1
  const a1 = followValue(e, a2, [B_I, A_I]);
  expectAt(e, 'prefix', PREFIX_LINE);
  expect(a1.by).toBe(`${who('prefix', I)} at offbyone.cu:${PREFIX_LINE} (step ${e.position().step})`);
  // prefix: st a[i] = s (15) <- s + in[4] (10 + 5: the last term thread 5 added) <- ld in[4] <- the host's copy
  const ah = followValue(e, a1, [A_I, I]);
  expect(ah.hop).toBeUndefined();
  expect(ah.by).toBe(COPY_IN);
  expect([...ah.after!]).toEqual([I, 0, 0, 0]);
}, 300_000);

run('watch b[5] in launch 3 and reverse-continue: scale\'s write in launch 2; watch a[5]: prefix\'s in launch 1; watch in[4]: the host copy', async () => {
  const e = openProgramEngine(programSource(await record()));
  atFinishRead(e);
  gdb(e, 'delete');
  expect(gdb(e, 'watch b[i]')).toMatch(/^Hardware watchpoint \d+: b\[i\]/);
  const w2 = gdb(e, 'reverse-continue');
  expect(w2).toContain(`Old value = 0\nNew value = ${B_I}\nwritten by ${who('scale', I)} at offbyone.cu:${SCALE_LINE} (step `);
  expectAt(e, 'scale', SCALE_LINE);

  gdb(e, 'delete');
  gdb(e, 'watch a[i]');
  const w1 = gdb(e, 'reverse-continue');
  expect(w1).toContain(`Old value = 0\nNew value = ${A_I}\nwritten by ${who('prefix', I)} at offbyone.cu:${PREFIX_LINE} (step `);
  expectAt(e, 'prefix', PREFIX_LINE);

  gdb(e, 'delete');
  gdb(e, `watch in[${I - 1}]`);
  const wh = gdb(e, 'reverse-continue');
  expect(wh).toContain(`Old value = 0\nNew value = ${I}\nwritten by ${COPY_IN}`);
  // nothing changed in[4] before the copy (cudaMalloc's zeros over zeros are no change)
  expect(gdb(e, 'reverse-continue')).toMatch(/No more reverse-execution history/);
}, 300_000);

run('watch out[5] forward from launch 1: cudaMemset\'s zeros and launches 1, 2 leave it; finish\'s write in launch 3 stops', async () => {
  const e = openProgramEngine(programSource(await record()));
  atFinishRead(e);
  const at = /0x[0-9a-f]+/.exec(gdb(e, 'print &out[i]'))![0];
  gdb(e, 'delete');
  gdb(e, 'launch 1');
  gdb(e, `watch @global ${at} 4`);
  const w = gdb(e, 'continue');
  expect(w).toContain(`Old value = 0\nNew value = ${B_I + 1}\nafter the write by ${who('finish', I)} at offbyone.cu:${FINISH_LINE} (step `);
  expect([e.position().launch, e.focus().block, e.focus().thread]).toEqual([launchOf('finish'), threadOf('finish', I).block, threadOf('finish', I).thread]);
  // no later change: the program's end
  expect(gdb(e, 'continue')).toMatch(/exited with code 1/);
}, 300_000);

run('history a[5] spans launches: prefix\'s one write; history in[4]: the host copy', async () => {
  const e = openProgramEngine(programSource(await record()));
  atFinishRead(e);
  gdb(e, 'origin b[i]'); // into scale (launch 2), where `a` is in scope
  expect(gdb(e, 'history a[i]')).toMatch(new RegExp(`over the program:\\n  ${who('prefix', I).replace(/[()]/g, '\\$&')} at offbyone\\.cu:${PREFIX_LINE} \\(step \\d+\\): 0 -> ${A_I}$`));
  gdb(e, 'origin a[i]'); // into prefix (launch 1), where `in` is
  expect(gdb(e, `history in[${I - 1}]`)).toMatch(new RegExp(`over the program:\\n  ${COPY_IN.replace(/[().]/g, '\\$&')}: 0 -> ${I}$`));
}, 300_000);

run('memory at any place of the program: before and after the host copy, inside and after a launch; launches left alone are not re-executed', async () => {
  const source = programSource(await record());
  const e = openProgramEngine(source);
  atFinishRead(e);
  const lv = (expr: string): { offset: number; size: number } => { const v = e.evaluate(expr).lvalue!; return { offset: v.address, size: v.size }; };
  const out5 = lv('out[i]');
  // a memory view of its own (a fresh timeline: which launches it records is what is checked)
  const p = new ProgramTimeline(source);
  const opened: number[] = [];
  const mem = memorySourceOf(source, (n) => { if (!p.openSessions().has(n)) opened.push(n); return p.session(n); });
  const int = (b: Uint8Array | undefined): number | undefined => (b ? new DataView(b.buffer, b.byteOffset, 4).getInt32(0, true) : undefined);
  const copy = mem.events.find((x) => x.kind === 'host' && x.api === 'cudaMemcpy')!;
  const launch3 = mem.events.find((x) => x.kind === 'launch' && x.launch === launchOf('finish'))!;
  // out[5]: zero until finish writes b[5] + 1; finish's start and end images answer without re-executing it
  expect(int(readGlobal(mem, { kind: 'host', index: copy.index }, out5.offset, 4))).toBe(0);
  expect(int(readGlobal(mem, { kind: 'launch', launch: launchOf('finish'), step: 0 }, out5.offset, 4))).toBe(0);
  expect(int(readGlobal(mem, { kind: 'host', index: launch3.index + 1 }, out5.offset, 4))).toBe(B_I + 1);
  expect(opened).toEqual([]);
  // inside finish: 0 before thread 5's write, B_I + 1 after it
  const w = findWriter(mem, out5, { kind: 'host', index: 0 }, 'forward')!;
  expect(opened).toEqual([launchOf('finish')]); // prefix and scale left out[5] as it was: their images agree there
  expect(w.kind === 'device' && [w.launch, w.thread]).toEqual([launchOf('finish'), threadOf('finish', I).thread]);
  if (w.kind !== 'device') return;
  expect(int(readGlobal(mem, { kind: 'launch', launch: w.launch, step: w.step }, out5.offset, 4))).toBe(0);
  expect(int(readGlobal(mem, { kind: 'launch', launch: w.launch, step: w.step + 1 }, out5.offset, 4))).toBe(B_I + 1);
  // history names threads for the last launches only (here none asked): finish as a launch, from its images
  expect(programHistory(mem, out5, 1000, 0).map((x) => (x.kind === 'launch' ? [x.event.launch, int(x.before), int(x.after)] : x.kind)))
    .toEqual([[launchOf('finish'), 0, B_I + 1]]);
}, 300_000);

run('the Engine API as DAP uses it: a data breakpoint on b[5], continue backward lands on scale\'s write in launch 2; replacing it removes it', async () => {
  const e = openProgramEngine(programSource(await record()));
  atFinishRead(e);
  gdb(e, 'delete');
  const [r] = e.setWatchpoints([{ expression: 'b[i]', kind: 'write' }]);
  expect(r!.verified).toBe(true);
  expect(e.watchpoints().map((w) => [w.id, w.expr])).toEqual([[r!.id, 'b[i]']]);
  const stop = e.continue({ direction: 'backward' });
  expect([stop.reason, stop.hit]).toEqual(['watchpoint', { kind: 'watchpoint', id: r!.id, access: 'write' }]);
  expect(stop.position.launch).toBe(launchOf('scale'));
  expectAt(e, 'scale', SCALE_LINE);
  e.setWatchpoints([]);
  expect(e.watchpoints()).toEqual([]);
}, 300_000);

run('--record finish: the writer of b[5] is launch 2 as a whole, not recorded', async () => {
  const e = openProgramEngine(programSource(await record({ kernels: ['finish'] })));
  atFinishRead(e);
  expect(gdb(e, 'origin b[i]').split('\n')[0]).toMatch(new RegExp(`was last written by launch 2 scale, not recorded \\(.*\\): 0 \\(0x00000000\\) -> ${B_I} \\(0x0+1e\\)$`));
  gdb(e, 'delete');
  gdb(e, 'watch b[i]');
  expect(gdb(e, 'reverse-continue')).toContain(`New value = ${B_I}\nwritten by launch 2 scale, not recorded`);
}, 300_000);

run('ptxdbg ./offbyone --batch: from the host\'s wrong out[5] back to prefix\'s line and thread, and on to the host copy of its input', () => {
  const t = threadOf('finish', I);
  const commands = [
    `break offbyone.cu:${FINISH_LINE} if blockIdx.x == ${t.block[0]} && threadIdx.x == ${t.thread[0]}`, 'continue',
    'print b[i]', 'origin b[i]', 'print a[i]', 'origin a[i]', `origin in[${I - 1}]`,
  ];
  const r = spawnSync(process.execPath, [CLI, './offbyone', '--batch', ...commands.flatMap((c) => ['--ex', c])], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  expect(r.status).toBe(0);
  const out = r.stdout;
  // the program's own check fails on out[5]: (i+1)(i+2) + 1 was wanted
  expect(out).toContain(`out[${I}] = ${B_I + 1}, expected ${(I + 1) * (I + 2) + 1}`);
  const launchLine = (kernel: string): string => {
    const l = launches[launchOf(kernel) - 1]!;
    return `[launch ${launchOf(kernel)} ${kernel}<<<(${l.grid},1,1),(${l.block},1,1)>>> at offbyone.cu:${lineOf(`${kernel}<<<`)} in main]`;
  };
  // in order: the stop in finish, b[5], scale's write, a[5], prefix's write, the host copy
  const expected = [
    launchLine('finish'), `$1 = ${B_I}`,
    `was last written by ${who('scale', I)} at offbyone.cu:${SCALE_LINE} (step `, launchLine('scale'), `${SCALE_LINE}\t`,
    `$2 = ${A_I}`,
    `was last written by ${who('prefix', I)} at offbyone.cu:${PREFIX_LINE} (step `, launchLine('prefix'), `${PREFIX_LINE}\t  a[i] = s;`,
    `was last written by ${COPY_IN}: 0 (0x00000000) -> ${I} (0x0000000${I})`,
  ];
  let at = 0;
  for (const x of expected) {
    const i = out.indexOf(x, at);
    expect(i >= 0 ? x : `${x}   (not found after offset ${at} of:\n${out.slice(at)})`).toBe(x);
    at = i + x.length;
  }
}, 300_000);
