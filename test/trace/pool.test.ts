/**
 * CTA pooling (src/exec/machine/frames.ts): a finished CTA's objects are reused for the next CTA,
 * reset to exactly what a new CTA holds. With one resident CTA every CTA after the first is a
 * reused one; a run with a probe attached makes every CTA new (probes may know CTAs by identity),
 * so the two must agree digest for digest, and a recording must still restore every step exactly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLaunchFile } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine, type RunOptions } from '../../src/exec/machine.js';
import type { Probe } from '../../src/exec/probe.js';
import { loadPtx } from '../../src/ptx/index.js';
import { stateHash } from '../../src/trace/hash.js';
import { Trace } from '../../src/trace/trace.js';
import { ROOT } from '../helpers.js';

// more than one CTA each: shared memory, local memory and calls, recursion, barriers, %clock, traps
const CASES = ['barriers_named', 'local_mem_calls', 'divergence_stress', 'dyn_shared_mixed', 'grid3d_ids', 'warp_intrinsics', 'clock_timer', 'vars_structs', 'race_shared_raw', 'fence_last_block'];

const NO_PROBE: Probe = { access() {}, barrierArrive() {}, barrierRelease() {}, warpSync() {}, fence() {} };

function load(name: string): { program: ReturnType<typeof loadPtx>['program'] & object; launch: ReturnType<typeof readLaunchFile> } {
  const dir = join(ROOT, 'samples', name);
  const ptxPath = join(dir, 'kernel.G.ptx');
  const program = loadPtx(readFileSync(ptxPath, 'utf8'), ptxPath).program!;
  return { program, launch: readLaunchFile(join(dir, 'launch.json'), program) };
}

describe.each(CASES)('CTA pooling on %s', (name) => {
  const { program, launch } = load(name);

  test.each(['rr', 'random'] as const)('reused CTAs equal new ones at every CTA start (%s schedule)', (schedule) => {
    const opts: RunOptions = { ...DEFAULT_RUN_OPTIONS, schedule, seed: 3, resident: 1 };
    const pooled = new Machine(program, launch, opts);
    const fresh = new Machine(program, launch, opts);
    fresh.mem.probe = NO_PROBE;
    pooled.prime();
    fresh.prime();
    // step by step; digests (costly) right after each CTA start, where a reset would show, and now and then
    let reused = 0;
    let started = pooled.nextCta;
    for (let p = 1; !pooled.finished || !fresh.finished; p++) {
      pooled.advance(p);
      fresh.advance(p);
      if (pooled.nextCta === started && p % 500 !== 0 && !pooled.finished) continue;
      if (pooled.nextCta !== started && started > 0) reused++;
      started = pooled.nextCta;
      expect([p, stateHash(pooled)]).toEqual([p, stateHash(fresh)]);
    }
    expect(fresh.ctaPool.length).toBe(0);
    expect(reused).toBeGreaterThan(0);
    expect(pooled.stdout).toBe(fresh.stdout);
    expect(pooled.fault).toEqual(fresh.fault);
    expect(Buffer.compare(pooled.arena.bank.u8, fresh.arena.bank.u8)).toBe(0);
  });

  test('a recording over reused CTAs restores every sampled step exactly', () => {
    const opts: RunOptions = { ...DEFAULT_RUN_OPTIONS, resident: 1 };
    const machine = new Machine(program, launch, opts);
    machine.prime();
    const trace = Trace.record(machine, { interval: 64 });
    const ref = new Machine(program, launch, opts);
    ref.prime();
    const picks: number[] = [];
    for (let p = 0; p <= trace.total; p += Math.max(1, Math.floor(trace.total / 40))) picks.push(p);
    picks.push(trace.total);
    const expected = new Map<number, string>();
    for (const p of picks) { ref.advance(p); expected.set(p, stateHash(ref)); }
    // backward jumps restore checkpoints, whose CTAs then retire into the pool and are reused
    for (const p of [...picks].reverse()) { trace.goto(p); expect([p, stateHash(machine)]).toEqual([p, expected.get(p)]); }
    for (const p of picks) { trace.goto(p); expect([p, stateHash(machine)]).toEqual([p, expected.get(p)]); }
  });
});
