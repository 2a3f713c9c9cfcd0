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
import { blockTable } from '../../src/exec/block/table.js';
import { loadPtx } from '../../src/ptx/index.js';
import { writeTraceFile } from '../../src/trace/file.js';
import { stateHash } from '../../src/trace/hash.js';
import { Trace } from '../../src/trace/trace.js';
import { ROOT } from '../helpers.js';

// straight-line ALU, memory, calls and local memory, divergence, barriers, %clock, printf, half
// precision, a fault inside a run of plain instructions
const CASES = ['saxpy', 'int_ops_ext', 'float_rounding', 'local_mem_calls', 'divergence_stress', 'barriers_named', 'clock_timer', 'malloc_printf', 'half_bf16', 'bug_misaligned'];
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
