// PTX .approx / .full functions. PTX only bounds their error (1-2 ulp or an absolute bound), so we
// return the f32 rounding of the double-precision Math result: at least as accurate as the GPU,
// not bit-identical to it. Special values follow the PTX ISA tables.
import { F32_MIN_NORMAL } from './bits.js';
import { bf16ToF32, f16ToF32, toBf16, toF16 } from './half.js';
import { RN } from './round.js';

const fround = Math.fround;
const TWO126 = 2 ** 126;

function flush(x: number): number {
  return x !== 0 && x < F32_MIN_NORMAL && x > -F32_MIN_NORMAL ? (x < 0 ? -0 : 0) : x;
}

/** ex2.approx{.ftz}.f32: 2^x. ex2(-inf) = +0, ex2(±0) = 1, ex2(+inf) = +inf. */
export function ex2Approx(x: number, ftz = false): number {
  if (ftz) x = flush(x);
  const r = fround(2 ** x);
  return ftz ? flush(r) : r;
}

/** lg2.approx{.ftz}.f32: log2 x. lg2(±0) = -inf, lg2(x<0) = NaN, lg2(+inf) = +inf. */
export function lg2Approx(x: number, ftz = false): number {
  if (ftz) x = flush(x);
  return fround(Math.log2(x));
}

/** sin.approx{.ftz}.f32: sin(±0) = ±0, sin(±inf) = NaN. */
export function sinApprox(x: number, ftz = false): number {
  if (ftz) x = flush(x);
  const r = fround(Math.sin(x));
  return ftz ? flush(r) : r;
}

/** cos.approx{.ftz}.f32: cos(±0) = 1, cos(±inf) = NaN. */
export function cosApprox(x: number, ftz = false): number {
  if (ftz) x = flush(x);
  const r = fround(Math.cos(x));
  return ftz ? flush(r) : r;
}

/** tanh.approx.f32: tanh(±0) = ±0, tanh(±inf) = ±1. */
export function tanhApprox(x: number): number {
  return fround(Math.tanh(x));
}

/** rsqrt.approx{.ftz}.f32: rsqrt(+0) = +inf, rsqrt(-0) = -inf, rsqrt(x<0) = NaN, rsqrt(+inf) = +0. */
export function rsqrtApprox(x: number, ftz = false): number {
  if (ftz) x = flush(x);
  const r = fround(1 / Math.sqrt(x));
  return ftz ? flush(r) : r;
}

/** rsqrt.approx{.ftz}.f64 (ftz flushes f64 subnormals). */
export function rsqrtApproxF64(x: number, ftz = false): number {
  if (ftz && x !== 0 && x < 2.2250738585072014e-308 && x > -2.2250738585072014e-308) x = x < 0 ? -0 : 0;
  return 1 / Math.sqrt(x);
}

/** rcp.approx{.ftz}.f32: rcp(±0) = ±inf, rcp(±inf) = ±0. */
export function rcpApprox(x: number, ftz = false): number {
  if (ftz) x = flush(x);
  const r = fround(1 / x);
  return ftz ? flush(r) : r;
}

/** rcp.approx.ftz.f64: 1/x with f64 subnormal inputs/results flushed. */
export function rcpApproxF64(x: number): number {
  const m = 2.2250738585072014e-308;
  if (x !== 0 && x < m && x > -m) x = x < 0 ? -0 : 0;
  const r = 1 / x;
  return r !== 0 && r < m && r > -m ? (r < 0 ? -0 : 0) : r;
}

/** sqrt.approx{.ftz}.f32: sqrt(-0) = -0, sqrt(x<0) = NaN. */
export function sqrtApprox(x: number, ftz = false): number {
  if (ftz) x = flush(x);
  return fround(Math.sqrt(x));
}

/**
 * div.approx{.ftz}.f32 (a·(1/b) on hardware): for 2^126 < |b| < 2^128 PTX returns 0 for finite a
 * and NaN for infinite a; elsewhere within 2 ulp, we return the rounded quotient.
 */
export function divApprox(a: number, b: number, ftz = false): number {
  if (ftz) { a = flush(a); b = flush(b); }
  const ab = b < 0 ? -b : b;
  if (ab > TWO126 && ab !== Infinity) {
    if (a === Infinity || a === -Infinity) return NaN;
    if (a !== a) return NaN;
    return (a < 0 || (a === 0 && 1 / a < 0)) !== b < 0 ? -0 : 0;
  }
  const r = fround(a / b);
  return ftz ? flush(r) : r;
}

/** div.full{.ftz}.f32: full-range, ≤ 2 ulp on hardware; we return the correctly rounded quotient. */
export function divFull(a: number, b: number, ftz = false): number {
  if (ftz) { a = flush(a); b = flush(b); }
  const r = fround(a / b);
  return ftz ? flush(r) : r;
}

// 16-bit variants (ex2.approx.f16 / .ftz.bf16, tanh.approx.f16 / .bf16): compute in double and
// round once to the 16-bit format; inputs and results are bit patterns.
export function ex2ApproxF16(h: number): number { return toF16(2 ** f16ToF32(h), RN); }
export function ex2ApproxBf16(h: number): number { return toBf16(2 ** bf16ToF32(h), RN); }
export function tanhApproxF16(h: number): number { return toF16(Math.tanh(f16ToF32(h)), RN); }
export function tanhApproxBf16(h: number): number { return toBf16(Math.tanh(bf16ToF32(h)), RN); }
