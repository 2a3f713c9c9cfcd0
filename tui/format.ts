/** Value formatting for the Registers and Memory panes (raw bits → text by PTX type). */
import { registerFloat } from '#engine';

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);
const F64 = new Float64Array(1);
const U64 = new BigUint64Array(F64.buffer);

/** Shortest decimal that reads back as the same f32. */
export function formatF32(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  for (let p = 1; p <= 9; p++) {
    const s = x.toPrecision(p);
    if (Math.fround(Number(s)) === x) return String(Number(s));
  }
  return String(x);
}

export function formatF64(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  return Object.is(x, -0) ? '-0' : String(x);
}

export function f32FromBits(bits: number): number {
  U32[0] = bits >>> 0;
  return F32[0]!;
}

export function f64FromBits(bits: bigint): number {
  U64[0] = BigInt.asUintN(64, bits);
  return F64[0]!;
}

export function f16FromBits(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

function typeBits(type: string): number {
  const m = /(\d+)/.exec(type);
  return m ? Number(m[1]) : 32;
}

export function hex(v: bigint, digits = 0): string {
  return '0x' + BigInt.asUintN(64, v).toString(16).padStart(digits, '0');
}

/** A register value for display: floats as decimals, signed as signed, bit types and pointers in hex. */
export function formatRegister(type: string, bits: bigint): string {
  const t = type.replace(/^\./, '');
  const n = typeBits(t);
  if (t === 'pred') return bits !== 0n ? 'true' : 'false';
  // f32/f64 exactly as `info registers` and `print` show them (one formatter: engine/values.ts)
  if (t === 'f32' || t === 'f64') return registerFloat(t, bits);
  if (t === 'f16') return formatF32(f16FromBits(Number(bits & 0xffffn)));
  if (t === 'bf16') return formatF32(f32FromBits(Number(bits & 0xffffn) << 16));
  const u = BigInt.asUintN(n, bits);
  if (t.startsWith('s')) return BigInt.asIntN(n, bits).toString();
  if (t.startsWith('u') && (n <= 32 || u < 0x10000n)) return u.toString();
  return hex(u);
}

export type MemFormat = 'hex' | 'u8' | 'u32' | 's32' | 'f32' | 'u64' | 'f64';
export const MEM_FORMATS: readonly MemFormat[] = ['hex', 'u32', 's32', 'f32', 'u64', 'f64', 'u8'];

/**
 * Columns of one element, at least: a typical value of the format fits (u64 always: 0x and 16
 * digits). The Memory pane widens every column of the window alike for a longer value, so the
 * columns stay at the same places from row to row whatever the values.
 */
export const ELEM_WIDTH: Readonly<Record<MemFormat, number>> = { hex: 2, u8: 3, u32: 10, s32: 11, f32: 12, u64: 18, f64: 12 };

export function elemBytes(f: MemFormat): number {
  return f === 'hex' || f === 'u8' ? 1 : f === 'u64' || f === 'f64' ? 8 : 4;
}

/** One element of `bytes` at `off` in a typed format (little-endian, as on the GPU). */
export function formatElem(f: MemFormat, dv: DataView, off: number): string {
  switch (f) {
    case 'hex': return dv.getUint8(off).toString(16).padStart(2, '0');
    case 'u8': return String(dv.getUint8(off));
    case 'u32': return String(dv.getUint32(off, true));
    case 's32': return String(dv.getInt32(off, true));
    case 'f32': return narrow(formatF32(dv.getFloat32(off, true)), 15);
    case 'u64': return hex(dv.getBigUint64(off, true), 16);
    case 'f64': return narrow(formatF64(dv.getFloat64(off, true)), 24);
  }
}

/**
 * The same digits in exponent form when the positional one is longer than any exponent form
 * (15 columns for f32, 24 for f64): JS writes `0.0000123456789` and `123456790000000000000`
 * positionally.
 */
function narrow(s: string, w: number): string {
  return s.length <= w ? s : Number(s).toExponential();
}

/** Printable ASCII of a byte, '.' otherwise. */
export function asciiOf(b: number): string {
  return b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
}

/** A Memory pane format for a C type name (`unsigned int`, `const float`...). */
export function formatForType(type: string): MemFormat {
  const t = type.replace(/\b(const|volatile|@\w+)\b/g, '').trim();
  if (/\b(char|short|bool)\b/.test(t)) return 'hex';
  if (/\bdouble\b/.test(t)) return 'f64';
  if (/\bfloat\b/.test(t)) return 'f32';
  if (/\*$|\blong\b|int64|size_t/.test(t)) return 'u64';
  if (/\bunsigned\b|uint/.test(t)) return 'u32';
  if (/\bint\b/.test(t)) return 's32';
  return 'hex';
}
