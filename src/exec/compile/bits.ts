/**
 * Bit-twiddling helpers that generated lane loops call through X0/X1.
 */

// ---- bit-twiddling helpers used through X0/X1 ------------------------------------------------------

export function prmt(a: number, b: number, c: number, mode: string): number {
  const bytes = [a & 255, (a >>> 8) & 255, (a >>> 16) & 255, a >>> 24, b & 255, (b >>> 8) & 255, (b >>> 16) & 255, b >>> 24];
  const pick = (sel: number): number => {
    const v = bytes[sel & 7]!;
    return sel & 8 ? (v & 0x80 ? 0xff : 0) : v;
  };
  let r: number[];
  const s = c & 3;
  switch (mode) {
    case 'f4e': r = [0, 1, 2, 3].map((i) => bytes[(s + i) & 7]!); break;
    case 'b4e': r = [0, 1, 2, 3].map((i) => bytes[(8 + s - i) & 7]!); break;
    case 'rc8': r = [0, 1, 2, 3].map(() => bytes[s]!); break;
    // edge clamp left/right per the ISA's table: byte i takes max(i, s) / min(i, s)
    case 'ecl': r = [0, 1, 2, 3].map((i) => bytes[i > s ? i : s]!); break;
    case 'ecr': r = [0, 1, 2, 3].map((i) => bytes[i < s ? i : s]!); break;
    case 'rc16': { const lo = (c & 1) * 2; r = [bytes[lo]!, bytes[lo + 1]!, bytes[lo]!, bytes[lo + 1]!]; break; }
    default: r = [0, 1, 2, 3].map((i) => pick((c >>> (i * 4)) & 15));
  }
  return ((r[0]! | (r[1]! << 8) | (r[2]! << 16) | (r[3]! << 24)) >>> 0);
}

/** PTX bfe.u32/.s32 pseudocode: bits pos..pos+len-1, the rest filled with the sign bit. */
export function bfe32(a: number, pos: number, len: number, signed: boolean): number {
  if (len === 0) return 0;
  const sIdx = Math.min(pos + len - 1, 31);
  const sbit = signed && sIdx >= 0 ? (a >>> sIdx) & 1 : 0;
  let d = 0;
  for (let i = 0; i <= 31; i++) {
    const bit = i < len && pos + i <= 31 ? (a >>> (pos + i)) & 1 : sbit;
    d |= bit << i;
  }
  return d >>> 0;
}

export function bfe64(a: bigint, pos: number, len: number, signed: boolean): bigint {
  if (len === 0) return 0n;
  const sIdx = Math.min(pos + len - 1, 63);
  const sbit = signed ? (a >> BigInt(sIdx)) & 1n : 0n;
  let d = 0n;
  for (let i = 0; i <= 63; i++) {
    const bit = i < len && pos + i <= 63 ? (a >> BigInt(pos + i)) & 1n : sbit;
    d |= bit << BigInt(i);
  }
  return d;
}

export function fns(mask: number, base: number, offset: number): number {
  // find the n-th set bit of mask starting at base (PTX fns semantics)
  let pos = base & 31;
  if (offset === 0) return 0xffffffff;
  if (offset > 0) {
    let n = offset;
    for (let i = pos; i < 32; i++) if ((mask >>> i) & 1 && --n === 0) return i;
    return 0xffffffff;
  }
  let n = -offset;
  for (let i = pos; i >= 0; i--) if ((mask >>> i) & 1 && --n === 0) return i;
  return 0xffffffff;
}

export function dotProduct(a: number, b: number, c: number, ua: boolean, ub: boolean, two: boolean, hi: boolean): number {
  let acc = c;
  if (two) {
    for (let i = 0; i < 2; i++) {
      const x = ua ? (a >>> (16 * i)) & 0xffff : ((a >>> (16 * i)) << 16) >> 16;
      const bi = (hi ? 2 : 0) + i;
      const y = ub ? (b >>> (8 * bi)) & 255 : ((b >>> (8 * bi)) << 24) >> 24;
      acc = (acc + x * y) | 0;
    }
    return acc;
  }
  for (let i = 0; i < 4; i++) {
    const x = ua ? (a >>> (8 * i)) & 255 : ((a >>> (8 * i)) << 24) >> 24;
    const y = ub ? (b >>> (8 * i)) & 255 : ((b >>> (8 * i)) << 24) >> 24;
    acc = (acc + x * y) | 0;
  }
  return acc;
}


