/**
 * C arithmetic for the evaluator: literal typing, integer promotions, the usual arithmetic
 * conversions, comparisons, and constructors of computed values.
 */
import { sizeOf, type DwarfType } from '../../../dwarf/src/index.js';
import { category, isSigned, T } from './ctypes.js';
import { PrintError } from './errors.js';
import { bigintBytes, bytesValue, floatBytes, type Value } from './value.js';

export function intValue(v: bigint, t: DwarfType): Value {
  const size = sizeOf(t) ?? 4;
  return bytesValue(t, bigintBytes(v, size));
}

export function floatValue(x: number, t: DwarfType): Value {
  return bytesValue(t, floatBytes(x, sizeOf(t) === 4 ? 4 : 8));
}

export function pointerValue(t: DwarfType, address: bigint): Value {
  return bytesValue(t, bigintBytes(address, 8));
}

/** C integer literal typing: int, then unsigned int (hex/octal), long, unsigned long. */
export function intLiteral(v: bigint, suffix: string, radix: number): Value {
  const u = suffix.includes('u');
  const l = suffix.includes('l');
  const fits = (t: DwarfType): boolean => {
    const bits = (sizeOf(t) ?? 4) * 8;
    return isSigned(t) ? v <= (1n << BigInt(bits - 1)) - 1n : v <= (1n << BigInt(bits)) - 1n;
  };
  const candidates: DwarfType[] = u
    ? (l ? [T.ulong] : [T.uint, T.ulong])
    : l
      ? (radix === 10 ? [T.long, T.ulong] : [T.long, T.ulong])
      : radix === 10 ? [T.int, T.long, T.ulong] : [T.int, T.uint, T.long, T.ulong];
  const t = candidates.find(fits);
  if (!t) throw new PrintError('Numeric constant too large.');
  return intValue(v, t);
}

/** Integer promotion: smaller than int (and bool, char, enums, narrow bit fields) → int. */
export function promote(v: Value): DwarfType {
  const t = v.type;
  const size = sizeOf(t) ?? 4;
  if (v.bits && v.bits.size < 32) return T.int;
  const c = category(t);
  if (c === 'enum') return size > 4 ? (isSigned(t) ? T.long : T.ulong) : isSigned(t) || size < 4 ? T.int : T.uint;
  if (size < 4) return T.int;
  if (size === 4) return isSigned(t) ? T.int : T.uint;
  return isSigned(t) ? T.long : T.ulong;
}

/** Usual arithmetic conversions for two promoted integer types. */
export function intResult(a: DwarfType, b: DwarfType): DwarfType {
  const sa = sizeOf(a) ?? 4;
  const sb = sizeOf(b) ?? 4;
  const size = Math.max(sa, sb);
  const ua = !isSigned(a);
  const ub = !isSigned(b);
  let unsigned: boolean;
  if (sa === sb) unsigned = ua || ub;
  else unsigned = sa > sb ? ua : ub;
  if (size <= 4) return unsigned ? T.uint : T.int;
  return unsigned ? T.ulong : T.long;
}

export function floatResult(a: DwarfType, b: DwarfType): DwarfType {
  const fa = category(a) === 'float' ? sizeOf(a) : 0;
  const fb = category(b) === 'float' ? sizeOf(b) : 0;
  return fa === 8 || fb === 8 ? T.double : T.float;
}

export function compare(op: string, x: bigint | number, y: bigint | number): boolean {
  switch (op) {
    case '==': return x === y;
    case '!=': return x !== y;
    case '<': return x < y;
    case '>': return x > y;
    case '<=': return x <= y;
    case '>=': return x >= y;
    default: throw new PrintError(`Unknown operator ${op}.`);
  }
}
