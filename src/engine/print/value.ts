/**
 * Values of expressions: a type, where the value lives (memory of a state space, a register, or
 * nowhere for computed values), and its bytes when known. Memory is read lazily and only as far
 * as needed, so `print bigArray` reads what is shown and `&x`, `sizeof x` read nothing.
 */
import { sizeOf, type DwarfType } from '../../../dwarf/src/index.js';
import type { SpaceName, ThreadView } from '../types.js';
import { isSigned } from './ctypes.js';
import { PrintError } from './errors.js';

export type Place =
  | { readonly kind: 'memory'; readonly space: SpaceName; readonly address: bigint }
  | { readonly kind: 'register'; readonly name: string }
  | { readonly kind: 'none' };

export interface Value {
  readonly type: DwarfType;
  readonly place: Place;
  /** Contents known without reading memory (registers, computed values, history snapshots). */
  readonly bytes: Uint8Array | undefined;
  /** Why there is no value: 'optimized out', or an error text shown as `<error: ...>`. */
  readonly unavailable: string | undefined;
  /** A bit field: bit offset (LSB numbering) and width within the storage at `place`/`bytes`. */
  readonly bits: { readonly offset: number; readonly size: number } | undefined;
}

/** gdb's max-value-size: larger values are not fetched whole. */
export const MAX_VALUE_SIZE = 65536;

export const OPTIMIZED_OUT = 'optimized out';

export function memoryValue(type: DwarfType, space: SpaceName, address: bigint): Value {
  return { type, place: { kind: 'memory', space, address }, bytes: undefined, unavailable: undefined, bits: undefined };
}

export function bytesValue(type: DwarfType, bytes: Uint8Array, place: Place = { kind: 'none' }): Value {
  return { type, place, bytes, unavailable: undefined, bits: undefined };
}

export function unavailableValue(type: DwarfType, why: string): Value {
  return { type, place: { kind: 'none' }, bytes: undefined, unavailable: why, bits: undefined };
}

export function hex(v: bigint): string {
  return '0x' + BigInt.asUintN(64, v).toString(16);
}

/** Little-endian bytes of the low `size` bytes of `v`. */
export function bigintBytes(v: bigint, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = BigInt.asUintN(size * 8, v);
  for (let i = 0; i < size; i++) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

export function bytesBigint(b: Uint8Array, signed: boolean): bigint {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
  return signed && b.length > 0 ? BigInt.asIntN(b.length * 8, v) : v;
}

export function unavailableMessage(v: Value): string {
  return v.unavailable === OPTIMIZED_OUT ? 'value has been optimized out' : v.unavailable ?? '';
}

/** Read `size` bytes at `offset` of the value (throws PrintError when they cannot be had). */
export function contents(view: ThreadView, v: Value, offset = 0, size?: number): Uint8Array {
  if (v.unavailable !== undefined) throw new PrintError(unavailableMessage(v));
  const n = size ?? sizeOf(v.type);
  if (n === undefined) throw new PrintError(`Cannot read a value of incomplete type ${v.type.kind === 'void' ? 'void' : 'with unknown size'}.`);
  if (v.bytes) {
    if (offset + n > v.bytes.length) throw new PrintError('Value is out of the bounds of its contents.');
    return v.bytes.subarray(offset, offset + n);
  }
  if (v.place.kind !== 'memory') throw new PrintError('Value has no contents.');
  if (n > MAX_VALUE_SIZE) throw new PrintError(`value requires ${n} bytes, which is more than max-value-size`);
  if (n === 0) return new Uint8Array(0);
  const a = v.place.address + BigInt(offset);
  const b = view.readMemory(v.place.space, a, n);
  if (!b) throw new PrintError(`Cannot access memory at address ${hex(a)}${v.place.space === 'generic' || v.place.space === 'global' ? '' : ` (@${v.place.space})`}`);
  return b;
}

/**
 * The same value with its bytes fetched (up to `limit` bytes), so formatting an array does not
 * read element by element. Unreadable memory leaves the value as it was (elements then fail
 * one by one and show `<error: ...>`).
 */
export function fetchContents(view: ThreadView, v: Value, limit = MAX_VALUE_SIZE): Value {
  if (v.bytes || v.unavailable !== undefined || v.place.kind !== 'memory') return v;
  const n = sizeOf(v.type);
  if (n === undefined || n > limit || n === 0) return v;
  const b = view.readMemory(v.place.space, v.place.address, n);
  return b ? { ...v, bytes: b } : v;
}

/** A part of a value (member, element): `offset` bytes in, of type `type`. */
export function subValue(v: Value, type: DwarfType, offset: number, bits?: { offset: number; size: number }): Value {
  if (v.unavailable !== undefined) return { ...v, type, bits };
  let place: Place = { kind: 'none' };
  if (v.place.kind === 'memory') place = { kind: 'memory', space: v.place.space, address: v.place.address + BigInt(offset) };
  let bytes: Uint8Array | undefined;
  if (v.bytes) {
    const n = sizeOf(type) ?? 0;
    if (offset + n > v.bytes.length) return unavailableValue(type, 'value is out of the bounds of its contents');
    bytes = v.bytes.subarray(offset, offset + n);
  }
  return { type, place, bytes, unavailable: undefined, bits };
}

/** The integer held by an integral, bool, char, enum, pointer value (bit fields extracted). */
export function readInteger(view: ThreadView, v: Value): bigint {
  const size = sizeOf(v.type) ?? 0;
  const signed = isSigned(v.type);
  if (v.bits) {
    const nbytes = Math.max(size, Math.ceil((v.bits.offset + v.bits.size) / 8));
    const raw = bytesBigint(contents(view, v, 0, nbytes), false);
    const field = (raw >> BigInt(v.bits.offset)) & ((1n << BigInt(v.bits.size)) - 1n);
    return signed ? BigInt.asIntN(v.bits.size, field) : field;
  }
  if (size < 1 || size > 8) throw new PrintError(`Cannot use a value of ${size} bytes as a number.`);
  return bytesBigint(contents(view, v, 0, size), signed);
}

export function readFloat(view: ThreadView, v: Value): number {
  const size = sizeOf(v.type);
  const b = contents(view, v, 0, size);
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return size === 4 ? dv.getFloat32(0, true) : dv.getFloat64(0, true);
}

export function floatBytes(x: number, size: 4 | 8): Uint8Array {
  const b = new Uint8Array(size);
  const dv = new DataView(b.buffer);
  if (size === 4) dv.setFloat32(0, x, true);
  else dv.setFloat64(0, x, true);
  return b;
}

/** Raw bits of a scalar (for /x of floats, as gdb does). */
export function rawBits(view: ThreadView, v: Value): bigint {
  if (v.bits) return readInteger(view, v);
  return bytesBigint(contents(view, v), false);
}
