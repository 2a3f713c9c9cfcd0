// binary16 (f16), bfloat16 (bf16) and tf32: conversions, arithmetic on bit patterns, x2 packing.
import { bitsToF32, f32ToBits, f64Odd, nextDown64, nextUp64 } from './bits.js';
import { FMT_BF16, FMT_F16, FMT_TF32, RM, RN, RNA, roundToBits, type Rnd, type RndA } from './round.js';

/** PTX canonical NaN patterns for f16 / bf16. */
export const F16_NAN = 0x7fff;
export const BF16_NAN = 0x7fff;

/** f16 bit pattern → exact value; a table keeps the hot path to one load. */
const F16_TABLE = (() => {
  // built from the fields directly (the generic bitsToValue costs ~20 ms at every start), an
  // exponent's row at a time with its scale computed once and the negative half as the positive
  // one negated: this runs once per process, before the code is optimised (5x faster than a
  // power per entry)
  const t = new Float64Array(65536);
  for (let e = 0; e < 31; e++) {
    const scale = e === 0 ? 2 ** -24 : 2 ** (e - 25), lead = e === 0 ? 0 : 1024, row = e << 10;
    for (let m = 0; m < 1024; m++) t[row + m] = (lead + m) * scale;
  }
  t[31 << 10] = Infinity;
  t.fill(NaN, (31 << 10) + 1, 32768);
  for (let h = 0; h < 32768; h++) t[h | 0x8000] = -t[h]!;
  return t;
})();

/** f16 bits → value (exact; usable as f32 or f64). */
export function f16ToF32(h: number): number {
  return F16_TABLE[h & 0xffff]!;
}
export const f16ToF64 = f16ToF32;

/** bf16 bits → f32 value (exact). */
export function bf16ToF32(h: number): number {
  return bitsToF32((h & 0xffff) << 16);
}

function relu16(bits: number, nan: number): number {
  if (bits === nan) return bits;
  return bits >= 0x8000 ? 0 : bits; // negative (incl. -0) → +0
}

/**
 * cvt{.rnd}{.relu}{.satfinite}.f16.{f32,f64}: round to binary16 bits. Correct subnormals,
 * overflow per mode (rz/rm/rp may give MAX), NaN → 0x7fff.
 */
export function toF16(x: number, mode: Rnd, satfinite = false, relu = false): number {
  const b = roundToBits(x, mode, FMT_F16, satfinite);
  return relu ? relu16(b, F16_NAN) : b;
}

/** cvt{.rnd}{.relu}{.satfinite}.bf16.{f32,f64}: round to bfloat16 bits. */
export function toBf16(x: number, mode: Rnd, satfinite = false, relu = false): number {
  let b: number;
  if (mode === RN && !satfinite && x === Math.fround(x)) {
    // Fast path for f32 inputs: bf16 shares f32's exponent, so rn is integer rounding of the pattern.
    const u = f32ToBits(x); // (NaN fails x === fround(x) and takes the general path)
    b = ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
  } else {
    b = roundToBits(x, mode, FMT_BF16, satfinite);
  }
  return relu ? relu16(b, BF16_NAN) : b;
}

/**
 * cvt.rna{.satfinite}.tf32.f32 (mode RNA) or cvt.{rn,rz}{.satfinite}{.relu}.tf32.f32: result is the
 * f32 bit pattern with the low 13 bits cleared. NaN → 0x7fffffff.
 */
export function toTf32(x: number, mode: RndA = RNA, satfinite = false, relu = false): number {
  if (x !== x) return 0x7fffffff;
  if (relu && (x < 0 || (x === 0 && 1 / x < 0))) return 0;
  const b = roundToBits(x, mode, FMT_TF32, satfinite); // 19-bit tf32 encoding
  return (b * 8192) >>> 0;
}

// ---- arithmetic on 16-bit patterns ----

/**
 * Round p + c (doubles, exact inputs) to the format: TwoSum gives the exact error, rounding the
 * double to odd makes the final single rounding correct (53 ≥ 11 + 2).
 */
