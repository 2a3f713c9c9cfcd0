/** alloca / stacksave / stackrestore: aligned, usable local memory that stackrestore gives back. */
import type { Launch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';

test('alloca gives aligned, distinct, per-thread local memory; stackrestore reuses it', () => {
  const ptx = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .local .align 4 .b8 pad[4];
  .reg .b64 %rd<12>; .reg .b32 %r<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  st.local.u32 [pad], %r1;
  stacksave.u64 %rd2;
  alloca.u64 %rd3, 12, 64;
  alloca.u64 %rd4, 8, 16;
  st.local.u32 [%rd3], %r1;
  add.u32 %r2, %r1, 100;
  st.local.u32 [%rd4+4], %r2;
  ld.local.u32 %r3, [%rd3];
  ld.local.u32 %r4, [%rd4+4];
  stackrestore.u64 %rd2;
  alloca.u64 %rd5, 4, 64;
  ld.local.u32 %r5, [pad];
  mul.wide.u32 %rd6, %r1, 32; add.s64 %rd7, %rd1, %rd6;
  and.b64 %rd8, %rd3, 63; cvt.u32.u64 %r6, %rd8;
  st.global.u32 [%rd7], %r3;
  st.global.u32 [%rd7+4], %r4;
  st.global.u32 [%rd7+8], %r6;
  sub.s64 %rd9, %rd4, %rd3; cvt.u32.u64 %r7, %rd9;
  st.global.u32 [%rd7+12], %r7;
  sub.s64 %rd10, %rd5, %rd3; cvt.u32.u64 %r7, %rd10;
  st.global.u32 [%rd7+16], %r7;
  st.global.u32 [%rd7+20], %r5;
  ret;
}`;
  const loaded = loadPtx(ptx, 'stack.ptx');
  if (!loaded.program) throw new Error(JSON.stringify(loaded));
  const launch: Launch = { kernel: 'k', grid: [1, 1, 1], block: [4, 1, 1], sharedBytes: 0, args: [{ kind: 'buffer', name: 'out', type: 'u32', count: 32, init: undefined, file: undefined }] };
  const m = new Machine(loaded.program, launch, DEFAULT_RUN_OPTIONS);
  const res = m.run();
  expect(res.ok ? 'ok' : JSON.stringify(res.fault)).toBe('ok');
  const b = m.buffers[0]!.alloc.base;
  const out = new Uint32Array(m.arena.bank.u8.slice(b, b + 128).buffer);
  for (let t = 0; t < 4; t++) {
    const r = Array.from(out.slice(t * 8, t * 8 + 6));
    // own values back; first block 64-aligned; second after the 12 bytes, 16-aligned (offset 16);
    // after stackrestore the next 64-aligned alloca reuses the first block; the frame's .local is intact
    expect(r).toEqual([t, t + 100, 0, 16, 0, t]);
  }
});
