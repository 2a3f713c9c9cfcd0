/**
 * Instruction forms that used to fail inside their generated lane loop (found by enumerating
 * opcode × type through instruction selection). Expected values are computed by hand from the
 * PTX ISA's definitions, written next to each case.
 */
import { parseLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { formatDiagnostics } from '../../src/ptx/diagnostics.js';
import { loadPtx } from '../../src/ptx/index.js';

/** Runs `body` in one thread with %rd9 = the output buffer (u64 words); returns the words. */
function run(body: string, words = 4): bigint[] {
  const src = `.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 out)\n{
  .reg .b32 %r<16>; .reg .b64 %rd<16>; .reg .b16 %h<16>; .reg .pred %p<8>; .reg .f32 %f<16>;
  ld.param.u64 %rd9, [out];
  cvta.to.global.u64 %rd9, %rd9;
${body}
  ret;\n}\n`;
  const r = loadPtx(src, 'k.ptx');
  if (!r.program) throw new Error(formatDiagnostics('k.ptx', src, r.diagnostics));
  const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [1, 1, 1], args: [{ name: 'out', type: 'u64', count: words }] }, r.program, '.');
  const m = new Machine(r.program, launch, DEFAULT_RUN_OPTIONS);
  const res = m.run();
  if (res.fault) throw new Error(res.fault.message);
  const base = m.buffers[0]!.alloc.base;
  return [...new BigUint64Array(m.arena.bank.u8.slice(base, base + 8 * words).buffer)];
}

test('sad.u64 and sad.s64: |a - b| + c in 64 bits', () => {
  // u64: |5 - 0xFFFFFFFF00000000| = 0xFFFFFFFF00000000 - 5 = 0xFFFFFFFEFFFFFFFB; + 1 = ...FC
  // s64: |-3 - 4| + 10 = 17;  |4 - (-3)| + (-20) = -13 (two's complement in the word)
  const out = run(`
  mov.u64 %rd1, 5; mov.u64 %rd2, 0xFFFFFFFF00000000; mov.u64 %rd3, 1;
  sad.u64 %rd4, %rd1, %rd2, %rd3; st.global.u64 [%rd9], %rd4;
  mov.s64 %rd1, -3; mov.s64 %rd2, 4; mov.s64 %rd3, 10;
  sad.s64 %rd4, %rd1, %rd2, %rd3; st.global.u64 [%rd9+8], %rd4;
  mov.s64 %rd3, -20;
  sad.s64 %rd4, %rd2, %rd1, %rd3; st.global.u64 [%rd9+16], %rd4;`);
  expect(out.slice(0, 3)).toEqual([0xFFFFFFFEFFFFFFFCn, 17n, BigInt.asUintN(64, -13n)]);
});

test('setp.<cmp>.f16 / .bf16 compare the half values (NaN unordered), set.u32.f16 gives all ones', () => {
  // f16 1.0 = 0x3C00, 2.0 = 0x4000, NaN = 0x7E00; bf16 1.0 = 0x3F80, -2.0 = 0xC000
  const out = run(`
  mov.b16 %h1, 0x3C00; mov.b16 %h2, 0x4000; mov.b16 %h3, 0x7E00;
  mov.b16 %h4, 0x3F80; mov.b16 %h5, 0xC000;
  setp.lt.f16 %p1, %h1, %h2;   selp.u64 %rd1, 1, 0, %p1; st.global.u64 [%rd9], %rd1;
  setp.lt.f16 %p2, %h3, %h1;   selp.u64 %rd1, 1, 0, %p2; st.global.u64 [%rd9+8], %rd1;
  setp.ltu.f16 %p3, %h3, %h1;  selp.u64 %rd1, 1, 0, %p3; st.global.u64 [%rd9+16], %rd1;
  setp.gt.bf16 %p4, %h4, %h5;  set.lt.u32.f16 %r1, %h1, %h2;
  selp.u32 %r2, 1, 0, %p4; mov.b64 %rd2, {%r1, %r2}; st.global.u64 [%rd9+24], %rd2;`);
  // 1 < 2 true; NaN < 1 false; NaN <u 1 true; bf16 1 > -2 true (high word 1), set: 0xFFFFFFFF (low word)
  expect(out).toEqual([1n, 0n, 1n, (1n << 32n) | 0xFFFFFFFFn]);
});

