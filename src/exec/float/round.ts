// Rounding modes and the generic (format-parameterised) rounding kernels.
import { exponentOf, pow2 } from './bits.js';

/** PTX floating-point rounding modifiers (.rn/.rz/.rm/.rp; integer .rni/.rzi/.rmi/.rpi map to these). */
export type RoundMode = 'rn' | 'rz' | 'rm' | 'rp';

/** Numeric codes for the hot path (switching on small ints is cheaper than on strings). */
export const RN = 0;
export const RZ = 1;
export const RM = 2;
export const RP = 3;
/** Round to nearest, ties away from zero (only used by cvt.rna.tf32.f32). */
export const RNA = 4;
export type Rnd = 0 | 1 | 2 | 3;
export type RndA = Rnd | 4;

/** 'rn' | 'rni' → RN etc. Unknown strings throw (parser bug). */
export function roundCode(m: string): Rnd {
  switch (m) {
    case 'rn': case 'rni': case '.rn': case '.rni': return RN;
    case 'rz': case 'rzi': case '.rz': case '.rzi': return RZ;
    case 'rm': case 'rmi': case '.rm': case '.rmi': return RM;
    case 'rp': case 'rpi': case '.rp': case '.rpi': return RP;
    default: throw new Error(`unknown rounding mode ${m}`);
  }
}

export function roundModeName(r: Rnd): RoundMode {
  return r === RN ? 'rn' : r === RZ ? 'rz' : r === RM ? 'rm' : 'rp';
}

/** Small binary formats handled by {@link roundToBits}: precision p (with hidden bit), exponent range, field widths. */
export interface SmallFormat {
  readonly p: number;
  readonly emin: number;
  readonly emax: number;
  /** exponent field width */
  readonly ebits: number;
  // derived constants (precomputed so the hot path does no exponentiation)
  readonly fracScale: number; // 2^(p-1)
  readonly signMask: number;
  readonly infBits: number;
  readonly nanBits: number;
}
function fmt(p: number, emin: number, emax: number, ebits: number): SmallFormat {
  const fracScale = 2 ** (p - 1);
  const infBits = ((1 << ebits) - 1) * fracScale;
  return { p, emin, emax, ebits, fracScale, signMask: 2 ** (p - 1 + ebits), infBits, nanBits: infBits + fracScale - 1 };
}
export const FMT_F16: SmallFormat = fmt(11, -14, 15, 5);
export const FMT_BF16: SmallFormat = fmt(8, -126, 127, 8);
/** tf32 = f32 range with a 10-bit fraction (encoded here as a 19-bit pattern). */
export const FMT_TF32: SmallFormat = fmt(11, -126, 127, 8);
export const FMT_F32: SmallFormat = fmt(24, -126, 127, 8);

/**
 * Round a double to a small binary format and return its bit pattern (sign included).
 * x must be either the exact value or a round-to-odd approximation with ≥ p+2 bits (all
 * doubles qualify for p ≤ 51), which makes this single rounding correct.
 * satfinite: overflow and ±inf become ±MAX (NaN stays NaN).
 */
export function roundToBits(x: number, mode: RndA, f: SmallFormat, satfinite: boolean): number {
  if (x !== x) return f.nanBits; // canonical NaN: all-ones exponent and fraction
  const neg = x < 0 || (x === 0 && 1 / x < 0);
  const ax = neg ? -x : x;
  const sign = neg ? f.signMask : 0;
  const infBits = f.infBits;
  if (ax === Infinity) return sign + (satfinite ? infBits - 1 : infBits);
  if (ax === 0) return sign;
  let e = exponentOf(ax);
  if (e < f.emin) e = f.emin; // subnormal range: fixed quantum
  // t = ax / quantum: exact (power-of-two scaling, result < 2^p)
  const t = ax * pow2(f.p - 1 - e);
  const fl = Math.floor(t);
  const frac = t - fl;
  let r = fl;
  if (frac !== 0) {
    if (mode === 0) { if (frac > 0.5 || (frac === 0.5 && fl % 2 === 1)) r++; }
    else if (mode === 4) { if (frac >= 0.5) r++; }
    else if ((mode === 3 && !neg) || (mode === 2 && neg)) r++;
  }
  // (e - emin) * 2^m + r gives the biased encoding, with carry into the exponent for free.
  const bits = (e - f.emin) * f.fracScale + r;
  if (bits >= infBits) {
    const towardZero = mode === 1 || (mode === 3 && neg) || (mode === 2 && !neg);
    return sign + (satfinite || towardZero ? infBits - 1 : infBits);
  }
  return sign + bits;
}

