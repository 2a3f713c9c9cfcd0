/**
 * The program timeline in the engine, without nvcc or a runtime (issue #25): a made-up program
 * of four launches over two samples' PTX (saxpy, origin_flow's flow), the second left unrecorded,
 * with host events between them. Expected stops come from the samples' launch files and CUDA
 * sources (grid x block, hence warps; the line of each kernel's first statement).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { comparePositions, Engine, EngineError, openProgramEngine, positionOf, type ProgramSource, type Position, type StopEvent } from '../../src/engine/index.js';
import { loadPtx } from '../../src/ptx/index.js';
import { readLaunchFile } from '../../src/exec/launch.js';
import { SHORT_KEPT } from '../../src/engine/program/timeline.js';
import { ROOT } from '../helpers.js';

const SAXPY = join(ROOT, 'samples', 'saxpy');
const FLOW = join(ROOT, 'samples', 'origin_flow');
const ptx = (dir: string): string => readFileSync(join(dir, 'kernel.G.ptx'), 'utf8');

/** The 1-based line of a sample's kernel.cu holding `text` (the first). */
const lineOf = (dir: string, text: string): number => readFileSync(join(dir, 'kernel.cu'), 'utf8').split('\n').findIndex((l) => l.includes(text)) + 1;

/** Launches: 1 saxpy, 2 flow (unrecorded), 3 flow, 4 saxpy; a malloc and a copy before 1, a copy after 4. */
function source(): ProgramSource {
  const mods = [{ label: 'saxpy', ptx: ptx(SAXPY), dir: SAXPY }, { label: 'flow', ptx: ptx(FLOW), dir: FLOW }];
  const plan = [[0, true], [1, false], [1, true], [0, true]] as const;
  const launchOf = (m: number) => readLaunchFile(join(mods[m]!.dir, 'launch.json'), loadPtx(mods[m]!.ptx, 'k.ptx', { lazy: true }).program!);
  const launches = plan.map(([m, recorded], i) => {
    const l = launchOf(m);
    return { index: i + 1, kernel: l.kernel, module: m, grid: l.grid, block: l.block, site: `app.cu:${40 + i} in main`, steps: 100, recorded };
  });
  return {
    app: '/tmp/app', args: [], launches, modules: mods,
    events: [
      { kind: 'host', event: 0, api: 'cudaMalloc', op: 'malloc', site: 'app.cu:30 in main', writes: [] },
      { kind: 'host', event: 1, api: 'cudaMemcpy', op: 'write', site: 'app.cu:31 in main', writes: [] },
      ...launches.map((l, i) => ({ kind: 'launch' as const, event: 2 + i, launch: l.index })),
      { kind: 'output', event: 6, stream: 'stdout', text: 'done\n' },
    ],
    start: (n) => {
      const l = launches[n - 1];
      if (!l?.recorded) return undefined;
      return { ptxPath: join(mods[l.module]!.dir, 'kernel.G.ptx'), ptxText: mods[l.module]!.ptx, launch: launchOf(l.module) };
    },
    memoryAt: () => undefined, exitCode: 0, stopped: undefined,
  };
}

/** `n` launches of saxpy, all recorded, each from the sample's launch file (its inputs). */
function saxpyProgram(n: number): ProgramSource {
  const mod = { label: 'saxpy', ptx: ptx(SAXPY) };
  const launchOf = () => readLaunchFile(join(SAXPY, 'launch.json'), loadPtx(mod.ptx, 'k.ptx', { lazy: true }).program!);
  const l0 = launchOf();
  const launches = Array.from({ length: n }, (_, i) => ({ index: i + 1, kernel: l0.kernel, module: 0, grid: l0.grid, block: l0.block, site: `app.cu:${40 + i} in main`, steps: 100, recorded: true }));
  return {
    app: '/tmp/app', args: [], launches, modules: [mod],
    events: launches.map((l, i) => ({ kind: 'launch' as const, event: i, launch: l.index })),
    start: (k) => (k >= 1 && k <= n ? { ptxPath: join(SAXPY, 'kernel.G.ptx'), ptxText: mod.ptx, launch: launchOf() } : undefined),
    memoryAt: () => undefined, exitCode: 0, stopped: undefined,
  };
}

