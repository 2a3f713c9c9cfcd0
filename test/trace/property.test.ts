/**
 * The trace's central promise: the state restored at step k — by goto in any order, stepping
 * backward, or after writing and re-reading a trace file — is exactly the state reached by
 * executing forward to k. Compared as full digests of memory, registers, SIMT and scheduler state.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLaunchFile } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine, type RunOptions } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { compareWithFile, readTraceFile, writeTraceFile } from '../../src/trace/file.js';
import { stateHash } from '../../src/trace/hash.js';
import { Trace } from '../../src/trace/trace.js';
import { openSession } from '../../src/engine/session.js';
import { ROOT } from '../helpers.js';

const CASES = ['divergence_stress', 'its_early_return_work', 'local_mem_calls', 'barriers_named', 'recursion_fnptr', 'malloc_printf', 'warp_intrinsics', 'clock_timer', 'bug_deadlock', 'bug_null_deref'];

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x / 4294967296; };
}

describe.each(CASES)('trace of %s', (name) => {
  const dir = join(ROOT, 'samples', name);
  const ptxPath = join(dir, 'kernel.G.ptx');
  const ptxText = readFileSync(ptxPath, 'utf8');
  const program = loadPtx(ptxText, ptxPath).program!;
  const launch = readLaunchFile(join(dir, 'launch.json'), program);

  test.each(['rr', 'random'] as const)('restores every sampled step exactly (%s schedule)', (schedule) => {
    const opts: RunOptions = { ...DEFAULT_RUN_OPTIONS, schedule, seed: 11 };
    const machine = new Machine(program, launch, opts);
    machine.prime();
    // a small interval so the samples cross many checkpoints
    const trace = Trace.record(machine, { interval: 128 });
    expect(trace.total).toBeGreaterThan(20);
    const next = rng(trace.total);
    const picks = new Set<number>([0, 1, trace.total, trace.total - 1, 127, 128, 129]);
    while (picks.size < 24) picks.add(Math.floor(next() * (trace.total + 1)));
    const sorted = [...picks].filter((p) => p >= 0 && p <= trace.total).sort((a, b) => a - b);
    // the reference: one forward execution, digested at each sampled step
    const ref = new Machine(program, launch, opts);
    ref.prime();
    const expected = new Map<number, string>();
    for (const p of sorted) { ref.advance(p); expected.set(p, stateHash(ref)); }
    expect(ref.stdout.length).toBeLessThanOrEqual(trace.stdout.length);

    // goto in random order (backward jumps restore checkpoints, forward ones may continue)
    const shuffled = [...sorted].sort(() => next() - 0.5);
    for (const p of shuffled) { trace.goto(p); expect([p, stateHash(machine)]).toEqual([p, expected.get(p)]); }
    // walking backward one step at a time
    for (let p = Math.min(trace.total, sorted[sorted.length - 1]!); p >= trace.total - 12 && p >= 0; p--) {
      trace.goto(p);
      if (expected.has(p)) expect(stateHash(machine)).toBe(expected.get(p));
    }

    // through a trace file: write, read back, re-record, compare, restore
    const tmp = mkdtempSync(join(tmpdir(), 'ptxdbg-trace-'));
    try {
      const file = join(tmp, 'run.ptxtrace');
      writeTraceFile(file, trace, ptxPath, ptxText, launch, opts);
      const f = readTraceFile(file);
      const s = openSession({ ptxPath, ptxText: f.ptxText, launchObject: f.launch, schedule: f.header.schedule, seed: f.header.seed, maxSteps: f.header.maxSteps, interval: f.header.interval });
      expect(compareWithFile(s.trace, f)).toBeUndefined();
      for (const p of sorted.slice(0, 6)) { s.trace.goto(p); expect(stateHash(s.machine)).toBe(expected.get(p)); }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

test('a recording is deterministic: same PTX, launch and seed give the same log byte for byte', () => {
  const dir = join(ROOT, 'samples', 'divergence_stress');
  const ptxPath = join(dir, 'kernel.G.ptx');
  const program = loadPtx(readFileSync(ptxPath, 'utf8'), ptxPath).program!;
  const launch = readLaunchFile(join(dir, 'launch.json'), program);
  const opts: RunOptions = { ...DEFAULT_RUN_OPTIONS, schedule: 'random', seed: 5 };
  const a = Trace.record(new Machine(program, launch, opts));
  const b = Trace.record(new Machine(program, launch, opts));
  expect(a.total).toBe(b.total);
  expect(Buffer.compare(Buffer.from(a.log.chunk(0).buffer), Buffer.from(b.log.chunk(0).buffer))).toBe(0);
  const c = Trace.record(new Machine(program, launch, { ...opts, seed: 6 }));
  // another seed interleaves warps differently
  expect(Buffer.compare(Buffer.from(a.log.segWarp.buffer), Buffer.from(c.log.segWarp.buffer))).not.toBe(0);
});