function roundSum16(p: number, c: number, mode: Rnd, bf: boolean): number {
  let d = p + c;
  if (d === 0 && d === d) {
    if (mode === RM) d = p === 0 && c === 0 && 1 / p > 0 && 1 / c > 0 ? 0 : -0;
  } else if (d - d === 0) {
    const bb = d - p;
    const e = (p - (d - bb)) + (c - bb);
    if (e !== 0 && !f64Odd(d)) d = e > 0 ? nextUp64(d) : nextDown64(d);
  }
  return roundToBits(d, mode, bf ? FMT_BF16 : FMT_F16, false);
}

function dec16(h: number, bf: boolean): number {
  return bf ? bitsToF32((h & 0xffff) << 16) : F16_TABLE[h & 0xffff]!;
}

export function f16Add(a: number, b: number, mode: Rnd = RN): number { return roundSum16(F16_TABLE[a]!, F16_TABLE[b]!, mode, false); }
export function f16Sub(a: number, b: number, mode: Rnd = RN): number { return roundSum16(F16_TABLE[a]!, -F16_TABLE[b]!, mode, false); }
export function f16Mul(a: number, b: number, mode: Rnd = RN): number {
  return roundToBits(F16_TABLE[a]! * F16_TABLE[b]!, mode, FMT_F16, false); // product exact in double
}
export function f16Fma(a: number, b: number, c: number, mode: Rnd = RN): number {
  return roundSum16(F16_TABLE[a]! * F16_TABLE[b]!, F16_TABLE[c]!, mode, false);
}
export function bf16Add(a: number, b: number, mode: Rnd = RN): number { return roundSum16(dec16(a, true), dec16(b, true), mode, true); }
export function bf16Sub(a: number, b: number, mode: Rnd = RN): number { return roundSum16(dec16(a, true), -dec16(b, true), mode, true); }
export function bf16Mul(a: number, b: number, mode: Rnd = RN): number {
  return roundToBits(dec16(a, true) * dec16(b, true), mode, FMT_BF16, false);
}
export function bf16Fma(a: number, b: number, c: number, mode: Rnd = RN): number {
  return roundSum16(dec16(a, true) * dec16(b, true), dec16(c, true), mode, true);
}

/** neg/abs only touch the sign bit (same for f16 and bf16). */
export function h16Neg(h: number): number { return (h ^ 0x8000) & 0xffff; }
export function h16Abs(h: number): number { return h & 0x7fff; }

