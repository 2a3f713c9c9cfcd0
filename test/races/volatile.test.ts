/**
 * ld/st.volatile under the race checker: the PTX ISA (ld) says "ld.volatile has the same memory
 * synchronization semantics as ld.relaxed.sys" (likewise st.volatile and st.relaxed.sys), so a
 * volatile access is morally strong with every other strong access, in another warp or in the
 * same one; the checker must judge both forms alike.
 */
import { HEADER, runPtx } from './helpers.js';

/** Every thread adds 1 to out[0] with a compare-and-swap loop whose read is `load`. */
const casLoop = (load: string): string => `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
$L_retry:
  .loc 1 10 0
  ${load} %r1, [%rd1];
  add.u32 %r2, %r1, 1;
  .loc 1 11 0
  atom.global.cas.b32 %r3, [%rd1], %r1, %r2;
  setp.ne.u32 %p1, %r3, %r1;
  @%p1 bra $L_retry;
  ret;
}`;

test('a CAS loop reading with ld.volatile is race-free, as with ld.relaxed.sys, within a warp and across warps and blocks', () => {
  for (const load of ['ld.volatile.global.u32', 'ld.relaxed.sys.global.u32']) {
    const r = runPtx(casLoop(load), { grid: 2, block: 64, buffers: [{ name: 'out', count: 1 }] });
    expect({ load, races: r.report.races.length, fault: r.result.fault?.message }).toEqual({ load, races: 0, fault: undefined });
    // 2 blocks x 64 threads each added 1 once
    const out = r.machine.buffers.find((b) => b.name === 'out')!.alloc;
    expect({ load, out: r.machine.arena.bank.u32[out.base / 4] }).toEqual({ load, out: 128 });
  }
});

test('a plain (weak) read in the same loop still races with the other lanes\' compare-and-swap', () => {
  const r = runPtx(casLoop('ld.global.u32'), { grid: 1, block: 32, buffers: [{ name: 'out', count: 1 }] });
  expect(r.report.races.some((x) => x.intraWarp)).toBe(true);
});

/** Thread t stores s[t] with `store`, then loads s[t ^ step] with `load`, no __syncwarp between. */
const exchange = (load: string, store: string, step: number): string => `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 s[256];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.u32 %r4, %r3, %r2;
  .loc 1 20 0
  ${store} [%r4], %r1;
  xor.b32 %r5, %r1, ${step};
  shl.b32 %r5, %r5, 2;
  add.u32 %r5, %r3, %r5;
  .loc 1 21 0
  ${load} %r5, [%r5];
  ret;
}`;

test('strong loads and stores between lanes of one warp are a hazard alike for volatile and relaxed.sys; across warps neither is', () => {
  for (const [load, store] of [['ld.volatile.shared.u32', 'st.volatile.shared.u32'], ['ld.relaxed.sys.shared.u32', 'st.relaxed.sys.shared.u32']] as const) {
    // step 1: lane t reads lane t^1's element (same warp); step 32: thread t reads t^32's (the other warp)
    const within = runPtx(exchange(load, store, 1), { block: 64, buffers: [{ name: 'out', count: 1 }] });
    expect({ load, races: within.report.races.map((r) => [r.space, r.intraWarp]) }).toEqual({ load, races: [['shared', true]] });
    const across = runPtx(exchange(load, store, 32), { block: 64, buffers: [{ name: 'out', count: 1 }] });
    expect({ load, races: across.report.races.length }).toEqual({ load, races: 0 });
  }
});
