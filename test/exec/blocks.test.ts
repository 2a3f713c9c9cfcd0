/**
 * The block compiler (src/exec/block/) changes speed, never the execution: with blocks on and off
 * the same kernel, schedule and seed give the same trace file byte for byte, the same machine
 * state after the run and at every step in between (a run stopped inside a block, as `goto`
 * stops one), and the same fault at the same step. The per-instruction path (blocks off) is the
 * reference: it issues one instruction of one warp at a time.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLaunchFile } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine, type RunOptions } from '../../src/exec/machine.js';
import { blockAt, blockTable, SUFFIX_AFTER } from '../../src/exec/block/table.js';
import { loadPtx } from '../../src/ptx/index.js';
import { writeTraceFile } from '../../src/trace/file.js';
import { stateHash } from '../../src/trace/hash.js';
import { Trace } from '../../src/trace/trace.js';
import { ROOT } from '../helpers.js';

// straight-line ALU, memory, calls and local memory, divergence, barriers, %clock, printf, half
// precision, a fault inside a run of plain instructions; loads and stores done inline in fused
// loops: shared memory written and read back by other lanes of the warp with no barrier between
// (race_intra_warp, race_shared_raw), a generic load of a null pointer (bug_null_deref), dynamic
// shared memory, vector accesses
const CASES = ['saxpy', 'int_ops_ext', 'float_rounding', 'local_mem_calls', 'divergence_stress', 'barriers_named', 'clock_timer', 'malloc_printf', 'half_bf16', 'bug_misaligned',
  'bug_null_deref', 'race_intra_warp', 'race_shared_raw', 'dyn_shared_mixed', 'vector_mem_struct'];
const SCHEDULES: Pick<RunOptions, 'schedule' | 'seed'>[] = [{ schedule: 'rr', seed: 1 }, { schedule: 'random', seed: 7 }];

const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-blocks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(CASES)('blocks on and off: %s', (name) => {
  const sdir = join(ROOT, 'samples', name);
  const ptxPath = join(sdir, 'kernel.O3.ptx');
  const ptxText = readFileSync(ptxPath, 'utf8');
  const program = loadPtx(ptxText, ptxPath).program!;
  const launch = readLaunchFile(join(sdir, 'launch.json'), program);

  test.each(SCHEDULES)('same trace file bytes, state and fault ($schedule, seed $seed)', (sched) => {
    const files: Buffer[] = [];
    const out: { hash: string; fault: unknown; steps: number; thr: number; faultStep: number }[] = [];
    for (const blocks of [false, true]) {
      const opts = { ...DEFAULT_RUN_OPTIONS, ...sched, blocks };
      const m = new Machine(program, launch, opts);
      const t = Trace.record(m, { interval: 256 });
      const path = join(dir, `${name}-${sched.schedule}-${blocks}.trace`);
      writeTraceFile(path, t, ptxPath, ptxText, launch, { schedule: opts.schedule, seed: opts.seed, maxSteps: opts.maxSteps });
      files.push(readFileSync(path));
      out.push({ hash: stateHash(m), fault: m.fault, steps: m.warpSteps, thr: m.threadInstructions, faultStep: m.faultStep });
    }
    expect(files[1]!.equals(files[0]!)).toBe(true);
    expect(out[1]).toEqual(out[0]);
  });

  test('a run stopped at any step (inside a block too) holds the same state', () => {
    const total = new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, blocks: false }).run().stats.warpSteps;
    const off = new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, blocks: false });
    const on = new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, blocks: true });
    // every step of a short run, about 60 spread over a long one (odd strides land mid-block)
    const stride = Math.max(1, Math.floor(total / 60) | 1);
    for (let s = 1; s <= total; s += stride) {
      off.advance(s);
      on.advance(s);
      expect([on.warpSteps, on.threadInstructions, stateHash(on)]).toEqual([off.warpSteps, off.threadInstructions, stateHash(off)]);
    }
  });
});

test('the straight-line code of saxpy runs as blocks of several instructions', () => {
  const sdir = join(ROOT, 'samples', 'saxpy');
  const program = loadPtx(readFileSync(join(sdir, 'kernel.O3.ptx'), 'utf8'), 'saxpy.ptx').program!;
  const launch = readLaunchFile(join(sdir, 'launch.json'), program);
  const m = new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, blocks: true });
  m.run();
  const used = blockTable(m.fn(launch.kernel)!).at.filter((b) => b !== undefined && b !== null);
  expect(used.length).toBeGreaterThan(0);
  expect(Math.max(...used.map((b) => b!.len))).toBeGreaterThanOrEqual(4);
});

test('a fault inside a block stops at the faulting instruction, as one instruction at a time does', () => {
  const sdir = join(ROOT, 'samples', 'bug_misaligned');
  const program = loadPtx(readFileSync(join(sdir, 'kernel.O3.ptx'), 'utf8'), 'bug_misaligned.ptx').program!;
  const launch = readLaunchFile(join(sdir, 'launch.json'), program);
  const m = new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, blocks: true });
  m.run();
  expect(m.fault?.kind).toBe('misaligned');
  // the faulting load is not the first instruction of the block that ran it
  const pc = m.fault!.pc;
  const blocks = blockTable(m.fn(launch.kernel)!).at.filter((b) => b !== undefined && b !== null);
  expect(blocks.some((b) => b!.pc < pc && pc < b!.pc + b!.len)).toBe(true);
});

test('a block starts inside a longer run of plain instructions only once turns have started there SUFFIX_AFTER times', () => {
  const sdir = join(ROOT, 'samples', 'saxpy');
  const program = loadPtx(readFileSync(join(sdir, 'kernel.O3.ptx'), 'utf8'), 'saxpy.ptx').program!;
  const launch = readLaunchFile(join(sdir, 'launch.json'), program);
  const m = new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, blocks: true });
  const t = blockTable(m.fn(launch.kernel)!);
  // the first run of at least 3 plain instructions: a block at its start, none at its second or last
  let start = -1;
  for (let pc = 0; pc < t.fn.code.length && start < 0; pc++) {
    const b = blockAt(t, pc);
    if (b !== null && b.len >= 3) start = pc;
  }
  expect(start).toBeGreaterThanOrEqual(0);
  const len = blockAt(t, start)!.len;
  for (let i = 1; i < SUFFIX_AFTER; i++) expect(blockAt(t, start + 1)).toBeNull();
  expect(blockAt(t, start + len - 1)).toBeNull();
  // the SUFFIX_AFTER-th start there: the rest of the run, as one block
  const b = blockAt(t, start + 1);
  expect([b?.pc, b?.len]).toEqual([start + 1, len - 1]);
});

test('a second launch of the same program runs the blocks the first compiled', () => {
  const sdir = join(ROOT, 'samples', 'saxpy');
  const program = loadPtx(readFileSync(join(sdir, 'kernel.O3.ptx'), 'utf8'), 'saxpy.ptx').program!;
  const launch = readLaunchFile(join(sdir, 'launch.json'), program);
  const first = new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, blocks: true });
  first.run();
  const second = new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, blocks: true });
  const t = blockTable(second.fn(launch.kernel)!);
  expect(t).toBe(blockTable(first.fn(launch.kernel)!));
  expect(t.at.some((b) => b !== undefined && b !== null)).toBe(true);
});

/**
 * One warp, one block of straight-line code: each lane stores to its word, then loads its
 * neighbour's, then stores again. A warp executes an instruction for all its lanes before the next
 * (PTX ISA: the threads of a warp execute each instruction together), so every lane's load sees
 * every lane's first store and none of the second: out[l] = l + 100, out[32 + l] = out[l + 1] +
 * 1000 = l + 1101 (lane 31 reads out[32], still 0 when the warp loads: 1000). With `bad` lane
 * 5's load is misaligned: the warp stops at that load, lanes 0-4 loaded and none stored again.
 */