function isNaN16(h: number, bf: boolean): boolean {
  return bf ? (h & 0x7f80) === 0x7f80 && (h & 0x7f) !== 0 : (h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0;
}

/** PTX min/max on 16-bit floats: a NaN input yields the other input; both NaN → canonical; -0 < +0. */
function minmax16(a: number, b: number, bf: boolean, max: boolean, nanVariant: boolean): number {
  const an = isNaN16(a, bf);
  const bn = isNaN16(b, bf);
  if (an || bn) {
    if (nanVariant || (an && bn)) return 0x7fff;
    return an ? b : a;
  }
  const va = dec16(a, bf);
  const vb = dec16(b, bf);
  if (va === vb) {
    // equal values: only ±0 differ; pick by sign bit
    const aNeg = (a & 0x8000) !== 0;
    return max ? (aNeg ? b : a) : (aNeg ? a : b);
  }
  return (va < vb) !== max ? a : b;
}
export function f16Min(a: number, b: number, nanVariant = false): number { return minmax16(a, b, false, false, nanVariant); }
export function f16Max(a: number, b: number, nanVariant = false): number { return minmax16(a, b, false, true, nanVariant); }
export function bf16Min(a: number, b: number, nanVariant = false): number { return minmax16(a, b, true, false, nanVariant); }
export function bf16Max(a: number, b: number, nanVariant = false): number { return minmax16(a, b, true, true, nanVariant); }

/** .ftz for f16 patterns: subnormal → signed zero. */
export function ftz16(h: number): number {
  return (h & 0x7c00) === 0 ? h & 0x8000 : h;
}
/** .ftz for bf16 patterns. */
export function ftzBf16(h: number): number {
  return (h & 0x7f80) === 0 ? h & 0x8000 : h;
}
/** .sat on f16 patterns: clamp to [0, 1], NaN → +0. */
export function sat16(h: number): number {
  if (isNaN16(h, false) || (h & 0x8000) !== 0) return 0;
  return h > 0x3c00 ? 0x3c00 : h;
}
export function satBf16(h: number): number {
  if (isNaN16(h, true) || (h & 0x8000) !== 0) return 0;
  return h > 0x3f80 ? 0x3f80 : h;
}

// ---- x2 packing: element 0 in the low half, element 1 in the high half ----

export function pack16x2(lo: number, hi: number): number {
  return ((lo & 0xffff) | ((hi & 0xffff) << 16)) >>> 0;
}
export function lo16(x: number): number { return x & 0xffff; }
export function hi16(x: number): number { return (x >>> 16) & 0xffff; }

type Bin16 = (a: number, b: number, mode: Rnd) => number;
function lanes2(f: Bin16, a: number, b: number, mode: Rnd): number {
  return pack16x2(f(a & 0xffff, b & 0xffff, mode), f(a >>> 16, b >>> 16, mode));
}
export function f16x2Add(a: number, b: number, mode: Rnd = RN): number { return lanes2(f16Add, a, b, mode); }
export function f16x2Sub(a: number, b: number, mode: Rnd = RN): number { return lanes2(f16Sub, a, b, mode); }
export function f16x2Mul(a: number, b: number, mode: Rnd = RN): number { return lanes2(f16Mul, a, b, mode); }
export function f16x2Fma(a: number, b: number, c: number, mode: Rnd = RN): number {
  return pack16x2(f16Fma(a & 0xffff, b & 0xffff, c & 0xffff, mode), f16Fma(a >>> 16, b >>> 16, c >>> 16, mode));
}
export function bf16x2Add(a: number, b: number, mode: Rnd = RN): number { return lanes2(bf16Add, a, b, mode); }
export function bf16x2Sub(a: number, b: number, mode: Rnd = RN): number { return lanes2(bf16Sub, a, b, mode); }
export function bf16x2Mul(a: number, b: number, mode: Rnd = RN): number { return lanes2(bf16Mul, a, b, mode); }
export function bf16x2Fma(a: number, b: number, c: number, mode: Rnd = RN): number {
  return pack16x2(bf16Fma(a & 0xffff, b & 0xffff, c & 0xffff, mode), bf16Fma(a >>> 16, b >>> 16, c >>> 16, mode));
}
export function h16x2Neg(a: number): number { return (a ^ 0x80008000) >>> 0; }
export function h16x2Abs(a: number): number { return (a & 0x7fff7fff) >>> 0; }
export function f16x2Min(a: number, b: number, nanVariant = false): number {
  return pack16x2(f16Min(a & 0xffff, b & 0xffff, nanVariant), f16Min(a >>> 16, b >>> 16, nanVariant));
}
export function f16x2Max(a: number, b: number, nanVariant = false): number {
  return pack16x2(f16Max(a & 0xffff, b & 0xffff, nanVariant), f16Max(a >>> 16, b >>> 16, nanVariant));
}
export function bf16x2Min(a: number, b: number, nanVariant = false): number {
  return pack16x2(bf16Min(a & 0xffff, b & 0xffff, nanVariant), bf16Min(a >>> 16, b >>> 16, nanVariant));
}
export function bf16x2Max(a: number, b: number, nanVariant = false): number {
  return pack16x2(bf16Max(a & 0xffff, b & 0xffff, nanVariant), bf16Max(a >>> 16, b >>> 16, nanVariant));
}

/** cvt.{rn,rz}{.relu}{.satfinite}.f16x2.f32 d, a, b: a goes to the upper half, b to the lower (PTX order). */
export function cvtF32x2ToF16x2(a: number, b: number, mode: Rnd, satfinite = false, relu = false): number {
  return pack16x2(toF16(b, mode, satfinite, relu), toF16(a, mode, satfinite, relu));
}
export function cvtF32x2ToBf16x2(a: number, b: number, mode: Rnd, satfinite = false, relu = false): number {
  return pack16x2(toBf16(b, mode, satfinite, relu), toBf16(a, mode, satfinite, relu));
}
