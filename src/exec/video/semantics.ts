/**
 * The video instructions' arithmetic, as pure functions on 32-bit register values, following the
 * PTX ISA pseudocode (section "Scalar Video Instructions" and the SIMD video instructions):
 *
 * - scalar forms extract a byte/half/word of each source (sign- or zero-extended by the operand's
 *   type) into a signed 33-bit value, compute an exact intermediate, optionally clamp it to the
 *   destination's range (the sub-word range when a destination selector merges), then either
 *   combine it with c (`.add/.min/.max`, c read with dtype's sign) or merge its low byte/half into c;
 * - SIMD forms pick 2 halves / 4 bytes of each source from the 8 bytes of {b, a}, operate per
 *   element, optionally clamp per element, then either accumulate the masked elements into c
 *   (`.add`) or write the masked elements over c's.
 *
 * JS numbers hold every intermediate exactly (inputs are 33-bit, results 34-bit; a left shift of
 * a 33-bit value by up to 32 only changes the exponent). vmad's 66-bit product uses BigInt.
 */

export type VOp = 'add' | 'sub' | 'absdiff' | 'min' | 'max' | 'shl' | 'shr' | 'avrg' | 'set';
export type Cmp = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge';
export type SecOp = 'add' | 'min' | 'max' | undefined;

/** A scalar selector: byte k (0..3), half k (0..1), or the whole word. */
export interface Part { readonly bits: 8 | 16 | 32; readonly index: number }
export const WORD: Part = { bits: 32, index: 0 };

/** `b0..b3`, `h0`, `h1`, or undefined (whole word); anything else is not a scalar selector. */
export function scalarPart(sel: string | undefined): Part | undefined {
  if (sel === undefined) return WORD;
  const m = /^([bh])([0-3])$/.exec(sel);
  if (!m) return undefined;
  const index = Number(m[2]);
  if (m[1] === 'b') return { bits: 8, index };
  return index <= 1 ? { bits: 16, index } : undefined;
}