/** Decode a small-format bit pattern to its exact double value. */
export function bitsToValue(bits: number, f: SmallFormat): number {
  const m = f.p - 1;
  const fracMask = 2 ** m - 1;
  const emaxField = (1 << f.ebits) - 1;
  const neg = bits >= 2 ** (m + f.ebits);
  const b = neg ? bits - 2 ** (m + f.ebits) : bits;
  const ef = Math.floor(b / 2 ** m);
  const fr = b - ef * 2 ** m;
  let v: number;
  if (ef === emaxField) v = fr === 0 ? Infinity : NaN;
  else if (ef === 0) v = fr * pow2(f.emin - m);
  else v = (fr + fracMask + 1) * pow2(ef - f.emax - m);
  return neg ? -v : v;
}

// ---------- exact (BigInt) slow path ----------

function bitLength(n: bigint): number {
  if (n === 0n) return 0;
  const s = n.toString(16);
  return (s.length - 1) * 4 + (32 - Math.clz32(parseInt(s[0]!, 16)));
}

/**
 * Round the exact value (-1)^neg · M · 2^Q (M ≥ 0 bigint) to a binary format with precision p and
 * exponent range [emin, emax]; returns the rounded value as a JS number (±inf on overflow per mode).
 * A zero M returns a signed zero. Slow; used only for rare hard cases and 64-bit integer sources.
 */
export function roundBig(neg: boolean, M: bigint, Q: number, mode: RndA, p: number, emin: number, emax: number): number {
  if (M === 0n) return neg ? -0 : 0;
  const n = bitLength(M);
  let e = Q + n - 1;
  if (e < emin) e = emin;
  const q = e - p + 1; // target quantum exponent
  let keep: bigint;
  if (q <= Q) {
    keep = M << BigInt(Q - q);
  } else {
    const sh = BigInt(q - Q);
    keep = M >> sh;
    const rem = M - (keep << sh);
    if (rem !== 0n) {
      const half = 1n << (sh - 1n);
      let up: boolean;
      if (mode === 0) up = rem > half || (rem === half && (keep & 1n) === 1n);
      else if (mode === 4) up = rem >= half;
      else up = (mode === 3 && !neg) || (mode === 2 && neg);
      if (up) keep += 1n;
    }
  }
  const kb = bitLength(keep);
  if (kb === 0) return neg ? -0 : 0;
  if (kb + q - 1 > emax) {
    const towardZero = mode === 1 || (mode === 3 && neg) || (mode === 2 && !neg);
    const v = towardZero ? (2 - pow2(1 - p)) * pow2(emax) : Infinity;
    return neg ? -v : v;
  }
  // keep < 2^p ≤ 2^53 so Number(keep) is exact; the product is exactly representable.
  const v = Number(keep) * pow2(q);
  return neg ? -v : v;
}

/**
 * Round (-1)^neg · (N/D) · 2^Q to the format (D > 0). Uses a sticky bit below enough quotient
 * bits so the single final rounding is exact.
 */
export function roundRatio(neg: boolean, N: bigint, D: bigint, Q: number, mode: RndA, p: number, emin: number, emax: number): number {
  if (N === 0n) return neg ? -0 : 0;
  let s = p + 3 - (bitLength(N) - bitLength(D));
  if (s < 0) s = 0;
  const num = N << BigInt(s);
  const quo = num / D;
  const sticky = num - quo * D !== 0n ? 1n : 0n;
  return roundBig(neg, (quo << 1n) | sticky, Q - s - 1, mode, p, emin, emax);
}

/** Decompose a finite double into integer mantissa and exponent: |x| = mant · 2^exp. Writes to {@link dec}. */
export const dec = { mant: 0n, exp: 0 };
export function decompose(x: number): void {
  const ax = x < 0 ? -x : x;
  if (ax === 0) { dec.mant = 0n; dec.exp = 0; return; }
  let e = exponentOf(ax);
  if (e < -1022) e = -1022;
  const q = e - 52;
  // ax · 2^-q is an integer < 2^53 (exact scaling)
  dec.mant = BigInt(ax * pow2(-q > 1023 ? 1023 : -q) * (-q > 1023 ? pow2(-q - 1023) : 1));
  dec.exp = q;
}