test('sub.cc / subc keep CC.CF as the carry of a + ~b + 1 (not borrow), as NVIDIA hardware does', () => {
  // 5 - 3: 5 + 0xFFFFFFFC + 1 = 2^32 + 2 -> carry 1;  3 - 5: 3 + 0xFFFFFFFA + 1 = 0xFFFFFFFE -> carry 0.
  // addc 0, 0 reads CF back. A 64-bit 0x1_00000000 - 1 from halves: lo 0 - 1 = 0xFFFFFFFF with
  // carry 0, hi = 1 + ~0 + 0 = 0, so the result is 0x00000000_FFFFFFFF.
  // subc with CF = 1 subtracts nothing extra: 7 - 2 - (1 - 1) = 5.
  const out = run(`
  mov.u32 %r1, 5; mov.u32 %r2, 3;
  sub.cc.u32 %r3, %r1, %r2; addc.u32 %r4, 0, 0;
  sub.cc.u32 %r3, %r2, %r1; addc.u32 %r5, 0, 0;
  mov.b64 %rd1, {%r4, %r5}; st.global.u64 [%rd9], %rd1;
  mov.u32 %r6, 0; mov.u32 %r7, 1; mov.u32 %r8, 1; mov.u32 %r10, 0;
  sub.cc.u32 %r11, %r6, %r8; subc.u32 %r12, %r7, %r10;
  mov.b64 %rd2, {%r11, %r12}; st.global.u64 [%rd9+8], %rd2;
  add.cc.u32 %r13, 0xFFFFFFFF, 1; mov.u32 %r1, 7; mov.u32 %r2, 2; subc.u32 %r14, %r1, %r2;
  cvt.u64.u32 %rd3, %r14; st.global.u64 [%rd9+16], %rd3;`);
  expect(out.slice(0, 3)).toEqual([(0n << 32n) | 1n, 0x00000000FFFFFFFFn, 5n]);
});

test('WARP_SZ is the predefined constant 32 (nvcc emits `mov.u32 %r, WARP_SZ;` for warpSize)', () => {
  const out = run(`
  mov.u32 %r1, WARP_SZ; add.u32 %r2, %r1, WARP_SZ;
  mov.b64 %rd1, {%r1, %r2}; st.global.u64 [%rd9], %rd1;`);
  expect(out[0]).toBe((64n << 32n) | 32n);
});

test('mad24.hi.sat.s32 saturates the addition of c to the high 32 bits of the 48-bit product', () => {
  // 0x7FFFFF * 0x7FFFFF = 0x3FFFFF000001; bits 47..16 = 0x3FFFFF00 = 1073741568.
  // + 0x7FFFFFFF = 3221225215 > MAXINT: .sat gives 2147483647, plain .hi wraps to -1073742081.
  const out = run(`
  mov.u32 %r1, 0x7FFFFF; mov.u32 %r2, 0x7FFFFFFF;
  mad24.hi.sat.s32 %r3, %r1, %r1, %r2; mad24.hi.s32 %r4, %r1, %r1, %r2;
  mov.b64 %rd1, {%r3, %r4}; st.global.u64 [%rd9], %rd1;`);
  expect(out[0]).toBe((BigInt.asUintN(32, -1073742081n) << 32n) | 2147483647n);
});

test('set/setp on .f16x2 compare each half; set writes 1.0 per half for f16x2, 0xffff for u32', () => {
  // a = {hi 2.0 (0x4000), lo 1.0 (0x3C00)}, b = {1.0, 1.0}: gt is false in the low half, true in the high.
  // set.gt.f16x2.f16x2 -> {0x3C00, 0x0000} = 0x3C000000; set.gt.u32.f16x2 -> 0xFFFF0000;
  // setp.gt.f16x2 p|q -> p (low) false, q (high) true; bf16x2 {hi -1.0 (0xBF80), lo 3.0 (0x4040)} lt {0, 0}:
  // low false, high true -> set.lt.bf16x2.bf16x2 = 0x3F800000.
  const out = run(`
  mov.b32 %r1, 0x40003C00; mov.b32 %r2, 0x3C003C00;
  set.gt.f16x2.f16x2 %r3, %r1, %r2; set.gt.u32.f16x2 %r4, %r1, %r2;
  mov.b64 %rd1, {%r3, %r4}; st.global.u64 [%rd9], %rd1;
  setp.gt.f16x2 %p1|%p2, %r1, %r2; selp.u32 %r5, 1, 0, %p1; selp.u32 %r6, 1, 0, %p2;
  mov.b64 %rd2, {%r5, %r6}; st.global.u64 [%rd9+8], %rd2;
  mov.b32 %r7, 0xBF804040; mov.b32 %r8, 0;
  set.lt.bf16x2.bf16x2 %r9, %r7, %r8; cvt.u64.u32 %rd3, %r9; st.global.u64 [%rd9+16], %rd3;`);
  expect(out.slice(0, 3)).toEqual([(0xFFFF0000n << 32n) | 0x3C000000n, 1n << 32n, 0x3F800000n]);
});

test('set writes the true value of its destination type: f32 1.0, f16 1.0, s32 all ones', () => {
  // 1 < 2 is true: set.lt.f32.s32 -> 1.0f (0x3F800000), set.lt.f16.s32 -> 0x3C00, set.lt.s32.s32 -> 0xFFFFFFFF
  const out = run(`
  mov.u32 %r1, 1; mov.u32 %r2, 2;
  set.lt.f32.s32 %r3, %r1, %r2; set.lt.s32.s32 %r4, %r1, %r2;
  mov.b64 %rd1, {%r3, %r4}; st.global.u64 [%rd9], %rd1;
  set.lt.f16.s32 %h1, %r1, %r2; cvt.u64.u16 %rd2, %h1; st.global.u64 [%rd9+8], %rd2;`);
  expect(out.slice(0, 2)).toEqual([(0xFFFFFFFFn << 32n) | 0x3F800000n, 0x3C00n]);
});

