// binary64 arithmetic with all four rounding modes, bit-exact.
// JS gives round-to-nearest; directed modes take that result z and decide on which side of z the
// exact value lies, from exact error terms (TwoSum, Dekker TwoProduct) — then step one ulp.
// Inputs outside the range where those error terms are exact (underflow, near overflow) go to a
// BigInt slow path.
import { f64Odd, nextDown64, nextUp64 } from './bits.js';
import { dec, decompose, RM, RN, RP, RZ, roundBig, roundRatio, type Rnd } from './round.js';

const SPLIT = 134217729; // 2^27 + 1, Veltkamp splitter
const BIG = 2 ** 995; // beyond this SPLIT·x may overflow
const TINY = 2 ** -950; // products below this may have inexact TwoProduct error terms

/** z = RN(v); s = sign(v - z). Returns the rounding of v in mode. Handles overflow (z = ±inf). */
export function adjust64(z: number, s: number, mode: Rnd): number {
  if (s === 0) return z;
  if (s > 0) return mode === RP || (mode === RZ && z < 0) ? nextUp64(z) : z;
  return mode === RM || (mode === RZ && z > 0) ? nextDown64(z) : z;
}

/** Exact a·b - p for p = RN(a·b), valid when |a|,|b| ≤ 2^995 and |p| ≥ 2^-950 (Dekker). */
function twoProdErr(a: number, b: number, p: number): number {
  let t = SPLIT * a;
  const ah = t - (t - a);
  const al = a - ah;
  t = SPLIT * b;
  const bh = t - (t - b);
  const bl = b - bh;
  return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

/**
 * Exact sign (-1/0/1) of x1+x2+x3+x4 (no overflow): grow a nonoverlapping expansion with TwoSum
 * (Shewchuk); the largest nonzero component carries the sign.
 */
function sign4(x1: number, x2: number, x3: number, x4: number): number {
  let Q = x2 + x1; let bv = Q - x2; const h0 = (x2 - (Q - bv)) + (x1 - bv);
  let Q1 = x3 + h0; bv = Q1 - x3; const g0 = (x3 - (Q1 - bv)) + (h0 - bv);
  const Q2 = Q1 + Q; bv = Q2 - Q1; const g1 = (Q1 - (Q2 - bv)) + (Q - bv);
  Q = x4 + g0; bv = Q - x4; const k0 = (x4 - (Q - bv)) + (g0 - bv);
  Q1 = Q + g1; bv = Q1 - Q; const k1 = (Q - (Q1 - bv)) + (g1 - bv);
  const R3 = Q1 + Q2; bv = R3 - Q1; const k2 = (Q1 - (R3 - bv)) + (Q2 - bv);
  const top = R3 !== 0 ? R3 : k2 !== 0 ? k2 : k1 !== 0 ? k1 : k0;
  return top > 0 ? 1 : top < 0 ? -1 : 0;
}

function zeroSum(x: number, y: number, mode: Rnd): number {
  if (mode === RM) return x === 0 && y === 0 && 1 / x > 0 && 1 / y > 0 ? 0 : -0;
  return x + y;
}

function isFin(x: number): boolean {
  return x - x === 0;
}

export function f64Add(a: number, b: number, mode: Rnd): number {
  const d = a + b;
  if (mode === RN) return d;
  if (!isFin(d)) {
    if (isFin(a) && isFin(b)) return adjust64(d, d > 0 ? -1 : 1, mode); // overflow
    return d;
  }
  if (d === 0) return zeroSum(a, b, mode);
  // Fast2Sum (larger magnitude first): exact, and unlike TwoSum its intermediates cannot overflow.
  const e = (a < 0 ? -a : a) >= (b < 0 ? -b : b) ? b - (d - a) : a - (d - b);
  return adjust64(d, e > 0 ? 1 : e < 0 ? -1 : 0, mode);
}

export function f64Sub(a: number, b: number, mode: Rnd): number {
  return f64Add(a, -b, mode);
}

function slowMul(a: number, b: number, mode: Rnd): number {
  decompose(a); const ma = dec.mant; const qa = dec.exp;
  decompose(b);
  return roundBig((a < 0) !== (b < 0), ma * dec.mant, qa + dec.exp, mode, 53, -1022, 1023);
}

export function f64Mul(a: number, b: number, mode: Rnd): number {
  const p = a * b;
  if (mode === RN) return p;
  if (!isFin(p)) {
    if (isFin(a) && isFin(b)) return adjust64(p, p > 0 ? -1 : 1, mode);
    return p;
  }
  if (a === 0 || b === 0) return p;
  const ap = p < 0 ? -p : p;
  if (ap < TINY || a > BIG || a < -BIG || b > BIG || b < -BIG) return slowMul(a, b, mode);
  const e = twoProdErr(a, b, p);
  return adjust64(p, e > 0 ? 1 : e < 0 ? -1 : 0, mode);
}

function slowDiv(a: number, b: number, mode: Rnd): number {
  decompose(a); const ma = dec.mant; const qa = dec.exp;
  decompose(b);
  return roundRatio((a < 0) !== (b < 0), ma, dec.mant, qa - dec.exp, mode, 53, -1022, 1023);
}

export function f64Div(a: number, b: number, mode: Rnd): number {
  const d = a / b;
  if (mode === RN) return d;
  if (!isFin(a) || !isFin(b) || a === 0 || b === 0) return d; // exact special results
  if (!isFin(d)) return adjust64(d, d > 0 ? -1 : 1, mode);
  const ad = d < 0 ? -d : d;
  const aa = a < 0 ? -a : a;
  if (ad < 2.2250738585072014e-308 || aa < TINY || aa > 2 ** 1020 || ad > BIG || b > BIG || b < -BIG) return slowDiv(a, b, mode);
  // sign(a/b - d) = sign(a - d·b)·sign(b); a - d·b is evaluated exactly.
  const ph = d * b;
  const pl = twoProdErr(d, b, ph);
  const s = sign4(a, -ph, -pl, 0);
  return adjust64(d, b > 0 ? s : -s, mode);
}

export function f64Rcp(x: number, mode: Rnd): number {
  return f64Div(1, x, mode);
}

export function f64Sqrt(a: number, mode: Rnd): number {
  const d = Math.sqrt(a);
  if (mode === RN || d !== d || d === 0 || d === Infinity) return d;
  // Scale into a range where d·d's error term is exact; sqrt results are never subnormal, so
  // scaling by an even power of two commutes with rounding.
  if (a < 2 ** -900) return f64Sqrt(a * 2 ** 600 * 2 ** 600, mode) * 2 ** -600;
  if (a > 2 ** 1000) return f64Sqrt(a * 2 ** -200, mode) * 2 ** 100;
  const ph = d * d;
  const pl = twoProdErr(d, d, ph);
  return adjust64(d, sign4(a, -ph, -pl, 0), mode);
}

function slowFma(a: number, b: number, c: number, mode: Rnd): number {
  decompose(a); const ma = dec.mant; const qa = dec.exp;
  decompose(b); const mb = dec.mant; const qb = dec.exp;
  decompose(c); const mc = dec.mant; const qc = dec.exp;
  const qp = qa + qb;
  const q = qp < qc ? qp : qc;
  let P = (ma * mb) << BigInt(qp - q);
  if ((a < 0) !== (b < 0)) P = -P;
  let C = mc << BigInt(qc - q);
  if (c < 0) C = -C;
  const S = P + C;
  if (S === 0n) return mode === RM ? -0 : 0; // exact cancellation of nonzero terms
  return roundBig(S < 0n, S < 0n ? -S : S, q, mode, 53, -1022, 1023);
}

/** Fused a·b + c, single rounding to binary64. */
export function f64Fma(a: number, b: number, c: number, mode: Rnd): number {
  if (!isFin(a) || !isFin(b)) return a * b + c; // inf·0 → NaN, inf ± inf → NaN, etc.
  if (!isFin(c)) return c;
  if (a === 0 || b === 0) {
    const p = a * b; // signed zero
    return c !== 0 ? c : zeroSum(p, c, mode);
  }
  if (c === 0) return f64Mul(a, b, mode);
  const p = a * b;
  const ap = p < 0 ? -p : p;
  const ac = c < 0 ? -c : c;
  if (!(ap >= TINY && ap < 2 ** 1020 && ac < 2 ** 1020) || a > BIG || a < -BIG || b > BIG || b < -BIG) {
    return slowFma(a, b, c, mode);
  }
  const pl = twoProdErr(a, b, p);
  // Boldo–Melquiond: (th, tl) = TwoSum(c, p); z = RN(th + RO(tl + pl)) is the correctly rounded fma.
  const th = c + p;
  let bv = th - c;
  const tl = (c - (th - bv)) + (p - bv);
  let s = tl + pl;
  bv = s - tl;
  const err = (tl - (s - bv)) + (pl - bv);
  if (err !== 0 && !f64Odd(s)) s = err > 0 ? nextUp64(s) : nextDown64(s);
  const z = th + s;
  const az = z < 0 ? -z : z;
  if (az < 2 ** -1000) return slowFma(a, b, c, mode); // near/below underflow or exact zero: be exact
  if (mode === RN) return z;
  return adjust64(z, sign4(th, tl, pl, -z), mode);
}

