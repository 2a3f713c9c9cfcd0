/**
 * Frozen checkpoints (src/trace/frozen.ts): a checkpoint's CTAs, warps and frames are one buffer.
 * Thawing one must give back the machine's state at its step (restoring it gives the state of a
 * run stopped there), with the resident CTAs' ids readable without thawing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLaunchFile } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { residentIds, restore, Snapshotter } from '../../src/trace/checkpoint.js';
import { thaw } from '../../src/trace/frozen.js';
import { stateHash } from '../../src/trace/hash.js';
import { Trace } from '../../src/trace/trace.js';
import { ROOT } from '../helpers.js';

// calls and local memory (frame pools), barriers, divergence (SIMT stacks), carry flags
const CASES = ['local_mem_calls', 'barriers_named', 'divergence_stress', 'int_ops_ext'];

describe.each(CASES)('frozen checkpoints of %s', (name) => {
  const dir = join(ROOT, 'samples', name);
  const ptxPath = join(dir, 'kernel.G.ptx');
  const program = loadPtx(readFileSync(ptxPath, 'utf8'), ptxPath).program!;
  const launch = readLaunchFile(join(dir, 'launch.json'), program);
  const opts = { ...DEFAULT_RUN_OPTIONS, resident: 2 };

  test('a thawed checkpoint holds the machine at its step: CTAs, warps, frames, round', () => {
    const t = Trace.record(new Machine(program, launch, opts), { interval: 64 });
    expect(t.checkpoints.length).toBeGreaterThan(2);
    for (const c of t.checkpoints) {
      const m = new Machine(program, launch, opts);
      m.prime();
      m.advance(c.step);
      const r = thaw(c.ctas);
      expect(residentIds(c)).toEqual(m.resident.map((x) => x.id));
      expect(r.resident.map((x) => [x.id, x.liveThreads, x.warps.length])).toEqual(m.resident.map((x) => [x.id, x.liveThreads, x.warps.length]));
      const warps = m.resident.flatMap((x) => x.warps);
      const snaps = r.resident.flatMap((x) => x.warps);
      expect(snaps.map((w) => [w.id, w.pc, w.mask, w.exited, w.state, w.issued, w.frames.length, w.frames.map((f) => [f.fn, f.depth, f.callPc])]))
        .toEqual(warps.map((w) => [w.id, w.pc, w.mask, w.exited, w.state, w.issued, w.frames.length, w.frames.map((f) => [f.fn.name, f.depth, f.callPc])]));
      expect(r.round).toEqual(m.round.map((w) => [m.resident.indexOf(w.cta), w.cta.warps.indexOf(w)]));
      expect(snaps.map((w) => Array.from(w.carry))).toEqual(warps.map((w) => Array.from(w.carry)));
    }
  });

  test('restoring checkpoints in any order (reusing the CTAs being left) gives the states of a run stopped there, and runs on alike', () => {
    const t = Trace.record(new Machine(program, launch, opts), { interval: 64 });
    const order = t.checkpoints.map((_, i) => i);
    // a fixed shuffle: later checkpoints before earlier ones and the other way round
    for (let i = order.length - 1; i > 0; i--) { const j = (i * 7919 + 13) % (i + 1); [order[i], order[j]] = [order[j]!, order[i]!]; }
    for (const i of order) {
      const c = t.checkpoints[i]!;
      const fresh = new Machine(program, launch, opts);
      fresh.prime();
      fresh.advance(c.step);
      restore(t.machine, c, t.stdout);
      expect(stateHash(t.machine)).toBe(stateHash(fresh));
      const on = Math.min(t.total, c.step + 100);
      t.machine.advance(on);
      fresh.advance(on);
      expect(stateHash(t.machine)).toBe(stateHash(fresh));
    }
  });
});

test('numbers beyond int32 (a warp that issued 2^33 instructions, an unsigned mask) come back exactly', () => {
  const dir = join(ROOT, 'samples', 'barriers_named');
  const ptxPath = join(dir, 'kernel.G.ptx');
  const program = loadPtx(readFileSync(ptxPath, 'utf8'), ptxPath).program!;
  const m = new Machine(program, readLaunchFile(join(dir, 'launch.json'), program), DEFAULT_RUN_OPTIONS);
  m.prime();
  m.advance(10);
  const w = m.resident[0]!.warps[0]!;
  w.issued = 2 ** 33;
  w.barMask = 0xffffffff;
  w.carry[3] = 1;
  const c = new Snapshotter().take(m);
  expect(c.ctas.nums).toBeInstanceOf(Float64Array);
  const hash = stateHash(m);
  m.advance(40);
  restore(m, c, m.stdout);
  const back = m.resident[0]!.warps[0]!;
  expect([back.issued, back.barMask, back.carry[3]]).toEqual([2 ** 33, 0xffffffff, 1]);
  expect(stateHash(m)).toBe(hash);
});

test('a warp restored with a grown local stack goes back to the initial stride when it takes a new CTA', () => {
  // f's 4 KiB local array is more than a new warp's 1024 bytes per lane: the stack grows inside f
  const src = `.version 8.0
.target sm_80
.address_size 64
.func f()
{
  .local .align 4 .b8 buf[4096];
  .reg .b32 %v;
  mov.u32 %v, 7;
  st.local.u32 [buf+4000], %v;
  st.local.u32 [buf+4], %v;
  st.local.u32 [buf+8], %v;
  ret;
}
.visible .entry k()
{
  call.uni f, ();
  ret;
}
`;
  const program = loadPtx(src, 'grow.ptx').program!;
  const launch = { kernel: 'k', grid: [1, 1, 1] as [number, number, number], block: [32, 1, 1] as [number, number, number], sharedBytes: 0, args: [] };
  const t = Trace.record(new Machine(program, launch, DEFAULT_RUN_OPTIONS), { interval: 1 });
  // a checkpoint taken inside f, after the stack grew
  const inside = t.checkpoints.find((c) => (thaw(c.ctas).resident[0]?.warps[0]?.localStride ?? 0) > 1024);
  expect(inside).toBeDefined();
  // a machine with no CTA to reuse: the restore makes the warp
  const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  restore(m, inside!, t.stdout);
  const w = m.resident[0]!.warps[0]!;
  expect(w.localStride).toBeGreaterThanOrEqual(4096 + 16);
  w.reset(w.id);
  expect(w.localStride).toBe(1024);
});
