/**
 * The two 8-bit float formats of sm_89+/sm_90 conversions (PTX `cvt` with .e4m3x2 / .e5m2x2):
 * E4M3 (bias 7, no infinities, NaN = S.1111.111, largest 448) and E5M2 (bias 15, IEEE-like, with
 * infinities, largest 57344). Conversions from f32 round to nearest even; with .satfinite a value
 * past the largest finite one becomes that value (NaN stays NaN, 0x7F).
 */

interface Fp8Format { readonly mbits: number; readonly bias: number; readonly max: number; readonly hasInf: boolean }

export const E4M3: Fp8Format = { mbits: 3, bias: 7, max: 448, hasInf: false };
export const E5M2: Fp8Format = { mbits: 2, bias: 15, max: 57344, hasInf: true };

const NAN = 0x7f;

/** Round-to-nearest-even of a non-negative value onto the format's grid. */
function roundToGrid(a: number, f: Fp8Format): number {
  const minExp = 1 - f.bias;
  let e = Math.max(minExp, Math.floor(Math.log2(a)));
  // log2 near a power of two may land one off; the binade must contain a
  while (e > minExp && a < 2 ** e) e--;
  while (a >= 2 ** (e + 1)) e++;
  const q = 2 ** (e - f.mbits);
  const n = a / q; // exact: q is a power of two
  const fl = Math.floor(n);
  const rem = n - fl;
  const k = rem > 0.5 || (rem === 0.5 && fl % 2 === 1) ? fl + 1 : fl;
  return k * q;
}

export function toFp8(x: number, f: Fp8Format, satfinite: boolean): number {
  if (Number.isNaN(x)) return NAN;
  const sign = x < 0 || Object.is(x, -0) ? 0x80 : 0;
  const a = Math.abs(x);
  if (a === 0) return sign;
  let r = a === Infinity ? Infinity : roundToGrid(a, f);
  if (r > f.max) {
    if (satfinite) r = f.max;
    else return f.hasInf ? sign | (((1 << (7 - f.mbits)) - 1) << f.mbits) : NAN;
  }
  const minNormal = 2 ** (1 - f.bias);
  if (r < minNormal) return sign | Math.round(r / 2 ** (1 - f.bias - f.mbits));
  const e = Math.floor(Math.log2(r));
  const m = r / 2 ** (e - f.mbits) - 2 ** f.mbits;
  return sign | ((e + f.bias) << f.mbits) | m;
}

/** The exact value of an 8-bit float. */
export function fp8ToNumber(b: number, f: Fp8Format): number {
  const sign = b & 0x80 ? -1 : 1;
  const ef = (b & 0x7f) >>> f.mbits;
  const m = b & ((1 << f.mbits) - 1);
  const emax = (1 << (7 - f.mbits)) - 1;
  if (f.hasInf && ef === emax) return m === 0 ? sign * Infinity : NaN;
  if (!f.hasInf && ef === emax && m === (1 << f.mbits) - 1) return NaN;
  if (ef === 0) return sign * m * 2 ** (1 - f.bias - f.mbits);
  return sign * (1 + m / 2 ** f.mbits) * 2 ** (ef - f.bias);
}