function neighbourPtx(bad: boolean): string {
  return `
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .u32 %r<8>;
  .reg .u64 %rd<8>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd2, %rd3;
  add.u32 %r2, %r1, 100;
  setp.eq.u32 %p1, %r1, ${bad ? 5 : 99};
  selp.u64 %rd5, 2, 0, %p1;
  add.u64 %rd6, %rd4, %rd5;
  st.global.u32 [%rd4], %r2;
  ld.global.u32 %r3, [%rd6+4];
  add.u32 %r4, %r3, 1000;
  st.global.u32 [%rd4+128], %r4;
  ret;
}`;
}

describe('loads and stores inside a block', () => {
  const run = (bad: boolean, blocks: boolean): { m: Machine; out: number[]; fault: unknown } => {
    const program = loadPtx(neighbourPtx(bad), 'neighbour.ptx').program!;
    const m = new Machine(program, {
      kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
      args: [{ kind: 'buffer', name: 'out', type: 'u32', count: 64, init: undefined, file: undefined }],
    }, { ...DEFAULT_RUN_OPTIONS, blocks });
    m.run();
    const base = m.buffers[0]!.alloc.base >> 2;
    return { m, out: Array.from(m.arena.bank.u32.subarray(base, base + 64)), fault: m.fault };
  };

  test('a lane loads what the other lanes stored before, not after', () => {
    const { m, out, fault } = run(false, true);
    expect(fault).toBeUndefined();
    const want = [...Array.from({ length: 32 }, (_, l) => l + 100), ...Array.from({ length: 32 }, (_, l) => (l < 31 ? l + 101 : 0) + 1000)];
    expect(out).toEqual(want);
    // the stores and the load ran inside one block
    const blocks = blockTable(m.fn('k')!).at.filter((b) => b !== undefined && b !== null);
    expect(Math.max(...blocks.map((b) => b!.len))).toBeGreaterThanOrEqual(8);
  });

  test('a misaligned lane stops the warp at that load, at that lane, the lanes before it loaded', () => {
    const on = run(true, true);
    const off = run(true, false);
    expect(on.m.fault?.kind).toBe('misaligned');
    expect(on.m.fault?.lane).toBe(5);
    // the load is the 11th instruction (pc 10); the first stores happened, the second did not
    expect(on.m.fault?.pc).toBe(10);
    expect(on.out).toEqual([...Array.from({ length: 32 }, (_, l) => l + 100), ...new Array<number>(32).fill(0)]);
    expect([on.m.warpSteps, on.m.threadInstructions, stateHash(on.m)]).toEqual([off.m.warpSteps, off.m.threadInstructions, stateHash(off.m)]);
  });
});

