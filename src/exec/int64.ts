/**
 * 64-bit integer arithmetic on (lo, hi) uint32 word pairs, exact and allocation-free: results
 * go to the module's `R.lo`/`R.hi`. Used by the generated lane loops; BigInt is kept for the
 * rare slow paths (division).
 */

export const R = { lo: 0, hi: 0 };

export function add64(alo: number, ahi: number, blo: number, bhi: number): void {
  const lo = (alo + blo) >>> 0;
  R.hi = (ahi + bhi + (lo < alo ? 1 : 0)) >>> 0;
  R.lo = lo;
}

export function sub64(alo: number, ahi: number, blo: number, bhi: number): void {
  const lo = (alo - blo) >>> 0;
  R.hi = (ahi - bhi - (alo < blo ? 1 : 0)) >>> 0;
  R.lo = lo;
}

/** Full 32x32 → 64 unsigned product into R. */
export function mulWideU32(a: number, b: number): void {
  const a0 = a & 0xffff, a1 = a >>> 16, b0 = b & 0xffff, b1 = b >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const p11 = a1 * b1;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  R.lo = ((mid << 16) | (p00 & 0xffff)) >>> 0;
  R.hi = (p11 + (p01 >>> 16) + (p10 >>> 16) + Math.floor(mid / 65536)) >>> 0;
}

export function mulWideS32(a: number, b: number): void {
  mulWideU32(a >>> 0, b >>> 0);
  // signed correction: subtract b<<32 if a<0, a<<32 if b<0
  let hi = R.hi;
  if ((a | 0) < 0) hi = (hi - (b >>> 0)) >>> 0;
  if ((b | 0) < 0) hi = (hi - (a >>> 0)) >>> 0;
  R.hi = hi;
}

export function mulLo64(alo: number, ahi: number, blo: number, bhi: number): void {
  mulWideU32(alo, blo);
  R.hi = (R.hi + Math.imul(alo, bhi) + Math.imul(ahi, blo)) >>> 0;
}

/** High 64 bits of the 128-bit product (unsigned or signed). */
export function mulHi64(alo: number, ahi: number, blo: number, bhi: number, signed: boolean): void {
  const a = signed ? BigInt.asIntN(64, toBig(alo, ahi)) : toBig(alo, ahi);
  const b = signed ? BigInt.asIntN(64, toBig(blo, bhi)) : toBig(blo, bhi);
  fromBig((a * b) >> 64n);
}

export function shl64(lo: number, hi: number, n: number): void {
  if (n >= 64) { R.lo = 0; R.hi = 0; return; }
  if (n === 0) { R.lo = lo >>> 0; R.hi = hi >>> 0; return; }
  if (n >= 32) { R.hi = (lo << (n - 32)) >>> 0; R.lo = 0; return; }
  R.hi = ((hi << n) | (lo >>> (32 - n))) >>> 0;
  R.lo = (lo << n) >>> 0;
}

export function shr64(lo: number, hi: number, n: number, signed: boolean): void {
  if (n >= 64) {
    const s = signed && (hi | 0) < 0 ? 0xffffffff : 0;
    R.lo = s; R.hi = s; return;
  }
  if (n === 0) { R.lo = lo >>> 0; R.hi = hi >>> 0; return; }
  if (n >= 32) {
    R.lo = (signed ? (hi | 0) >> (n - 32) : hi >>> (n - 32)) >>> 0;
    R.hi = signed ? ((hi | 0) >> 31) >>> 0 : 0;
    return;
  }
  R.lo = ((lo >>> n) | (hi << (32 - n))) >>> 0;
  R.hi = (signed ? (hi | 0) >> n : hi >>> n) >>> 0;
}

export function toBig(lo: number, hi: number): bigint {
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}

export function fromBig(v: bigint): void {
  const u = BigInt.asUintN(64, v);
  R.lo = Number(u & 0xffffffffn);
  R.hi = Number(u >> 32n);
}

/** Compare as signed (s) or unsigned: -1, 0, 1. */
export function cmp64(alo: number, ahi: number, blo: number, bhi: number, signed: boolean): number {
  const ah = signed ? ahi | 0 : ahi >>> 0;
  const bh = signed ? bhi | 0 : bhi >>> 0;
  if (ah !== bh) return ah < bh ? -1 : 1;
  const al = alo >>> 0, bl = blo >>> 0;
  return al === bl ? 0 : al < bl ? -1 : 1;
}

export function div64(alo: number, ahi: number, blo: number, bhi: number, signed: boolean, rem: boolean): boolean {
  if ((blo | bhi) === 0) {
    // PTX leaves division by zero unspecified; hardware gives all ones for div, the dividend for rem.
    if (rem) { R.lo = alo >>> 0; R.hi = ahi >>> 0; } else { R.lo = 0xffffffff; R.hi = 0xffffffff; }
    return false;
  }
  if (!signed && ahi === 0 && bhi === 0) {
    const a = alo >>> 0, b = blo >>> 0;
    R.lo = rem ? a % b : Math.floor(a / b);
    R.hi = 0;
    return true;
  }
  let a = toBig(alo, ahi);
  let b = toBig(blo, bhi);
  if (signed) { a = BigInt.asIntN(64, a); b = BigInt.asIntN(64, b); }
  fromBig(rem ? a % b : a / b);
  return true;
}

/** Index of the lowest set bit (the first active lane of a mask), -1 for 0. */
export function lowestLane(m: number): number {
  return m === 0 ? -1 : 31 - Math.clz32(m & -m);
}

export function popc32(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

export function brev32(x: number): number {
  x = ((x >>> 1) & 0x55555555) | ((x & 0x55555555) << 1);
  x = ((x >>> 2) & 0x33333333) | ((x & 0x33333333) << 2);
  x = ((x >>> 4) & 0x0f0f0f0f) | ((x & 0x0f0f0f0f) << 4);
  x = ((x >>> 8) & 0x00ff00ff) | ((x & 0x00ff00ff) << 8);
  return ((x >>> 16) | (x << 16)) >>> 0;
}

/** Signed/unsigned 64-bit value of a word pair as a JS number (exact only below 2^53). */
export function toNumber(lo: number, hi: number, signed: boolean): number {
  return (signed ? hi | 0 : hi >>> 0) * 4294967296 + (lo >>> 0);
}