test('cvt.pack.sat packs saturated halves (and the low bits of c for the 8-bit form)', () => {
  // u8: sat(300) = 0xFF, sat(-5) = 0x00; d = c[15:0] << 16 | 0xFF << 8 | 0x00 = 0x3344FF00 for c = 0x11223344.
  // s16: sat(40000) = 0x7FFF, sat(-40000) = -32768 = 0x8000; d = 0x7FFF8000.
  const out = run(`
  mov.u32 %r1, 300; mov.u32 %r2, -5; mov.u32 %r3, 0x11223344;
  cvt.pack.sat.u8.s32.b32 %r4, %r1, %r2, %r3;
  mov.u32 %r5, 40000; mov.u32 %r6, -40000;
  cvt.pack.sat.s16.s32 %r7, %r5, %r6;
  mov.b64 %rd1, {%r4, %r7}; st.global.u64 [%rd9], %rd1;`);
  expect(out[0]).toBe((0x7FFF8000n << 32n) | 0x3344FF00n);
});

test('call.uni (_), vprintf, (...): the interop guide\'s form with an ignored return value prints', () => {
  const src = `.version 8.0\n.target sm_80\n.address_size 64
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 fmt[4] = {104, 105, 10, 0};
.visible .entry k()
{
  .reg .b64 %rd<4>;
  cvta.global.u64 %rd1, fmt;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd1;
  .param .b64 param1;
  st.param.b64 [param1], 0;
  call.uni (_), vprintf, (param0, param1);
  }
  ret;
}
`;
  const r = loadPtx(src, 'k.ptx');
  const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [2, 1, 1], args: [] }, r.program!, '.');
  const res = new Machine(r.program!, launch, DEFAULT_RUN_OPTIONS).run();
  expect(res.fault).toBeUndefined();
  expect(res.stdout).toBe('hi\nhi\n'); // "hi\n" (bytes 104 105 10) once per thread
});

test('cvt to and from the 8-bit float pairs (e4m3x2, e5m2x2)', () => {
  // E4M3 (bias 7, 3 mantissa bits, max 448): 1.0 = 0x38; 448 = 1.75*2^8 = 0x7E; 1000 saturates to 0x7E;
  // 0.3 lies in [0.25, 0.5) with step 2^-5: 9.6 steps rounds to 10 = 0.3125 = 1.25*2^-2 -> 0x2A.
  // E5M2 (bias 15, 2 mantissa bits): 1.125 is a tie between 1.0 and 1.25 -> even 1.0 = 0x3C;
  // -1.375 ties between 1.25 and 1.5 -> even 1.5 = 0x3E, with the sign 0xBE.
  // a goes to the high byte, b to the low byte. Back to f16x2: 0x38 -> 1.0 (0x3C00), 0xC0 -> -2.0 (0xC000).
  const out = run(`
  mov.f32 %f1, 0f3F800000; mov.f32 %f2, 0f43E00000; mov.f32 %f3, 0f447A0000; mov.f32 %f4, 0f3E99999A;
  cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2; cvt.rn.satfinite.e4m3x2.f32 %h2, %f3, %f4;
  mov.f32 %f5, 0f3F900000; mov.f32 %f6, 0fBFB00000;
  cvt.rn.satfinite.e5m2x2.f32 %h3, %f5, %f6;
  mov.b16 %h4, 0x38C0; cvt.rn.f16x2.e4m3x2 %r1, %h4;
  cvt.u32.u16 %r2, %h1; cvt.u32.u16 %r3, %h2; cvt.u32.u16 %r4, %h3;
  mov.b64 %rd1, {%r2, %r3}; st.global.u64 [%rd9], %rd1;
  mov.b64 %rd2, {%r4, %r1}; st.global.u64 [%rd9+8], %rd2;`);
  expect(out.slice(0, 2)).toEqual([(0x7E2An << 32n) | 0x387En, (0x3C00C000n << 32n) | 0x3CBEn]);
});

test('prmt.b32: a selector nibble with its msb set replicates the sign of the byte it selects', () => {
  // a = 0x00000080 (byte 0 = 0x80, negative), b = 0x7F000000 (byte 7 = 0x7F, positive).
  // c = 0x0000F708: byte 0 <- nibble 8 = sign of byte 0 -> 0xFF; byte 1 <- nibble 0 = byte 0 -> 0x80;
  // byte 2 <- nibble 7 = byte 7 -> 0x7F; byte 3 <- nibble F = sign of byte 7 -> 0x00. d = 0x007F80FF.
  const out = run(`
  mov.b32 %r1, 0x00000080; mov.b32 %r2, 0x7F000000; mov.b32 %r3, 0x0000F708;
  prmt.b32 %r4, %r1, %r2, %r3; cvt.u64.u32 %rd1, %r4; st.global.u64 [%rd9], %rd1;`);
  expect(out[0]).toBe(0x007F80FFn);
});
