// binary32 arithmetic with all four IEEE rounding modes, bit-exact.
// Strategy: compute in double (exact for mul; exact error term for add/fma via TwoSum; residual
// check for div/sqrt), Math.fround for the nearest result, then step one ulp for directed modes
// when the exact value lies on the wrong side of that candidate.
import { F32_MIN_NORMAL, f64Odd, nextDown32, nextDown64, nextUp32, nextUp64 } from './bits.js';
import { RM, RN, RP, RZ, type Rnd } from './round.js';

const fround = Math.fround;

/**
 * f is the f32 nearest to the exact value v; `above` says v > f (v ≠ f). Returns the f32 rounding
 * of v in `mode`. Works across zero, subnormals and overflow (f = ±inf with finite v).
 */
export function adjust32(f: number, above: boolean, mode: Rnd): number {
  if (above) return mode === RP || (mode === RZ && f < 0) ? nextUp32(f) : f;
  return mode === RM || (mode === RZ && f > 0) ? nextDown32(f) : f;
}

/**
 * Round v = d + e (exact, d = RN64(v)) to f32. Rounding d to odd first makes the second rounding
 * innocuous (53 ≥ 24 + 2), which fixes fma's double-rounding cases.
 */
function finish32(d: number, e: number, mode: Rnd): number {
  if (e !== 0 && !f64Odd(d)) d = e > 0 ? nextUp64(d) : nextDown64(d);
  const f = fround(d);
  if (mode === RN || f === d) return f;
  return adjust32(f, d > f, mode);
}

/** Sign of an exact zero sum x + y (both zero or cancelling): -0 only in .rm or when both are -0. */
function zeroSum(x: number, y: number, mode: Rnd): number {
  if (mode === RM) return x === 0 && y === 0 && 1 / x > 0 && 1 / y > 0 ? 0 : -0;
  return x + y; // JS (round-to-nearest) already gives +0 except for (-0)+(-0)
}

export function f32Add(a: number, b: number, mode: Rnd): number {
  const d = a + b;
  // Sum of two f32 in double then one rounding is correct for rn (53 ≥ 2·24 + 2).
  if (mode === RN) return fround(d);
  if (d !== d || d === Infinity || d === -Infinity) return d; // only from inf/NaN inputs
  if (d === 0) return zeroSum(a, b, mode);
  const bb = d - a;
  const e = (a - (d - bb)) + (b - bb); // TwoSum: exact error
  return finish32(d, e, mode);
}

export function f32Sub(a: number, b: number, mode: Rnd): number {
  return f32Add(a, -b, mode);
}

export function f32Mul(a: number, b: number, mode: Rnd): number {
  const d = a * b; // exact: 24×24 bits, exponent range fits in double
  const f = fround(d);
  if (mode === RN || f === d || d !== d) return f;
  return adjust32(f, d > f, mode);
}

export function f32Div(a: number, b: number, mode: Rnd): number {
  const d = a / b;
  const f = fround(d);
  if (mode === RN || d !== d || d === 0 || d === Infinity || d === -Infinity) return f;
  if (f !== d) return adjust32(f, d > f, mode);
  // d is itself an f32: decide the side from the exact residual a - f·b (f·b is exact in double).
  const r = a - f * b;
  if (r === 0) return f;
  return adjust32(f, (r > 0) === (b > 0), mode);
}

export function f32Rcp(x: number, mode: Rnd): number {
  return f32Div(1, x, mode);
}

export function f32Sqrt(a: number, mode: Rnd): number {
  const d = Math.sqrt(a);
  const f = fround(d);
  if (mode === RN || d !== d || d === 0 || d === Infinity) return f;
  if (f !== d) return adjust32(f, d > f, mode);
  const r = a - f * f; // exact square
  if (r === 0) return f;
  return adjust32(f, r > 0, mode);
}

/** Fused a·b + c with a single rounding to binary32. */
export function f32Fma(a: number, b: number, c: number, mode: Rnd): number {
  const p = a * b; // exact
  const d = p + c;
  if (d !== d || d === Infinity || d === -Infinity) return d;
  if (d === 0) return zeroSum(p, c, mode);
  const bb = d - p;
  const e = (p - (d - bb)) + (c - bb);
  if (e === 0) {
    const f = fround(d);
    if (mode === RN || f === d) return f;
    return adjust32(f, d > f, mode);
  }
  return finish32(d, e, mode);
}

// ---- modifiers ----

/** .ftz: subnormal f32 → sign-preserving zero. */
export function ftz32(x: number): number {
  if (x < F32_MIN_NORMAL && x > -F32_MIN_NORMAL && x !== 0) return x < 0 ? -0 : 0;
  return x;
}

/** .sat: clamp to [0, 1]; NaN → +0 (and -0 → +0). */
export function sat(x: number): number {
  if (!(x > 0)) return 0; // NaN, ±0, negatives
  return x > 1 ? 1 : x;
}