/**
 * Loads whose addresses are known when a block starts (computed before a barrier) are checked
 * for the whole block first, then done in one loop with the ALU instructions. Each lane sums three
 * consecutive words of `buf` (buf[i] = 3i + 1): (3l + 1) + (3l + 4) + (3l + 7) = 9l + 12, stored
 * after the second barrier at buf[64 + l]. With `bad`, lane 7's second load is misaligned: the warp
 * stops there (pc 10, lane 7) with nothing stored, as one instruction at a time would.
 */
function sumPtx(bad: boolean): string {
  return `
.version 7.0
.target sm_80
.address_size 64
.visible .entry s(.param .u64 buf)
{
  .reg .pred %p<2>;
  .reg .u32 %r<8>;
  .reg .u64 %rd<8>;
  ld.param.u64 %rd1, [buf];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd2, %rd3;
  setp.eq.u32 %p1, %r1, ${bad ? 7 : 99};
  selp.u64 %rd5, 2, 0, %p1;
  add.u64 %rd6, %rd4, %rd5;
  bar.sync 0;
  ld.global.u32 %r2, [%rd4];
  ld.global.u32 %r3, [%rd6+4];
  add.u32 %r4, %r2, %r3;
  ld.global.u32 %r5, [%rd4+8];
  add.u32 %r6, %r4, %r5;
  bar.sync 0;
  st.global.u32 [%rd4+256], %r6;
  ret;
}`;
}

