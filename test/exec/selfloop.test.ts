/**
 * A block that branches back to itself runs lane by lane over whole iterations
 * (src/exec/block/selfloop.ts) when the branch is uniform (recorded too: test/trace/selfloop.test.ts);
 * two lanes at a time (the first pair sets the trip count). The values are
 * derived by hand from the PTX below (integer arithmetic mod 2^32, f32 rounding), never from a run:
 * per iteration i (from 0), r4 = 3 * r3; r3 = r4 + i; r4 = r3 ^ 0x55 (the first r4 is dead: the
 * next instruction but one overwrites it, and r4 is dead at the back edge too, yet a stop after an
 * iteration shows the second value); r3 = r3 + r4; f2 = f2 * 0.5 + tid; r2 = i + 1.
 */
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { blockTable } from '../../src/exec/block/table.js';
import { SELF_LOOP } from '../../src/exec/block/selfloop.js';
import { loadPtx } from '../../src/ptx/index.js';
import { stateHash } from '../../src/trace/hash.js';
import { byHand, loopPtx } from './selfloop-kernel.js';

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

function machine(ptx: string, threads: number, n: number, blocks: boolean): Machine {
  const program = loadPtx(ptx, 'loop.ptx').program!;
  return new Machine(program, {
    kernel: 'k', grid: [1, 1, 1], block: [threads, 1, 1], sharedBytes: 0,
    args: [{ kind: 'buffer', name: 'out', type: 'u32', count: 2 * threads, init: undefined, file: undefined }, { kind: 'scalar', name: 'n', type: 'u32', value: n }],
  }, { ...DEFAULT_RUN_OPTIONS, blocks });
}

/** Register `name` of lane `lane` of the first warp, as its 32-bit word. */
function reg(m: Machine, name: string, lane: number): number {
  const w = m.resident[0]!.warps[0]!;
  const slot = w.frame.fn.prog.regs.find((r) => r.name === name)!.slot;
  return w.frame.u32[slot * 64 + 2 * lane]!;
}

function outputs(m: Machine, threads: number): number[] {
  const base = m.buffers[0]!.alloc.base >> 2;
  return Array.from(m.arena.bank.u32.subarray(base, base + 2 * threads));
}

function expected(threads: number, trips: (tid: number) => number): number[] {
  const out: number[] = [];
  for (let t = 0; t < threads; t++) {
    const h = byHand(t, trips(t));
    F32[0] = h.f2;
    out.push(h.r3, U32[0]!);
  }
  return out;
}

