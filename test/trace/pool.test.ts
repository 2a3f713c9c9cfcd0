/**
 * CTA pooling (src/exec/machine/frames.ts): a finished CTA's objects are reused for the next CTA,
 * reset to exactly what a new CTA holds. With one resident CTA every CTA after the first is a
 * reused one; a run with a probe attached makes every CTA new (probes may know CTAs by identity),
 * so the two must agree digest for digest, and a recording must still restore every step exactly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLaunch, readLaunchFile } from '../../src/exec/launch.js';
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

/**
 * A reused frame reads as a new one (machine/frames.ts renew zeroes only the slots instructions
 * write, and leaves constants and specials as they were made): CTA 0 writes %r3 and %r4, the
 * next CTAs skip those writes, so they store what a new frame holds there, zero; every CTA adds
 * the constant 7 to %tid.x and stores at an address made from %ctaid.x. One resident CTA, one
 * warp: CTAs 1 and 2 run on CTA 0's warp and frame.
 */
describe('a reused frame', () => {
  const PTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out) {
  .reg .pred %p<2>; .reg .b32 %r<7>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  mov.u32 %r3, 42;
  add.u32 %r4, %r2, 1000;
SKIP:
  mad.lo.u32 %r5, %r1, 32, %r2;
  mul.wide.u32 %rd2, %r5, 12;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  st.global.u32 [%rd3+4], %r4;
  add.u32 %r6, %r2, 7;
  st.global.u32 [%rd3+8], %r6;
  ret;
}
`;
  const program = loadPtx(PTX, 'k.ptx').program!;
  const launch = parseLaunch({ kernel: 'k', grid: [3, 1, 1], block: [32, 1, 1], args: [{ name: 'out', type: 'u32', count: 3 * 32 * 3 }] }, program, '.');
  const opts: RunOptions = { ...DEFAULT_RUN_OPTIONS, resident: 1 };

  // by hand: CTA 0 lane t stores (42, t + 1000, t + 7); CTAs 1 and 2 store (0, 0, t + 7)
  const expected: number[] = [];
  for (let c = 0; c < 3; c++) for (let t = 0; t < 32; t++) expected.push(c === 0 ? 42 : 0, c === 0 ? t + 1000 : 0, t + 7);

  const out = (m: Machine): number[] => {
    const base = m.buffers[0]!.alloc.base;
    return [...new Uint32Array(m.arena.bank.u8.slice(base, base + 4 * expected.length).buffer)];
  };

  test('stores what a new frame holds, run and recorded', () => {
    const run = new Machine(program, launch, opts);
    expect(run.run().ok).toBe(true);
    expect(out(run)).toEqual(expected);
    const rec = new Machine(program, launch, opts);
    Trace.record(rec, { interval: 8 });
    expect(out(rec)).toEqual(expected);
  });

  test('holds zero registers, its constants and the new %ctaid when the next CTA starts', () => {
    const m = new Machine(program, launch, opts);
    m.prime();
    const first = m.resident[0]!.warps[0]!.frame;
    // run CTA 0 to its end, then start CTA 1 (on CTA 0's objects) without executing it
    while (m.nextCta === 1) m.advance(m.warpSteps + 1);
    const w = m.resident[0]!.warps[0]!;
    expect(m.resident[0]!.id).toBe(1);
    expect(w.frame).toBe(first);
    const slot = (name: string): number => program.functions.get('k')!.regs.find((r) => r.name === name)!.slot * 64;
    const lanes = (base: number): number[] => Array.from({ length: 32 }, (_, l) => w.frame.u32[base + 2 * l]!);
    const zeros = new Array<number>(32).fill(0);
    // CTA 0 left 42 and t + 1000 there, and %r1 = 0, %r2 = t, %r6 = t + 7: a new frame holds zero
    for (const r of ['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%p1']) expect([r, lanes(slot(r))]).toEqual([r, zeros]);
    m.advance(Infinity);
    expect(out(m)).toEqual(expected);
  });
});