describe('loads checked for a whole block first', () => {
  const run = (bad: boolean, blocks: boolean): { m: Machine; out: number[] } => {
    const program = loadPtx(sumPtx(bad), 'sum.ptx').program!;
    const init = new Uint32Array(128);
    for (let i = 0; i < 64; i++) init[i] = 3 * i + 1;
    const m = new Machine(program, {
      kernel: 's', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
      args: [{ kind: 'buffer', name: 'buf', type: 'u32', count: 128, init: new Uint8Array(init.buffer), file: undefined }],
    }, { ...DEFAULT_RUN_OPTIONS, blocks });
    m.run();
    const base = m.buffers[0]!.alloc.base >> 2;
    return { m, out: Array.from(m.arena.bank.u32.subarray(base + 64, base + 96)) };
  };

  test('every lane sums its three words', () => {
    const { m, out } = run(false, true);
    expect(m.fault).toBeUndefined();
    expect(out).toEqual(Array.from({ length: 32 }, (_, l) => 9 * l + 12));
  });

  test('a refused lane stops the warp at its load and lane, as one instruction at a time does', () => {
    const on = run(true, true);
    const off = run(true, false);
    expect([on.m.fault?.kind, on.m.fault?.lane, on.m.fault?.pc]).toEqual(['misaligned', 7, 10]);
    expect(on.out).toEqual(new Array<number>(32).fill(0));
    expect([on.m.warpSteps, on.m.threadInstructions, stateHash(on.m)]).toEqual([off.m.warpSteps, off.m.threadInstructions, stateHash(off.m)]);
  });
});

/**
 * A segment whose loads are checked first, refused without a fault: lane 0 reads shared memory
 * through a generic address and lanes 1-31 read global memory, so the whole-warp check (one space
 * per access) refuses and the segment runs in its split form, made on that first refusal, which
 * must still see the parameter loaded inside the segment. sh[l] = 100 + l, buf[i] = 3i + 1,
 * k = 1000: out[l] = (l === 0 ? sh[0] : buf[l]) + k + buf[l] = 1101 for lane 0, 6l + 1002 after.
 */
function mixedPtx(): string {
  return `
.version 7.0
.target sm_80
.address_size 64
.visible .entry g(.param .u64 buf, .param .u32 k)
{
  .shared .align 4 .b8 sh[128];
  .reg .pred %p<2>;
  .reg .u32 %r<10>;
  .reg .u64 %rd<10>;
  ld.param.u64 %rd1, [buf];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  mov.u64 %rd5, sh;
  add.u64 %rd6, %rd5, %rd3;
  add.u32 %r7, %r1, 100;
  st.shared.u32 [%rd6], %r7;
  cvta.shared.u64 %rd7, %rd6;
  setp.eq.u32 %p1, %r1, 0;
  selp.u64 %rd8, %rd7, %rd4, %p1;
  bar.sync 0;
  ld.u32 %r2, [%rd8];
  ld.param.u32 %r3, [k];
  ld.u32 %r4, [%rd4];
  add.u32 %r5, %r2, %r3;
  add.u32 %r6, %r5, %r4;
  bar.sync 0;
  st.global.u32 [%rd4+256], %r6;
  ret;
}`;
}