describe('a loop of one block, lane by lane', () => {
  const uniform = loopPtx('');

  test('runs lane by lane and leaves the values by hand (two warps, the second partial)', () => {
    const m = machine(uniform, 48, 40, true);
    const runs = SELF_LOOP.runs;
    m.run();
    // a quantum of 256 steps holds 31 iterations: each warp's 40 take at least two turns of the loop
    expect(SELF_LOOP.runs - runs).toBeGreaterThanOrEqual(4);
    expect(m.fault).toBeUndefined();
    expect(outputs(m, 48)).toEqual(expected(48, () => 40));
    const loop = blockTable(m.fn('k')!).at[6];
    expect(loop?.loop()).not.toBeNull();
    // 6 prologue + 40 * 8 loop + 6 epilogue per warp
    const off = machine(uniform, 48, 40, false);
    off.run();
    expect([m.warpSteps, m.threadInstructions, stateHash(m)]).toEqual([off.warpSteps, off.threadInstructions, stateHash(off)]);
    expect(m.warpSteps).toBe(2 * (6 + 40 * 8 + 6));
  });

  test('a stop after whole iterations shows every register written in them, the dead r4 too', () => {
    const m = machine(uniform, 32, 40, true);
    // the prologue (6 steps) and three iterations (8 steps each) in one turn
    m.advance(6 + 3 * 8);
    expect(m.warpSteps).toBe(30);
    for (const lane of [0, 5, 31]) {
      const h = byHand(lane, 3);
      expect([reg(m, '%r2', lane), reg(m, '%r3', lane), reg(m, '%r4', lane)]).toEqual([h.r2, h.r3, h.r4]);
      F32[0] = h.f2;
      expect(reg(m, '%f2', lane)).toBe(U32[0]);
    }
  });

  test('a stop inside an iteration shows the dead first value of r4', () => {
    const m = machine(uniform, 32, 40, true);
    // two iterations, then the mul of the third
    m.advance(6 + 2 * 8 + 1);
    for (const lane of [0, 9, 31]) {
      const h = byHand(lane, 2);
      expect(reg(m, '%r4', lane)).toBe(Math.imul(h.r3, 3) >>> 0);
      expect(reg(m, '%r3', lane)).toBe(h.r3);
    }
  });

  test('a turn that starts and ends inside iterations is one call: the rest of one, whole ones, the start of the next', () => {
    const m = machine(uniform, 32, 40, true);
    // the prologue, two iterations, then the mul, add and xor of the third (a tail of 3)
    m.advance(6 + 2 * 8 + 3);
    expect([SELF_LOOP.head, SELF_LOOP.n, SELF_LOOP.tail]).toEqual([0, 2, 3]);
    const runs = SELF_LOOP.runs;
    // from there: the third's last add, fma, add, setp and bra (5 steps), three iterations, the mul and add of the seventh
    m.advance(6 + 2 * 8 + 3 + 5 + 3 * 8 + 2);
    expect(SELF_LOOP.runs - runs).toBe(1);
    expect([SELF_LOOP.head, SELF_LOOP.n, SELF_LOOP.tail]).toEqual([5, 3, 2]);
    // six iterations done; in the seventh (i = 6) r4 = 3 * r3, r3 = r4 + 6
    for (const lane of [0, 17, 31]) {
      const h = byHand(lane, 6);
      const r4 = Math.imul(h.r3, 3) >>> 0;
      F32[0] = h.f2;
      expect([reg(m, '%r2', lane), reg(m, '%r3', lane), reg(m, '%r4', lane), reg(m, '%f2', lane)]).toEqual([6, (r4 + 6) >>> 0, r4, U32[0]]);
    }
    // each of the 56 steps on all 32 lanes (every branch so far taken)
    expect(m.threadInstructions).toBe(32 * (6 + 2 * 8 + 3 + 5 + 3 * 8 + 2));
  });

  test('every stop holds the state of one instruction at a time', () => {
    const on = machine(uniform, 48, 40, true);
    const off = machine(uniform, 48, 40, false);
    // strides past two iterations, so the loop runs lane by lane between stops, ending mid-iteration too
    for (let s = 1; s <= 2 * (6 + 40 * 8 + 6); s += 37) {
      on.advance(s);
      off.advance(s);
      expect([on.warpSteps, on.threadInstructions, stateHash(on)]).toEqual([off.warpSteps, off.threadInstructions, stateHash(off)]);
    }
  });

  test('lanes that leave the loop after different trip counts: the lanes diverge as before', () => {
    // trips: tid % 5 + 1 (from %r1 into %r6)
    const divergent = loopPtx('rem.u32 %r6, %r1, 5; add.u32 %r6, %r6, 1;');
    const on = machine(divergent, 40, 0, true);
    const off = machine(divergent, 40, 0, false);
    const refused = SELF_LOOP.refused;
    on.run();
    expect(SELF_LOOP.refused - refused).toBeGreaterThan(0);
    off.run();
    expect(outputs(on, 40)).toEqual(expected(40, (t) => (t % 5) + 1));
    expect([on.warpSteps, on.threadInstructions, stateHash(on)]).toEqual([off.warpSteps, off.threadInstructions, stateHash(off)]);
  });

  test('lanes run two at a time: one disagreeing lane of a pair, either one, the first pair\'s too, puts every lane back', () => {
    // lanes run in pairs (0-1, 2-3, ...; the first sets the trip count)
    // trips: thread K leaves after T, the rest after 40; T = 31 lands on the end of the first
    // turn's iterations (256 steps: 8 of prologue, 31 iterations of 8), where a lane of a pair leaves exactly when the
    // turn would have ended anyway, and the first lane did not leave
    const cases = [[1, 3], [2, 3], [3, 3], [31, 3], [33, 3], [2, 30], [2, 31], [2, 32], [4, 31], [3, 31], [1, 31]] as const;
    for (const [k, t] of cases) {
      const ptx = loopPtx(`setp.eq.u32 %p1, %r1, ${k}; selp.u32 %r6, ${t}, 40, %p1;`);
      // 35 threads: the second warp's three lanes are a pair and one alone
      const on = machine(ptx, 35, 0, true);
      const off = machine(ptx, 35, 0, false);
      const refused = SELF_LOOP.refused;
      on.run();
      off.run();
      expect(SELF_LOOP.refused - refused).toBeGreaterThan(0);
      expect(outputs(on, 35)).toEqual(expected(35, (tid) => (tid === k ? t : 40)));
      expect([on.warpSteps, on.threadInstructions, stateHash(on)]).toEqual([off.warpSteps, off.threadInstructions, stateHash(off)]);
    }
  });

  test('f32 registers held in locals keep NaN payloads as the register file does (an fma\'s result without a second rounding too)', () => {
    // the per-instruction path is the reference here: whatever bits it leaves, the loop leaves
    const ptx = `.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .f32 %f<8>;
  mov.u32 %r1, %tid.x; mov.f32 %f1, 0f7FA12345; mov.f32 %f3, 0fFFC00001; mov.f32 %f6, 0f7FC0BEEF; mov.u32 %r2, 0;
$L:
  add.f32 %f2, %f1, %f3;
  mul.f32 %f3, %f2, 0f3F000000;
  neg.f32 %f4, %f3;
  abs.f32 %f5, %f1;
  fma.rn.f32 %f6, %f6, 0f3F000000, %f3;
  mul.f32 %f7, %f6, 0f40000000;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 50;
  @%p1 bra $L;
  ret;
}`;
    const on = machine(ptx, 32, 0, true);
    const off = machine(ptx, 32, 0, false);
    const runs = SELF_LOOP.runs;
    for (let s = 1; s <= 5 + 50 * 9 + 1; s += 37) {
      on.advance(s);
      off.advance(s);
      expect([on.warpSteps, on.threadInstructions, stateHash(on)]).toEqual([off.warpSteps, off.threadInstructions, stateHash(off)]);
    }
    expect(SELF_LOOP.runs - runs).toBeGreaterThan(0);
  });
});
