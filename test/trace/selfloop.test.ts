/**
 * A recorded loop of one block (src/exec/block/selfloop.ts runs it lane by lane while recording
 * too): the step log holds each iteration's steps, and `goto` into the middle of an iteration
 * shows the registers a hand computation gives. The kernel: per iteration i (from 0),
 * r4 = 3 * r3; r3 = r4 + i; r4 = r3 ^ 0x55; r3 = r3 + r4; f2 = f2 * 0.5 + tid; r2 = i + 1;
 * p1 = r2 < n; @p1 bra. 6 instructions before the loop (pcs 0-5), the loop at pcs 6-13 (8 steps
 * an iteration), 6 after it (pcs 14-19).
 */
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { SELF_LOOP } from '../../src/exec/block/selfloop.js';
import { loadPtx } from '../../src/ptx/index.js';
import { Trace } from '../../src/trace/trace.js';
import { byHand, loopPtx } from '../exec/selfloop-kernel.js';

const PTX = loopPtx('');

const TRIPS = 40;
const PER_WARP = 6 + 8 * TRIPS + 6;

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);
const bits = (f: number): number => { F32[0] = f; return U32[0]!; };

/** Two warps: 32 threads and 16. */
function machine(blocks: boolean, schedule: 'rr' | 'random' = 'rr'): Machine {
  const program = loadPtx(PTX, 'loop.ptx').program!;
  return new Machine(program, {
    kernel: 'k', grid: [1, 1, 1], block: [48, 1, 1], sharedBytes: 0,
    args: [{ kind: 'buffer', name: 'out', type: 'u32', count: 96, init: undefined, file: undefined }, { kind: 'scalar', name: 'n', type: 'u32', value: TRIPS }],
  }, { ...DEFAULT_RUN_OPTIONS, blocks, schedule, seed: 3 });
}

/** Register `name` of lane `lane` of warp `warp`, as its 32-bit word. */
function reg(m: Machine, warp: number, name: string, lane: number): number {
  const w = m.resident[0]!.warps[warp]!;
  const slot = w.frame.fn.prog.regs.find((r) => r.name === name)!.slot;
  return w.frame.u32[slot * 64 + 2 * lane]!;
}

/** Instruction (pc in the kernel) of a warp's k-th step. */
const pcOf = (k: number): number => (k < 6 ? k : k < 6 + 8 * TRIPS ? 6 + ((k - 6) % 8) : 14 + k - 6 - 8 * TRIPS);

describe('a recorded loop of one block', () => {
  // interval 100: checkpoint boundaries fall inside iterations (the loop's turns are cut there)
  test.each([64, 100])('the step log holds every iteration, step by step (checkpoint interval %i)', (interval) => {
    const runs = SELF_LOOP.runs;
    const m = machine(true);
    const t = Trace.record(m, { interval });
    expect(SELF_LOOP.runs - runs).toBeGreaterThan(0);
    expect(t.total).toBe(2 * PER_WARP);
    const g = m.fn('k')!.gbase;
    // round robin, 256 steps a turn: warp 0 (mask of 32 lanes), warp 1 (16 lanes), then the rest of each
    const expected: [number, number, number][] = [];
    for (const [warp, from, to] of [[0, 0, 256], [1, 0, 256], [0, 256, PER_WARP], [1, 256, PER_WARP]] as const) {
      for (let k = from; k < to; k++) expected.push([g + pcOf(k), warp === 0 ? -1 : 0xffff, warp]);
    }
    for (let s = 0; s < t.total; s++) {
      const got: [number, number, number] = [t.log.loc(s), t.log.mask(s), t.log.warpAt(s)];
      if (got.join() !== expected[s]!.join()) throw new Error(`step ${s}: ${got.join()} instead of ${expected[s]!.join()}`);
    }
  });

  test('goto into the middle of an iteration shows the values by hand', () => {
    const t = Trace.record(machine(true), { interval: 64 });
    const m = t.machine;
    // warp 0: the prologue, 3 iterations, then the mul and the first add of the 4th
    t.goto(6 + 3 * 8 + 2);
    for (const lane of [0, 7, 31]) {
      const h = byHand(lane, 3);
      const r4 = Math.imul(h.r3, 3) >>> 0;
      expect([reg(m, 0, '%r2', lane), reg(m, 0, '%r3', lane), reg(m, 0, '%r4', lane), reg(m, 0, '%f2', lane)]).toEqual([3, (r4 + 3) >>> 0, r4, bits(h.f2)]);
    }
    // warp 1 (its first turn starts at step 256): the prologue, 5 iterations, 4 instructions of the 6th
    t.goto(256 + 6 + 5 * 8 + 4);
    for (const lane of [0, 15]) {
      const tid = 32 + lane, h5 = byHand(tid, 5), h6 = byHand(tid, 6);
      expect([reg(m, 1, '%r2', lane), reg(m, 1, '%r3', lane), reg(m, 1, '%r4', lane), reg(m, 1, '%f2', lane)]).toEqual([5, h6.r3, h6.r4, bits(h5.f2)]);
    }
    // back again, into warp 0's second turn: 36 iterations done (6 + 36 * 8 = 294 steps), then 5 instructions
    t.goto(512 + (6 + 36 * 8 + 5 - 256));
    const h37 = byHand(3, 37);
    expect([reg(m, 0, '%r2', 3), reg(m, 0, '%r3', 3), reg(m, 0, '%r4', 3), reg(m, 0, '%f2', 3)]).toEqual([36, h37.r3, h37.r4, bits(h37.f2)]);
  });

  test('the recording is the per-instruction path\'s, under the random schedule too', () => {
    for (const schedule of ['rr', 'random'] as const) {
      const runs = SELF_LOOP.runs;
      const a = Trace.record(machine(true, schedule), { interval: 100 });
      expect(SELF_LOOP.runs - runs).toBeGreaterThan(0);
      const b = Trace.record(machine(false, schedule), { interval: 100 });
      expect(a.total).toBe(b.total);
      expect(Array.from(a.log.chunk(0))).toEqual(Array.from(b.log.chunk(0)));
      expect(a.log.bytes()).toBe(b.log.bytes());
    }
  });
});
