/**
 * Vector registers (`.reg .v2/.v4`): whole-vector ld/st/mov, components .x .y .z .w and .r .g .b .a,
 * ranges of vectors, and brace-list vector mov. Expected values follow from the PTX text by hand.
 */
import { parseLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { formatDiagnostics } from '../../src/ptx/diagnostics.js';
import { loadPtx } from '../../src/ptx/index.js';

const SRC = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .b64 %rd<16>;
  .reg .v4 .u32 %V, %W;
  .reg .v2 .u32 %P<2>;
  .reg .v4 .u16 %H;
  ld.param.u64 %rd9, [out];
  cvta.to.global.u64 %rd9, %rd9;
  ld.param.u64 %rd8, [in];
  cvta.to.global.u64 %rd8, %rd8;
  ld.global.v4.u32 %V, [%rd8];
  mov.v4.u32 %W, %V;
  mov.u32 %W.y, 99;
  add.u32 %W.a, %W.a, 1000;
  st.global.v4.u32 [%rd9], %W;
  mov.v2.u32 %P1, {%V.w, %V.x};
  st.global.v2.u32 [%rd9+16], %P1;
  mov.v4.u16 %H, {1, 2, 3, 4};
  mov.v4.u16 %H, {%H.w, %H.x, %H.y, %H.z};
  st.global.v4.u16 [%rd9+24], %H;
  ret;
}
`;

test('vector registers load, store and move as a whole and by component', () => {
  const r = loadPtx(SRC, 'k.ptx');
  if (!r.program) throw new Error(formatDiagnostics('k.ptx', SRC, r.diagnostics));
  const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [1, 1, 1], args: [{ name: 'out', type: 'u32', count: 8 }, { name: 'in', type: 'u32', count: 4 }] }, r.program, '.');
  const m = new Machine(r.program, launch, DEFAULT_RUN_OPTIONS);
  const inBuf = m.buffers[1]!.alloc.base;
  m.arena.bank.u8.set(new Uint8Array(Uint32Array.of(10, 20, 30, 40).buffer), inBuf);
  expect(m.run().fault).toBeUndefined();
  const base = m.buffers[0]!.alloc.base;
  const out = [...new Uint32Array(m.arena.bank.u8.slice(base, base + 32).buffer)];
  // W = V = {10,20,30,40}; W.y = 99; W.a (= W.w) += 1000 -> {10, 99, 30, 1040}
  // P1 = {V.w, V.x} = {40, 10}
  // H = {1,2,3,4} rotated to {4,1,2,3}: u16 pairs (lo, hi) -> 4 | 1<<16 = 65540, 2 | 3<<16 = 196610
  expect(out).toEqual([10, 99, 30, 1040, 40, 10, 65540, 196610]);
});