/** partSelectSignExtend: the selected part of x (a u32 pattern), sign- or zero-extended. */
export function partSelect(x: number, signed: boolean, p: Part): number {
  if (p.bits === 32) return signed ? x | 0 : x >>> 0;
  const sh = 32 - p.bits;
  const v = (x >>> (p.bits * p.index)) << sh;
  return signed ? v >> sh : v >>> sh;
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

/** optSaturate: clamp to the signed/unsigned range of the destination part. */
export function saturate(v: number, signed: boolean, bits: 8 | 16 | 32): number {
  if (signed) return clamp(v, -(2 ** (bits - 1)), 2 ** (bits - 1) - 1);
  return clamp(v, 0, 2 ** bits - 1);
}

export function compare(x: number, y: number, cmp: Cmp): boolean {
  switch (cmp) {
    case 'eq': return x === y;
    case 'ne': return x !== y;
    case 'lt': return x < y;
    case 'le': return x <= y;
    case 'gt': return x > y;
    case 'ge': return x >= y;
  }
}

/** The primary operation of vadd/vsub/vabsdiff/vmin/vmax/vavrg on extracted values. */
export function primary(op: VOp, x: number, y: number): number {
  switch (op) {
    case 'add': return x + y;
    case 'sub': return x - y;
    case 'absdiff': return Math.abs(x - y);
    case 'min': return Math.min(x, y);
    case 'max': return Math.max(x, y);
    case 'avrg': {
      const s = x + y;
      return s >= 0 ? Math.floor((s + 1) / 2) : Math.floor(s / 2);
    }
    default: return 0;
  }
}

export interface ScalarForm {
  readonly op: VOp;
  readonly dSigned: boolean;
  readonly aSigned: boolean;
  readonly bSigned: boolean;
  readonly asel: Part;
  readonly bsel: Part;
  /** Merge destination part (`d.b1`), or WORD for none. */
  readonly dsel: Part;
  readonly sat: boolean;
  readonly secop: SecOp;
  /** vshl/vshr: `.clamp` (shift counts above 32 are 32) or `.wrap` (count mod 32). */
  readonly wrap: boolean;
  /** vset's comparison. */
  readonly cmp: Cmp;
}

/** One lane of vadd/vsub/vabsdiff/vmin/vmax/vshl/vshr/vset (scalar forms); returns the u32 result. */
export function scalarVideo(f: ScalarForm, a: number, b: number, c: number): number {
  const ta = partSelect(a, f.aSigned, f.asel);
  let tmp: number;
  if (f.op === 'shl' || f.op === 'shr') {
    let n = partSelect(b, false, f.bsel);
    n = f.wrap ? n & 31 : Math.min(n, 32);
    tmp = f.op === 'shl' ? ta * 2 ** n : Math.floor(ta / 2 ** n);
  } else {
    const tb = partSelect(b, f.bSigned, f.bsel);
    tmp = f.op === 'set' ? (compare(ta, tb, f.cmp) ? 1 : 0) : primary(f.op, ta, tb);
  }
  // vset's result is unsigned and never saturated; the others clamp to dtype (and the merged part)
  const dSigned = f.op === 'set' ? false : f.dSigned;
  if (f.sat && f.op !== 'set') tmp = saturate(tmp, dSigned, f.dsel.bits);
  if (f.dsel.bits !== 32) {
    const mask = (2 ** f.dsel.bits - 1) * 2 ** (f.dsel.bits * f.dsel.index);
    const lim = 2 ** f.dsel.bits;
    const put = (((tmp % lim) + lim) % lim) * 2 ** (f.dsel.bits * f.dsel.index);
    return (put + ((c >>> 0) & ~mask)) >>> 0;
  }
  const cv = dSigned ? c | 0 : c >>> 0;
  switch (f.secop) {
    case 'add': return ((tmp >>> 0) + (cv >>> 0)) >>> 0;
    case 'min': return Math.min(tmp, cv) >>> 0;
    case 'max': return Math.max(tmp, cv) >>> 0;
    default: return tmp >>> 0;
  }
}

export interface MadForm {
  readonly aSigned: boolean;
  readonly bSigned: boolean;
  readonly asel: Part;
  readonly bsel: Part;
  readonly negA: boolean;
  readonly negB: boolean;
  readonly negC: boolean;
  /** `.po`: plus one, (a*b) + c + 1. */
  readonly po: boolean;
  /** `.shr7` / `.shr15`, or 0. */
  readonly shift: number;
  readonly sat: boolean;
}

const M32 = 0xffffffffn;

/** One lane of vmad, the ISA pseudocode step by step (negation as one's complement plus lsb). */
export function vmad(f: MadForm, a: number, b: number, c: number): number {
  const ta = BigInt(partSelect(a, f.aSigned, f.asel));
  const tb = BigInt(partSelect(b, f.bSigned, f.bsel));
  const negProd = f.negA !== f.negB;
  const signedFinal = f.aSigned || f.bSigned || negProd || f.negC;
  let tmp = ta * tb;
  let cw = BigInt(c >>> 0);
  let lsb = 0n;
  if (f.po) lsb = 1n;
  else if (negProd) { tmp = ~tmp; lsb = 1n; }
  else if (f.negC) { cw = ~cw & M32; lsb = 1n; }
  const c128 = signedFinal ? BigInt.asIntN(32, cw) : cw;
  tmp = tmp + c128 + lsb;
  let result = f.shift > 0 ? BigInt.asUintN(64, tmp >> BigInt(f.shift)) : BigInt.asUintN(64, tmp);
  if (signedFinal) result = BigInt.asIntN(64, result);
  if (f.sat) {
    if (signedFinal) result = result < -0x80000000n ? -0x80000000n : result > 0x7fffffffn ? 0x7fffffffn : result;
    else result = result > M32 ? M32 : result;
  }
  return Number(BigInt.asUintN(32, result));
}

export interface SimdForm {
  readonly op: VOp;
  /** 2 (halves) or 4 (bytes). */
  readonly n: 2 | 4;
  readonly dSigned: boolean;
  readonly aSigned: boolean;
  readonly bSigned: boolean;
  /** For element i, the index of the half/byte of {b, a} to take (a holds 0..n-1, b n..2n-1). */
  readonly asel: readonly number[];
  readonly bsel: readonly number[];
  /** Element i is written (merge) or accumulated (`.add`) when bit i is set. */
  readonly mask: number;
  readonly sat: boolean;
  readonly acc: boolean;
  readonly cmp: Cmp;
}

/** One lane of vadd2/vsub2/vavrg2/vabsdiff2/vmin2/vmax2/vset2 and the 4-way forms. */
export function simdVideo(f: SimdForm, a: number, b: number, c: number): number {
  const w = 32 / f.n;
  const lim = 2 ** w;
  const elem = (k: number, signed: boolean): number => {
    const src = k < f.n ? a : b;
    const v = (src >>> (w * (k % f.n))) % lim;
    return signed && v >= lim / 2 ? v - lim : v;
  };
  let d = f.acc ? c >>> 0 : 0;
  for (let i = 0; i < f.n; i++) {
    const x = elem(f.asel[i]!, f.aSigned);
    const y = elem(f.bsel[i]!, f.bSigned);
    let t = f.op === 'set' ? (compare(x, y, f.cmp) ? 1 : 0) : primary(f.op, x, y);
    if (f.sat && f.op !== 'set') t = saturate(t, f.dSigned, w as 8 | 16);
    const on = ((f.mask >>> i) & 1) === 1;
    if (f.acc) {
      if (on) d = (d + t) >>> 0;
    } else {
      const part = on ? t : (c >>> (w * i));
      d = (d + ((((part % lim) + lim) % lim) * 2 ** (w * i))) >>> 0;
    }
  }
  return d >>> 0;
}

/** `.h10`-style / `.b3210`-style element selector: digit for the highest element first. */
export function simdSelector(sel: string | undefined, n: 2 | 4, dflt: readonly number[]): number[] | undefined {
  if (sel === undefined) return [...dflt];
  const re = n === 2 ? /^h([0-3])([0-3])$/ : /^b([0-7])([0-7])([0-7])([0-7])$/;
  const m = re.exec(sel);
  if (!m) return undefined;
  return m.slice(1).map(Number).reverse();
}

/** Destination mask `.h0/.h1/.h10`, `.b0 .. .b3210` (each digit names an element), default all. */
export function simdMask(sel: string | undefined, n: 2 | 4): number | undefined {
  if (sel === undefined) return (1 << n) - 1;
  const re = n === 2 ? /^h([01]{1,2})$/ : /^b([0-3]{1,4})$/;
  const m = re.exec(sel);
  if (!m) return undefined;
  let mask = 0;
  const digits = m[1]!;
  for (let k = 0; k < digits.length; k++) {
    const bit = 1 << Number(digits[k]);
    // digits are written highest first and each at most once (.b31, .b320, never .b13)
    if (mask & bit || (k > 0 && Number(digits[k]) >= Number(digits[k - 1]))) return undefined;
    mask |= bit;
  }
  return mask;
}
