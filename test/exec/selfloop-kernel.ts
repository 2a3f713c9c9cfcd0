/**
 * The loop of one block that test/exec/selfloop.test.ts and test/trace/selfloop.test.ts run, and
 * its registers by hand: per iteration i (from 0), r4 = 3 * r3; r3 = r4 + i; r4 = r3 ^ 0x55;
 * r3 = r3 + r4; f2 = f2 * 0.5 + tid; r2 = i + 1; p1 = r2 < n; @p1 bra.
 */
/** `count`: the loop's trip count as PTX computing it from %r1 (tid) into %r6. */
export function loopPtx(count: string): string {
  return `.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>; .reg .b32 %r<8>; .reg .f32 %f<4>; .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x; ld.param.u32 %r6, [n]; ${count} mov.u32 %r2, 0; mov.u32 %r3, %r1; cvt.rn.f32.u32 %f1, %r1; mov.f32 %f2, 0f3F800000;
$L:
  mul.lo.u32 %r4, %r3, 3;
  add.u32 %r3, %r4, %r2;
  xor.b32 %r4, %r3, 0x55;
  add.u32 %r3, %r3, %r4;
  fma.rn.f32 %f2, %f2, 0f3F000000, %f1;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r6;
  @%p1 bra $L;
  ld.param.u64 %rd1, [out]; mul.wide.u32 %rd2, %r1, 8; add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3; st.global.f32 [%rd3+4], %f2;
  ret;
}`;
}

/** The loop's registers for thread `tid` after `k` iterations, by hand. */
export function byHand(tid: number, k: number): { r2: number; r3: number; r4: number; f2: number } {
  let r3 = tid, r4 = 0, f2 = 1;
  for (let i = 0; i < k; i++) {
    r4 = Math.imul(r3, 3) >>> 0;
    r3 = (r4 + i) >>> 0;
    r4 = (r3 ^ 0x55) >>> 0;
    r3 = (r3 + r4) >>> 0;
    f2 = Math.fround(f2 * 0.5 + tid); // f2 * 0.5 is exact: the fma rounds once, as this does
  }
  return { r2: k, r3, r4, f2 };
}