describe('a checked-first segment refused without a fault', () => {
  const run = (blocks: boolean): { m: Machine; out: number[] } => {
    const program = loadPtx(mixedPtx(), 'mixed.ptx').program!;
    const init = new Uint32Array(128);
    for (let i = 0; i < 64; i++) init[i] = 3 * i + 1;
    const m = new Machine(program, {
      kernel: 'g', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
      args: [{ kind: 'buffer', name: 'buf', type: 'u32', count: 128, init: new Uint8Array(init.buffer), file: undefined },
        { kind: 'scalar', name: 'k', type: 'u32', value: 1000 }],
    }, { ...DEFAULT_RUN_OPTIONS, blocks });
    m.run();
    const base = m.buffers[0]!.alloc.base >> 2;
    return { m, out: Array.from(m.arena.bank.u32.subarray(base + 64, base + 96)) };
  };

  test('each lane reads its own space, as one instruction at a time does', () => {
    const on = run(true);
    const off = run(false);
    expect(on.m.fault).toBeUndefined();
    expect(on.out).toEqual(Array.from({ length: 32 }, (_, l) => (l === 0 ? 1101 : 6 * l + 1002)));
    expect([on.m.warpSteps, on.m.threadInstructions, stateHash(on.m)]).toEqual([off.m.warpSteps, off.m.threadInstructions, stateHash(off.m)]);
  });
});

/**
 * Kernel parameters loaded inside a block are read once per block and copied to the lanes: a
 * .s32 parameter loaded into a 64-bit register sign-extends (PTX ISA, ld: "the value is
 * sign-extended to the destination register width" for signed types), a guarded load writes only
 * its lanes, and a load past the parameters faults at that load as one instruction at a time does.
 * out[l] = v + (l < 16 ? w : 0) as 64 bits: v = -5, w = 7 gives 2 for lanes 0-15 and 2^64 - 5 after.
 */
function paramPtx(bad: boolean): string {
  return `
.version 7.0
.target sm_80
.address_size 64
.visible .entry p(.param .u64 out, .param .s32 v, .param .u32 w)
{
  .reg .pred %p<2>;
  .reg .u32 %r<8>;
  .reg .u64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  ld.param.s32 %rd2, [v];
  @%p1 ld.param.u32 %r2, [w];
  ld.param.u32 %r3, [w${bad ? '+64' : ''}];
  cvt.u64.u32 %rd3, %r2;
  add.u64 %rd4, %rd2, %rd3;
  cvta.to.global.u64 %rd5, %rd1;
  mul.wide.u32 %rd6, %r1, 8;
  add.u64 %rd7, %rd5, %rd6;
  st.global.u64 [%rd7], %rd4;
  ret;
}`;
}

describe('parameters loaded inside a block', () => {
  const run = (bad: boolean, blocks: boolean): { m: Machine; out: bigint[] } => {
    const program = loadPtx(paramPtx(bad), 'param.ptx').program!;
    const m = new Machine(program, {
      kernel: 'p', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0,
      args: [{ kind: 'buffer', name: 'out', type: 'u64', count: 32, init: undefined, file: undefined },
        { kind: 'scalar', name: 'v', type: 's32', value: -5 }, { kind: 'scalar', name: 'w', type: 'u32', value: 7 }],
    }, { ...DEFAULT_RUN_OPTIONS, blocks });
    m.run();
    const base = m.buffers[0]!.alloc.base >> 3;
    return { m, out: Array.from(new BigUint64Array(m.arena.bank.u8.buffer).subarray(base, base + 32)) };
  };

  test('sign-extended, guarded, and copied to every lane, in one block', () => {
    const { m, out } = run(false, true);
    expect(m.fault).toBeUndefined();
    expect(out).toEqual(Array.from({ length: 32 }, (_, l) => (l < 16 ? 2n : 2n ** 64n - 5n)));
    const blocks = blockTable(m.fn('p')!).at.filter((b) => b !== undefined && b !== null);
    expect(Math.max(...blocks.map((b) => b!.len))).toBeGreaterThanOrEqual(10);
  });

  test('a load past the parameters faults at that load, as one instruction at a time does', () => {
    const on = run(true, true);
    const off = run(true, false);
    expect(off.m.fault).toBeDefined();
    expect(on.m.fault?.pc).toBe(5);
    expect([on.m.fault?.kind, on.m.warpSteps, on.m.threadInstructions, stateHash(on.m)]).toEqual([off.m.fault?.kind, off.m.warpSteps, off.m.threadInstructions, stateHash(off.m)]);
  });
});
