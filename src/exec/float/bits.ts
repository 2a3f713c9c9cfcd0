// Bit-level helpers shared by the float module.
// One module-level scratch buffer is reused by every call: the interpreter calls these in its
// per-lane hot loop, so they must not allocate. (Little-endian host assumed: x86-64 / arm64.)

const scratch = new ArrayBuffer(8);
const sF64 = new Float64Array(scratch);
const sF32 = new Float32Array(scratch);
const sU32 = new Uint32Array(scratch);
const sU64 = new BigUint64Array(scratch);

/** PTX canonical f32 NaN bit pattern. */
export const F32_CANONICAL_NAN_BITS = 0x7fffffff;

export const F32_MAX = 3.4028234663852886e38;
export const F32_MIN_NORMAL = 1.1754943508222875e-38; // 2^-126
export const F64_MIN_NORMAL = 2.2250738585072014e-308; // 2^-1022

/** f32 value (any JS number; it is rounded with Math.fround) → u32 bit pattern. NaN → 0x7fffffff. */
export function f32ToBits(x: number): number {
  if (x !== x) return F32_CANONICAL_NAN_BITS; // JS numbers carry no payload we could preserve
  sF32[0] = x;
  return sU32[0]!;
}

/** u32 bit pattern → f32 value as a JS number. */
export function bitsToF32(u: number): number {
  sU32[0] = u;
  return sF32[0]!;
}

/** Low 32 bits of an f64's pattern. */
export function f64LoWord(x: number): number {
  sF64[0] = x;
  return sU32[0]!;
}

/** High 32 bits of an f64's pattern (sign, exponent, top of the fraction). */
export function f64HiWord(x: number): number {
  sF64[0] = x;
  return sU32[1]!;
}

/** (lo, hi) u32 words → f64. */
export function f64FromWords(lo: number, hi: number): number {
  sU32[0] = lo;
  sU32[1] = hi;
  return sF64[0]!;
}

/** f64 → u64 bit pattern as a bigint (NaN keeps whatever pattern the engine uses: 0x7ff8…). */
export function f64ToBigInt(x: number): bigint {
  sF64[0] = x;
  return sU64[0]!;
}

/** u64 bit pattern (bigint, taken mod 2^64) → f64. */
export function bigIntToF64(b: bigint): number {
  sU64[0] = BigInt.asUintN(64, b);
  return sF64[0]!;
}

/** True if the sign bit is set (distinguishes -0; NaN reports false). */
export function signBit(x: number): boolean {
  return x < 0 || (x === 0 && 1 / x < 0);
}

/** Next f32 toward +inf (x must be an f32 value; NaN passes through). */
export function nextUp32(x: number): number {
  if (x !== x || x === Infinity) return x;
  if (x === 0) return 1.401298464324817e-45;
  sF32[0] = x;
  sU32[0] = x > 0 ? sU32[0]! + 1 : sU32[0]! - 1;
  return sF32[0]!;
}

/** Next f32 toward -inf. */
export function nextDown32(x: number): number {
  if (x !== x || x === -Infinity) return x;
  if (x === 0) return -1.401298464324817e-45;
  sF32[0] = x;
  sU32[0] = x > 0 ? sU32[0]! - 1 : sU32[0]! + 1;
  return sF32[0]!;
}

/** Next f64 toward +inf. */
export function nextUp64(x: number): number {
  if (x !== x || x === Infinity) return x;
  if (x === 0) return Number.MIN_VALUE;
  sF64[0] = x;
  // Increment the 64-bit magnitude pattern by ±1 with carry between the two words.
  if (x > 0) {
    const lo = sU32[0]!;
    if (lo === 0xffffffff) { sU32[0] = 0; sU32[1] = sU32[1]! + 1; } else sU32[0] = lo + 1;
  } else {
    const lo = sU32[0]!;
    if (lo === 0) { sU32[0] = 0xffffffff; sU32[1] = sU32[1]! - 1; } else sU32[0] = lo - 1;
  }
  return sF64[0]!;
}

/** Next f64 toward -inf. */
export function nextDown64(x: number): number {
  return -nextUp64(-x);
}

/** Low bit of an f64's fraction (used for round-to-odd). */
export function f64Odd(x: number): boolean {
  sF64[0] = x;
  return (sU32[0]! & 1) === 1;
}

/**
 * Unbiased binary exponent of |x| (floor(log2|x|)) for finite nonzero doubles, exact.
 * Subnormal doubles report -1023 or below — callers only need "below every small format's emin".
 */
export function exponentOf(x: number): number {
  sF64[0] = x;
  const e = (sU32[1]! >>> 20) & 0x7ff;
  if (e !== 0) return e - 1023;
  // subnormal: find the leading bit (rare)
  const hi = sU32[1]! & 0xfffff;
  const lo = sU32[0]!;
  if (hi !== 0) return 31 - Math.clz32(hi) + 32 - 1074;
  return 31 - Math.clz32(lo) - 1074;
}

/** Exact powers of two 2^k for k in [-1074, 1023], indexed by k + 1074. */
export const POW2 = (() => {
  const t = new Float64Array(1074 + 1024);
  let v = 1;
  for (let k = 0; k <= 1023; k++) { t[k + 1074] = v; v *= 2; }
  v = 1;
  for (let k = 0; k >= -1074; k--) { t[k + 1074] = v; v /= 2; }
  return t;
})();

/** 2^k exactly (k integer in [-1074, 1023]; outside → 0 or Infinity). */
export function pow2(k: number): number {
  if (k < -1074) return 0;
  if (k > 1023) return Infinity;
  return POW2[k + 1074]!;
}