const floats = (file: string): Float32Array => ((b: Buffer) => new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4))(readFileSync(join(SAXPY, 'in', file)));

const where = (s: StopEvent): [number, string | undefined, number | undefined] => [s.position.launch, s.frame?.function, s.frame?.line];

describe('program timeline (engine)', () => {
  // saxpy: grid 2 x block 128 = 8 warps; flow: 1 x 64 = 2 warps; a breakpoint stops once per warp
  const flowLine = lineOf(FLOW, 'int t = threadIdx.x;');

  test('launches in order, the unrecorded one without warp-steps; the engine opens in launch 1 at step 0', () => {
    const e = openProgramEngine(source());
    expect(e.isProgram).toBe(true);
    expect(e.position()).toEqual(positionOf(1, 0));
    expect(e.launches().map((l) => [l.index, l.kernel, l.grid, l.block, l.site, l.steps === undefined])).toEqual([
      [1, 'saxpy', [2, 1, 1], [128, 1, 1], 'app.cu:40 in main', false],
      [2, 'flow', [1, 1, 1], [64, 1, 1], 'app.cu:41 in main', true],
      [3, 'flow', [1, 1, 1], [64, 1, 1], 'app.cu:42 in main', false],
      [4, 'saxpy', [2, 1, 1], [128, 1, 1], 'app.cu:43 in main', false],
    ]);
  });

  test('a breakpoint in another module is pending, then hit in the next recorded launch that runs it; continue and reverse-continue cross launches', () => {
    const e = openProgramEngine(source());
    const bp = e.breakAt('_Z4flowPKiPi');
    expect(bp.pending).toBe(true);
    const stops = [1, 2, 3].map(() => e.continue({ direction: 'forward' }));
    // launch 2 is unrecorded: both warps of launch 3, then the program's end (launch 4 has no flow)
    expect(stops.map((s) => [s.position.launch, s.reason, s.thread.block, s.thread.thread])).toEqual([
      [3, 'breakpoint', [0, 0, 0], [0, 0, 0]], [3, 'breakpoint', [0, 0, 0], [32, 0, 0]], [4, 'end', [0, 0, 0], [0, 0, 0]],
    ]);
    // a function breakpoint stops after the prologue: flow's first statement
    expect(stops[0]!.frame?.line).toBe(flowLine);
    expect(stops[2]!.position.step).toBe(stops[2]!.total);
    const back = e.continue({ direction: 'backward' });
    expect(back.position).toEqual(stops[1]!.position);
    expect(e.breakpoints().map((b) => b.pending ?? false)).toEqual([false]); // set in launch 3, in focus
  });

  test('break_on_launch stops at each recorded launch\'s first step, forward and backward; run starts at launch 1', () => {
    const e = openProgramEngine(source());
    e.setBreakOnLaunch(true);
    const fwd = [e.run(), e.continue({ direction: 'forward' }), e.continue({ direction: 'forward' })].map((s) => s.position);
    expect(fwd).toEqual([positionOf(1, 0), positionOf(3, 0), positionOf(4, 0)]);
    const endAt = e.continue({ direction: 'forward' });
    expect(endAt.reason).toBe('end');
    const bwd = [1, 2, 3, 4].map(() => e.continue({ direction: 'backward' }).position);
    expect(bwd).toEqual([positionOf(4, 0), positionOf(3, 0), positionOf(1, 0), positionOf(1, 0)]);
  });

  test('goto any launch and step; an unrecorded or absent launch is out-of-range; host events are positions before their launch', () => {
    const e = openProgramEngine(source(), { sessions: 1 });
    const a = where(e.gotoLaunch(4, 50));
    e.gotoLaunch(1, 10);
    // one session at a time: launch 4 is recorded again, and is the same
    expect(where(e.gotoLaunch(4, 50))).toEqual(a);
    expect(e.position()).toEqual(positionOf(4, 50));
    // the session of launch 4 knows its launch: where() and the stops carry the program's position
    expect(e.where().at).toEqual(positionOf(4, 50));
    const err = (f: () => unknown): string => { try { f(); } catch (x) { if (x instanceof EngineError) return `${x.code}: ${x.message}`; throw x; } return 'no error'; };
    expect(err(() => e.gotoLaunch(2))).toMatch(/^out-of-range: launch 2 \(flow<<<\(1,1,1\),\(64,1,1\)>>>\) was not recorded/);
    expect(err(() => e.gotoLaunch(9))).toMatch(/^out-of-range: launch 9 does not exist/);
    const ev = e.programEvents();
    expect(ev.map((x) => [x.position.launch, x.position.step, x.what])).toEqual([[1, -2, 'cudaMalloc'], [1, -1, 'cudaMemcpy'], [5, -1, 'stdout']]);
    // one total order consistent with the program's: host calls, then launch 1's steps, ..., then the output
    const order: Position[] = [ev[0]!.position, ev[1]!.position, positionOf(1, 0), positionOf(4, 99), ev[2]!.position];
    for (let i = 1; i < order.length; i++) expect(comparePositions(order[i - 1]!, order[i]!)).toBeLessThan(0);
  });

  test('goto into a launch not visited yet gives the values of a goto after visiting it, and the source\'s, with more launches visited than are kept', () => {
    const n = SHORT_KEPT + 4;
    const [X, Y] = [floats('x.bin'), floats('y.bin')];
    // block 1, thread 37 (i = 165) at kernel.cu's `y[i] = axpy(...)`: xi and yi are loaded
    const storeLine = lineOf(SAXPY, 'y[i] = axpy(');
    const visited = openProgramEngine(saxpyProgram(n));
    visited.breakAt(`kernel.cu:${storeLine} if i == 165`);
    const at = visited.continue({ direction: 'forward' }).position;
    expect(at.launch).toBe(1);
    const look = (e: Engine, launch: number): [number, string, number, number] => {
      e.goto(positionOf(launch, at.step));
      e.setFocus({ block: [1, 0, 0], thread: [37, 0, 0] });
      // a float prints in 9 significant digits, enough to give back its f32 bits
      return [e.position().launch, e.evaluate('i').value, Math.fround(Number(e.evaluate('xi').value)), Math.fround(Number(e.evaluate('yi').value))];
    };
    const want = (launch: number): [number, string, number, number] => [launch, '165', X[165]!, Y[165]!];
    // a fresh engine goes straight into launches it never visited, the last first
    const fresh = openProgramEngine(saxpyProgram(n));
    for (let k = n; k >= 1; k--) expect(look(fresh, k)).toEqual(want(k));
    // every launch visited once, in order: the first ones were pushed out (recorded again on return)
    for (let k = 1; k <= n; k++) expect(look(visited, k)).toEqual(want(k));
    expect(visited.launches().length).toBe(n);
    for (const k of [1, n, 2, n - 1]) expect(look(visited, k)).toEqual(want(k));
    // the same position gives the same step's thread state in both engines
    expect(fresh.goto(positionOf(3, at.step)).position).toEqual(visited.goto(positionOf(3, at.step)).position);
  });

  test('next past a thread\'s end goes on to the next launch with a stop; a single-kernel engine is a program of one launch, numbered 0', () => {
    const e = openProgramEngine(source());
    e.breakAt('_Z5saxpyifPKfPf');
    e.gotoLaunch(1, 0);
    let s = e.continue({ direction: 'forward' });
    expect(s.position.launch).toBe(1);
    for (let i = 0; i < 50 && s.position.launch === 1; i++) s = e.step({ granularity: 'line', direction: 'forward' });
    // stepping off launch 1's thread: the next stop is saxpy's breakpoint in launch 4 (launch 3 runs flow)
    expect([s.position.launch, s.reason]).toEqual([4, 'breakpoint']);
    // the hit's timeline mark is on launch 4's timeline, where the stop is
    expect(e.marks().filter((m) => m.kind === 'breakpoint').map((m) => m.at)).toContainEqual(positionOf(4, s.position.step));
    const one = Engine.open({ ptxPath: join(SAXPY, 'kernel.G.ptx') });
    expect(one.isProgram).toBe(false);
    expect(one.where().at).toEqual(positionOf(0, 0));
    expect(one.launches().map((l) => [l.index, l.kernel, l.grid, l.block, l.steps])).toEqual([[0, 'saxpy', [2, 1, 1], [128, 1, 1], one.total]]);
    expect(() => one.setBreakOnLaunch(true)).toThrow(EngineError);
  });
});
