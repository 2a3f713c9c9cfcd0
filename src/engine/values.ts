/**
 * Small value helpers every front end needs the same way: the text of watched bytes in a C type,
 * a PTX register's value as its type reads, and the C expression naming a child of a variable.
 * One home each, so the TUI's Registers pane, `info registers` and DAP agree.
 */
import { formatFloat } from './print/index.js';
import { charArrayText } from './print/format.js';

/** Renders the bytes of a watched value of C type `type` (`float`, `unsigned int`...) and size. */
export function formatterFor(type: string, size: number): (b: Uint8Array) => string {
  // a char array (`char [8]`): a string, as print shows it
  if (/^(?:const |volatile )*(?:(?:un)?signed )?char \[\d+\]$/.test(type)) return (b) => charArrayText([...b]);
  return (b) => {
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    if (type === 'float' && size === 4) return formatFloat(dv.getFloat32(0, true), 4, BigInt(dv.getUint32(0, true)));
    if (type === 'double' && size === 8) return formatFloat(dv.getFloat64(0, true), 8, dv.getBigUint64(0, true));
    const unsigned = type.startsWith('unsigned') || type === 'bool';
    if (size === 1) return String(unsigned ? dv.getUint8(0) : dv.getInt8(0));
    if (size === 2) return String(unsigned ? dv.getUint16(0, true) : dv.getInt16(0, true));
    if (size === 4) return String(unsigned ? dv.getUint32(0, true) : dv.getInt32(0, true));
    if (size === 8) return String(unsigned ? dv.getBigUint64(0, true) : dv.getBigInt64(0, true));
    return '{' + [...b].map((x) => '0x' + x.toString(16).padStart(2, '0')).join(', ') + '}';
  };
}

/** An f32/f64 register's bits in gdb's float format. */
export function registerFloat(type: string, bits: bigint): string {
  const dv = new DataView(new ArrayBuffer(8));
  if (type === 'f64') { dv.setBigUint64(0, bits, true); return formatFloat(dv.getFloat64(0, true), 8, bits); }
  dv.setUint32(0, Number(bits & 0xffffffffn), true);
  return formatFloat(dv.getFloat32(0, true), 4, bits & 0xffffffffn);
}

/** A register's value as its type reads: predicates true/false, floats as floats, else decimal. */
export function registerValue(type: string, bits: bigint): string {
  if (type === 'pred') return bits ? 'true' : 'false';
  if (type.startsWith('f') && type !== 'f16') return registerFloat(type, bits);
  return String(bits);
}

/** The C expression naming child `child` (`[3]`, `pos`, `*p`) of the value named `parent`. */
export function childExpr(parent: string | undefined, child: string): string | undefined {
  if (parent === undefined || child === '...') return undefined;
  if (child.startsWith('[')) return parent + child;
  if (child.startsWith('*')) return /^[\w$]+$/.test(parent) ? `*${parent}` : `*(${parent})`;
  if (child.startsWith('<')) return parent; // a base class: same object
  return `${parent}.${child}`;
}
