// testp, copysign, min/max (shared by f32 and f64: both are plain JS numbers).
import { F32_MIN_NORMAL, F64_MIN_NORMAL } from './bits.js';

export type TestpOp = 'finite' | 'infinite' | 'number' | 'notanumber' | 'normal' | 'subnormal';
export const TESTP_FINITE = 0;
export const TESTP_INFINITE = 1;
export const TESTP_NUMBER = 2;
export const TESTP_NOTANUMBER = 3;
export const TESTP_NORMAL = 4;
export const TESTP_SUBNORMAL = 5;
export type TestpCode = 0 | 1 | 2 | 3 | 4 | 5;

export function testpCode(op: TestpOp): TestpCode {
  switch (op) {
    case 'finite': return 0;
    case 'infinite': return 1;
    case 'number': return 2;
    case 'notanumber': return 3;
    case 'normal': return 4;
    default: return 5;
  }
}

/** testp.op.{f32,f64}: zero is neither normal nor subnormal. */
export function testp(x: number, op: TestpCode, isF64: boolean): boolean {
  const ax = x < 0 ? -x : x;
  switch (op) {
    case 0: return ax !== Infinity && x === x;
    case 1: return ax === Infinity;
    case 2: return x === x;
    case 3: return x !== x;
    case 4: return ax >= (isF64 ? F64_MIN_NORMAL : F32_MIN_NORMAL) && ax !== Infinity;
    default: return ax !== 0 && ax < (isF64 ? F64_MIN_NORMAL : F32_MIN_NORMAL);
  }
}

/** PTX copysign.{f32,f64} d, a, b: the value of b with the sign bit of a (note the operand order). */
export function copysign(a: number, b: number): number {
  const ab = b < 0 || (b === 0 && 1 / b < 0) ? -b : b;
  return a < 0 || (a === 0 && 1 / a < 0) ? -ab : ab;
}

/** min.{f32,f64}: a NaN operand yields the other one (NaN if both); -0 < +0. */
export function fmin(a: number, b: number): number {
  if (a !== a) return b;
  if (b !== b) return a;
  if (a === b) return a === 0 && 1 / a < 0 ? a : b;
  return a < b ? a : b;
}

export function fmax(a: number, b: number): number {
  if (a !== a) return b;
  if (b !== b) return a;
  if (a === b) return a === 0 && 1 / a > 0 ? a : b;
  return a > b ? a : b;
}

/** min.NaN / max.NaN: any NaN input → canonical NaN. */
export function fminNaN(a: number, b: number): number {
  return a !== a || b !== b ? NaN : fmin(a, b);
}
export function fmaxNaN(a: number, b: number): number {
  return a !== a || b !== b ? NaN : fmax(a, b);
}

/** min.xorsign.abs / max.xorsign.abs: op(|a|, |b|) with sign = sign(a) xor sign(b). */
export function fminXorsignAbs(a: number, b: number): number {
  const r = fmin(Math.abs(a), Math.abs(b));
  const neg = (a < 0 || (a === 0 && 1 / a < 0)) !== (b < 0 || (b === 0 && 1 / b < 0));
  return neg ? -r : r;
}
export function fmaxXorsignAbs(a: number, b: number): number {
  const r = fmax(Math.abs(a), Math.abs(b));
  const neg = (a < 0 || (a === 0 && 1 / a < 0)) !== (b < 0 || (b === 0 && 1 / b < 0));
  return neg ? -r : r;
}
