// PTX cvt between floats and integers, and between f32/f64.
import { F32_MIN_NORMAL } from './bits.js';
import { adjust32, ftz32 } from './f32.js';
import { toF16 } from './half.js';
import { RM, RN, RZ, roundBig, type Rnd } from './round.js';

const fround = Math.fround;

/** cvt{.rnd}.f32.f64: round a double to binary32 in any mode. */
export function f64ToF32(x: number, mode: Rnd): number {
  const f = fround(x);
  if (mode === RN || f === x || x !== x) return f;
  return adjust32(f, x > f, mode);
}

/** cvt{.rnd}{.ftz}{.sat}.f32.f64 with modifiers (ftz flushes subnormal f32 results; PTX applies it to the f32 side). */
export function cvtF64ToF32(x: number, mode: Rnd, ftz: boolean, saturate: boolean): number {
  let r = f64ToF32(x, mode);
  if (ftz) r = ftz32(r);
  if (saturate) r = !(r > 0) ? 0 : r > 1 ? 1 : r;
  return r;
}

/** cvt.f64.f32 is exact (ftz: flush a subnormal f32 input first). */
export function cvtF32ToF64(x: number, ftz: boolean): number {
  if (ftz && x !== 0 && x < F32_MIN_NORMAL && x > -F32_MIN_NORMAL) return x < 0 ? -0 : 0;
  return x;
}

/** Round a float to an integral value (.rni = ties to even, .rzi, .rmi, .rpi). NaN/inf pass through. */
export function roundToIntegral(x: number, mode: Rnd): number {
  switch (mode) {
    case RN: {
      const r = Math.round(x); // ties toward +inf …
      return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r; // … fixed to ties-to-even
    }
    case RZ: return Math.trunc(x);
    case RM: return Math.floor(x);
    default: return Math.ceil(x);
  }
}

/** Integer destination types of cvt (64-bit ones return bigint, see {@link cvtFloatToInt64}). */
export type IntType = 's8' | 's16' | 's32' | 'u8' | 'u16' | 'u32';
export const INT_MIN: Readonly<Record<IntType, number>> = { s8: -128, s16: -32768, s32: -2147483648, u8: 0, u16: 0, u32: 0 };
export const INT_MAX: Readonly<Record<IntType, number>> = { s8: 127, s16: 32767, s32: 2147483647, u8: 255, u16: 65535, u32: 4294967295 };

/**
 * cvt.{rni,rzi,rmi,rpi}.{s,u}{8,16,32}.{f32,f64}: round then saturate (NaN → 0). Pass the
 * destination range as numbers (hot path: no string lookups) — see INT_MIN/INT_MAX.
 */
export function cvtFloatToInt(x: number, mode: Rnd, lo: number, hi: number): number {
  if (x !== x) return 0;
  const r = roundToIntegral(x, mode);
  if (r <= lo) return lo;
  if (r >= hi) return hi;
  return r + 0; // -0 → 0
}

const TWO63 = 2 ** 63;
const TWO64 = 2 ** 64;
/** cvt.{irnd}.{s64,u64}.{f32,f64}: saturating, NaN → 0. */
export function cvtFloatToInt64(x: number, mode: Rnd, signed: boolean): bigint {
  if (x !== x) return 0n;
  const r = roundToIntegral(x, mode);
  if (signed) {
    if (r >= TWO63) return 0x7fffffffffffffffn;
    if (r <= -TWO63) return -0x8000000000000000n;
  } else {
    if (r >= TWO64) return 0xffffffffffffffffn;
    if (r <= 0) return 0n;
  }
  return BigInt(r); // r is integral and in range
}

/** cvt{.rnd}.f32.{s,u}{8,16,32}: v is an integer |v| < 2^53. */
export function cvtIntToF32(v: number, mode: Rnd): number {
  return f64ToF32(v, mode);
}

/** cvt.f64.{s,u}{8,16,32} is exact. */
export function cvtIntToF64(v: number): number {
  return v;
}

const MAX_SAFE = 9007199254740992n; // 2^53

/** cvt{.rnd}.f64.{s64,u64}: correctly rounded from the full 64-bit value (signed selects the interpretation). */
export function cvtInt64ToF64(v: bigint, mode: Rnd, signed: boolean): number {
  v = signed ? BigInt.asIntN(64, v) : BigInt.asUintN(64, v);
  if (v <= MAX_SAFE && v >= -MAX_SAFE) return Number(v);
  const neg = v < 0n;
  return roundBig(neg, neg ? -v : v, 0, mode, 53, -1022, 1023);
}

/** cvt{.rnd}.f32.{s64,u64}: rounds the 64-bit integer directly to binary32 (no double rounding). */
export function cvtInt64ToF32(v: bigint, mode: Rnd, signed: boolean): number {
  v = signed ? BigInt.asIntN(64, v) : BigInt.asUintN(64, v);
  if (v <= MAX_SAFE && v >= -MAX_SAFE) return f64ToF32(Number(v), mode);
  const neg = v < 0n;
  return roundBig(neg, neg ? -v : v, 0, mode, 24, -126, 127);
}

/**
 * cvt{.rnd}.f16.{s64,u64} → f16 bits. Going through Number() is safe here: any |v| ≥ 2^53 is far
 * beyond f16's range, so the result (±inf or ±MAX per mode) does not depend on that rounding.
 */
export function cvtInt64ToF16(v: bigint, mode: Rnd, signed: boolean): number {
  v = signed ? BigInt.asIntN(64, v) : BigInt.asUintN(64, v);
  return toF16(Number(v), mode);
}

/** cvt{.rnd}.{s,u}{8..64} → f16 for 32-bit-or-narrower sources (exact integer in a double). */
export function cvtIntToF16(v: number, mode: Rnd): number {
  return toF16(v, mode);
}
