// fma.rn.f32 as a kernel executes it (the lane loop computes most results inline, compile/alu.ts)
// vs. the C oracle's fixture (fixtures/f32.txt, round-to-nearest column) and hand-made
// double-rounding traps.
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import type { Launch } from '../../src/exec/launch.js';
import { loadPtx } from '../../src/ptx/index.js';
import { hex32, isNaN32, loadFixture } from './helpers.js';

const KERNEL = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, .param .u32 ftz)
{
  .reg .b32 %i, %n, %z;
  .reg .b64 %o, %x;
  .reg .f32 %a, %b, %c, %d;
  .reg .pred %f;
  mov.u32 %i, %tid.x;
  mov.u32 %n, %ctaid.x;
  mad.lo.u32 %i, %n, 32, %i;
  mul.wide.u32 %o, %i, 4;
  ld.param.u64 %x, [pa];
  add.s64 %x, %x, %o;
  ld.global.f32 %a, [%x];
  ld.param.u64 %x, [pb];
  add.s64 %x, %x, %o;
  ld.global.f32 %b, [%x];
  ld.param.u64 %x, [pc];
  add.s64 %x, %x, %o;
  ld.global.f32 %c, [%x];
  ld.param.u32 %z, [ftz];
  setp.ne.u32 %f, %z, 0;
  @%f fma.rn.ftz.f32 %d, %a, %b, %c;
  @!%f fma.rn.f32 %d, %a, %b, %c;
  ld.param.u64 %x, [pd];
  add.s64 %x, %x, %o;
  st.global.f32 [%x], %d;
  ret;
}
`;

/** d = fma.rn(a, b, c) (as bit patterns) for each triple, by running the kernel. */
function kernelFma(triples: readonly (readonly [number, number, number])[], ftz = false): number[] {
  const program = loadPtx(KERNEL, 'fma.ptx').program!;
  const n = Math.ceil(triples.length / 32) * 32;
  const column = (j: number): Uint8Array => {
    const u = new Uint32Array(n);
    triples.forEach((t, i) => { u[i] = t[j]!; });
    return new Uint8Array(u.buffer);
  };
  const buf = (name: string, init: Uint8Array | undefined) => ({ kind: 'buffer' as const, name, type: 'u32' as const, count: n, init, file: undefined });
  const launch: Launch = {
    kernel: 'k', grid: [n / 32, 1, 1], block: [32, 1, 1], sharedBytes: 0,
    args: [buf('a', column(0)), buf('b', column(1)), buf('c', column(2)), buf('d', undefined), { kind: 'scalar', name: 'ftz', type: 'u32', value: ftz ? 1 : 0 }],
  };
  const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  m.run();
  const base = m.buffers[3]!.alloc.base;
  return [...new Uint32Array(m.arena.bank.u8.slice(base, base + 4 * triples.length).buffer)];
}

test('every fma of the oracle fixture, round to nearest', () => {
  const rows = loadFixture('f32.txt').filter((r) => r[0] === 'fma');
  const got = kernelFma(rows.map((r) => [hex32(r[1]!), hex32(r[2]!), hex32(r[3]!)] as const));
  const wrong = rows.filter((r, i) => {
    const want = hex32(r[4]!);
    return isNaN32(want) ? !isNaN32(got[i]!) : got[i] !== want;
  }).map((r) => r.slice(1, 5).join(' '));
  expect(rows.length).toBeGreaterThan(500);
  expect(wrong).toEqual([]);
});

test('a double sum that lands exactly on an f32 midpoint rounds by the part the double lost', () => {
  // a = (1 + 2^-15) 2^-12, b = (1 - 2^-15) 2^-12: a*b = 2^-24 - 2^-54; c = 1 + 2^-23.
  // a*b + c = 1 + 3*2^-24 - 2^-54: just below the midpoint between 1 + 2^-23 and 1 + 2^-22, so
  // the fused result is 1 + 2^-23 (0x3f800001); the double sum is the midpoint itself, and
  // rounding that (to even) would give 1 + 2^-22 (0x3f800002).
  const a = 0x39800100, b = 0x397ffe00, c = 0x3f800001;
  // the same with c negated and the product's sign flipped: -(1 + 2^-23) (0xbf800001)
  expect(kernelFma([[a, b, c], [a | 0x80000000, b, c | 0x80000000]]).map((x) => x.toString(16))).toEqual(['3f800001', 'bf800001']);
});

test('zero sums keep their sign, and .ftz flushes a subnormal result', () => {
  const got = kernelFma([
    [0x80000000, 0x3f800000, 0x80000000], // -0 * 1 + -0 = -0
    [0x3f800000, 0x3f800000, 0xbf800000], // 1 * 1 - 1 = +0
  ]);
  expect(got.map((x) => x.toString(16))).toEqual(['80000000', '0']);
  // 2^-63 * 2^-64 + 0 = 2^-127, a subnormal (0x00400000), flushed to +0 under .ftz
  expect(kernelFma([[0x20000000, 0x1f800000, 0]]).map((x) => x.toString(16))).toEqual(['400000']);
  expect(kernelFma([[0x20000000, 0x1f800000, 0]], true).map((x) => x.toString(16))).toEqual(['0']);
  // and a subnormal input is flushed first: 2^-63 * 2^-63 + (-2^-127 -> -0) = 2^-126 (0x00800000)
  expect(kernelFma([[0x20000000, 0x20000000, 0x80400000]], true).map((x) => x.toString(16))).toEqual(['800000']);
});

test('an exactly zero fused result has the sign IEEE 754 gives a sum (round to nearest: -0 only from -0 + -0)', () => {
  // IEEE 754-2008 6.3: an exact zero sum of opposite signs is +0 in round-to-nearest; x*y + z with
  // x*y and z both -0 is -0. -0*1 + -0 = -0 (0x80000000); 0*1 + -0 = +0; 1*1 + -1 = +0; -1*1 + 1 = +0;
  // -2*0.5 + 1 = +0; -0*-1 + -0 = +0 (the product is +0).
  const one = 0x3f800000, m1 = 0xbf800000, nz = 0x80000000;
  expect(kernelFma([[nz, one, nz], [0, one, nz], [one, one, m1], [m1, one, one], [0xc0000000, 0x3f000000, one], [nz, m1, nz]]).map((x) => x.toString(16)))
    .toEqual(['80000000', '0', '0', '0', '0', '0']);
});
