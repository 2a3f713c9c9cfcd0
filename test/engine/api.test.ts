/**
 * The engine's typed API, without a front end: hit counts that mean the same hit in both
 * directions, errors by code, containers that end with the position, focus by thread id.
 * Line numbers and values come from samples/saxpy/kernel.cu and its input files.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { comparePositions, Engine, positionOf } from '../../src/engine/index.js';
import { EngineError, type ErrorCode } from '../../src/engine/errors.js';
import { ROOT } from '../helpers.js';

const SAXPY = join(ROOT, 'samples', 'saxpy');
const X = ((b: Buffer) => new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4))(readFileSync(join(SAXPY, 'in', 'x.bin')));
const open = (): Engine => Engine.open({ ptxPath: join(SAXPY, 'kernel.G.ptx') });

function codeOf(f: () => unknown): ErrorCode | undefined {
  try { f(); } catch (e) { if (e instanceof EngineError) return e.code; throw e; }
  return undefined;
}

describe('engine API', () => {
  test('a hit count names the same hit going forward, counted by hand, and going back', () => {
    const e = open();
    // by hand: the 3rd stop at line 13 with a plain breakpoint
    e.setBreakpoints('kernel.cu', [{ line: 13 }]);
    const hits = [1, 2, 3].map(() => e.continue({ direction: 'forward' }));
    expect(hits.every((h) => h.hit?.kind === 'breakpoint')).toBe(true);
    const third = hits[2]!;
    // the same with ==3: one continue from the start
    e.goto(e.start());
    const [r] = e.setBreakpoints('kernel.cu', [{ line: 13, hitCondition: '==3' }]);
    expect(r!.verified).toBe(true);
    expect(e.breakpoints()).toHaveLength(1); // the group was replaced
    const s = e.continue({ direction: 'forward' });
    expect(s.position).toEqual(third.position);
    expect(s.thread).toEqual(third.thread);
    expect(s.frame?.line).toBe(13);
    // and backward from the end: the only hit that qualifies
    e.goto(e.end());
    expect(e.continue({ direction: 'backward' }).position).toEqual(third.position);
  });

  test('errors carry codes from the catalogue', () => {
    const e = open();
    expect(codeOf(() => e.goto(e.at(-1)))).toBe('out-of-range');
    expect(codeOf(() => e.goto(e.at(e.total + 1)))).toBe('out-of-range');
    // one launch is recorded: launch 0; launch 1 does not exist
    expect(codeOf(() => e.goto(positionOf(1, 0)))).toBe('out-of-range');
    expect(codeOf(() => e.evaluate('no_such_variable'))).toBe('bad-expression');
    expect(codeOf(() => e.setFocus(0))).toBe('out-of-range');
    expect(codeOf(() => e.readMemory('nowhere', 0, 4))).toBe('bad-request');
    const [bad] = e.setBreakpoints('kernel.cu', [{ line: 13, hitCondition: 'often' }]);
    expect(bad!.verified).toBe(false);
    expect(bad!.message).toMatch(/hit count/);
    expect(codeOf(() => Engine.open({ ptxPath: join(SAXPY, 'missing.ptx') }))).toBe('read-failed');
  });

  test('focus by thread id; the warp is the thread list; containers end with the position', () => {
    const e = open();
    e.setBreakpoints('kernel.cu', [{ line: 14, condition: 'thread (37,0,0) && block (1,0,0)' }]);
    const s = e.continue({ direction: 'forward' });
    // block 1, thread 37: id = 1 * 128 + 37 + 1
    expect(s.thread).toEqual({ id: 166, block: [1, 0, 0], thread: [37, 0, 0] });
    expect(e.threads().map((t) => t.thread[0])).toEqual(Array.from({ length: 32 }, (_, k) => 32 + k));
    expect(Number(e.evaluate('xi').value)).toBe(X[165]);
    expect(e.evaluate('i').value).toBe('165');
    const scopes = e.scopes(0);
    const regs = scopes.find((x) => x.name === 'Registers')!;
    expect(e.variables(regs.containerId).length).toBe(regs.count);
    e.step({ granularity: 'line', direction: 'forward' });
    expect(codeOf(() => e.variables(regs.containerId))).toBe('out-of-range');
    e.setFocus(1);
    expect(e.focus()).toEqual({ id: 1, block: [0, 0, 0], thread: [0, 0, 0] });
  });

  test('history and origin: the write of y[5] by thread 5 of block 0, at line 15', () => {
    const e = open();
    e.setBreakpoints('kernel.cu', [{ line: 13 }]);
    e.continue({ direction: 'forward' });
    const Y = ((b: Buffer) => new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4))(readFileSync(join(SAXPY, 'in', 'y.bin')));
    const h = e.history('y[5]');
    // y[i] = a * x[i] + y[i] writes y[5] once, from block 0 thread 5
    expect(h).toHaveLength(1);
    expect(h[0]!.thread.block).toEqual([0, 0, 0]);
    expect(h[0]!.thread.thread).toEqual([5, 0, 0]);
    expect(h[0]!.line).toBe(15);
    expect(Math.fround(Number(h[0]!.before))).toBe(Y[5]);
    expect(Math.fround(Number(h[0]!.after))).toBe(Math.fround(Math.fround(2.5 * X[5]!) + Y[5]!));
    expect(e.lastWrite('y[5]')).toBeUndefined(); // not written yet at the first breakpoint
    e.goto(e.at(h[0]!.position.step + 1)); // just after the write (the focused warp is still resident)
    expect(e.lastWrite('y[5]')?.position).toEqual(h[0]!.position);
  });
});


describe('positions on the program timeline', () => {
  test('order by launch, then by warp-step; a move reports where it landed', () => {
    expect(comparePositions(positionOf(0, 5), positionOf(0, 7))).toBeLessThan(0);
    expect(comparePositions(positionOf(1, 0), positionOf(0, 900))).toBeGreaterThan(0);
    expect(comparePositions(positionOf(2, 3), positionOf(2, 3))).toBe(0);
    const e = open();
    expect(e.goto(e.at(4)).position).toEqual(positionOf(0, 4));
    expect(e.position()).toEqual(positionOf(0, 4));
    expect(e.end()).toEqual(positionOf(0, e.total));
  });
});
