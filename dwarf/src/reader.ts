/**
 * Byte reader over one assembled DWARF section, in the style of gimli's `EndianSlice`/`Reader`:
 * a cheap cursor (a `DataView` plus a position and an end) over shared bytes. `split(len)` hands
 * out a sub-reader over the next `len` bytes and advances this one: sub-readers are views, never
 * copies. All multi-byte reads are little-endian (PTX `.b16/.b32/.b64` data is little-endian).
 *
 * Offsets are branded so a unit-relative offset can't be passed where a section offset is wanted.
 * Every failure is a `DwarfError` naming the section and the section offset where it happened.
 */

// ---- branded offsets --------------------------------------------------------------------------

declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

/** Offset into `.debug_info`. */
export type DebugInfoOffset = Brand<number, 'DebugInfoOffset'>;
/** Offset into `.debug_abbrev`. */
export type DebugAbbrevOffset = Brand<number, 'DebugAbbrevOffset'>;
/** Offset into `.debug_loc` / `.debug_loclists`. */
export type LocListsOffset = Brand<number, 'LocListsOffset'>;
/** Offset into `.debug_ranges` / `.debug_rnglists`. */
export type RangeListsOffset = Brand<number, 'RangeListsOffset'>;
/** Offset into `.debug_str` / `.debug_line_str`. */
export type DebugStrOffset = Brand<number, 'DebugStrOffset'>;
/** Offset of a DIE relative to the start of its unit header. */
export type UnitOffset = Brand<number, 'UnitOffset'>;

export const debugInfoOffset = (n: number): DebugInfoOffset => n as DebugInfoOffset;
export const debugAbbrevOffset = (n: number): DebugAbbrevOffset => n as DebugAbbrevOffset;
export const locListsOffset = (n: number): LocListsOffset => n as LocListsOffset;
export const rangeListsOffset = (n: number): RangeListsOffset => n as RangeListsOffset;
export const debugStrOffset = (n: number): DebugStrOffset => n as DebugStrOffset;
export const unitOffset = (n: number): UnitOffset => n as UnitOffset;

/** UnitOffset → DebugInfoOffset, given the unit's header offset (gimli's `to_debug_info_offset`). */
export function toDebugInfoOffset(unitStart: DebugInfoOffset, off: UnitOffset): DebugInfoOffset {
  return (unitStart + off) as DebugInfoOffset;
}
/** DebugInfoOffset → UnitOffset, or undefined when `off` is outside [unitStart, unitEnd). */
export function toUnitOffset(unitStart: DebugInfoOffset, unitEnd: number, off: DebugInfoOffset): UnitOffset | undefined {
  return off >= unitStart && off < unitEnd ? ((off - unitStart) as UnitOffset) : undefined;
}

// ---- errors -----------------------------------------------------------------------------------

/** A flat set of error kinds, each with its data (gimli's `gimli::Error`). */
export type DwarfErrorKind =
  | { readonly kind: 'UnexpectedEof'; readonly needed: number; readonly available: number }
  | { readonly kind: 'LebOverflow' }
  | { readonly kind: 'UnterminatedString' }
  | { readonly kind: 'UnknownForm'; readonly form: number }
  | { readonly kind: 'InvalidAbbreviationCode'; readonly code: number }
  | { readonly kind: 'DuplicateAbbreviationCode'; readonly code: number }
  | { readonly kind: 'UnterminatedAbbreviations' }
  | { readonly kind: 'UnknownVersion'; readonly version: number }
  | { readonly kind: 'UnknownUnitType'; readonly unitType: number }
  | { readonly kind: 'BadUnitLength'; readonly length: number; readonly available: number }
  | { readonly kind: 'UnsupportedAddressSize'; readonly size: number }
  | { readonly kind: 'UnsupportedOffsetSize'; readonly size: number }
  | { readonly kind: 'MissingSection'; readonly section: string }
  | { readonly kind: 'BadReference'; readonly target: number; readonly why: string }
  | { readonly kind: 'CyclicType'; readonly target: number }
  | { readonly kind: 'BadRelocation'; readonly symbol: string; readonly why: string }
  | { readonly kind: 'UnknownOp'; readonly op: number }
  | { readonly kind: 'StackUnderflow'; readonly op: string }
  | { readonly kind: 'DivisionByZero' }
  | { readonly kind: 'UnsupportedOp'; readonly op: string; readonly why: string }
  | { readonly kind: 'TooManyIterations'; readonly limit: number }
  | { readonly kind: 'BadEntryKind'; readonly entryKind: number }
  | { readonly kind: 'TrailingDies'; readonly bytes: number }
  | { readonly kind: 'TooDeep'; readonly depth: number }
  | { readonly kind: 'BadLineHeader'; readonly why: string };

function hex(n: number): string {
  return '0x' + n.toString(16).padStart(8, '0');
}

export function describeErrorKind(k: DwarfErrorKind): string {
  switch (k.kind) {
    case 'UnexpectedEof': return `unexpected end of data (needed ${k.needed} byte${k.needed === 1 ? '' : 's'}, ${k.available} left)`;
    case 'LebOverflow': return 'LEB128 value too large';
    case 'UnterminatedString': return 'string not NUL-terminated before end of section';
    case 'UnknownForm': return `unknown DW_FORM 0x${k.form.toString(16)}`;
    case 'InvalidAbbreviationCode': return `invalid abbreviation code ${k.code}`;
    case 'DuplicateAbbreviationCode': return `duplicate abbreviation code ${k.code}`;
    case 'UnterminatedAbbreviations': return 'abbreviation table not terminated';
    case 'UnknownVersion': return `unsupported DWARF version ${k.version}`;
    case 'UnknownUnitType': return `unknown unit type 0x${k.unitType.toString(16)}`;
    case 'BadUnitLength': return `unit length ${k.length} exceeds the ${k.available} bytes left in the section`;
    case 'UnsupportedAddressSize': return `unsupported address size ${k.size}`;
    case 'UnsupportedOffsetSize': return `unsupported offset size ${k.size}`;
    case 'MissingSection': return `section ${k.section} is missing`;
    case 'BadReference': return `bad reference to ${hex(k.target)}: ${k.why}`;
    case 'CyclicType': return `cyclic type reference through ${hex(k.target)}`;
    case 'BadRelocation': return `bad relocation '${k.symbol}': ${k.why}`;
    case 'UnknownOp': return `unknown DW_OP 0x${k.op.toString(16)}`;
    case 'StackUnderflow': return `expression stack underflow at ${k.op}`;
    case 'DivisionByZero': return 'division by zero in expression';
    case 'UnsupportedOp': return `${k.op} not supported: ${k.why}`;
    case 'TooManyIterations': return `expression did not finish within ${k.limit} steps`;
    case 'BadEntryKind': return `unknown list entry kind 0x${k.entryKind.toString(16)}`;
    case 'TrailingDies': return `${k.bytes} byte(s) after the last DIE of the unit`;
    case 'TooDeep': return `DIE nesting deeper than ${k.depth}`;
    case 'BadLineHeader': return `bad line program header: ${k.why}`;
  }
}

/** A decoding failure with the section and section offset it happened at. */
export class DwarfError extends Error {
  constructor(readonly error: DwarfErrorKind, readonly section: string, readonly offset: number) {
    super(`${section} at offset ${hex(offset)}: ${describeErrorKind(error)}`);
    this.name = 'DwarfError';
  }
}

/** The text of a warning: "<section> at offset 0x0000002a: <what>". */
export function warningText(section: string, offset: number, what: string): string {
  return `${section} at offset ${hex(offset)}: ${what}`;
}

/** Collects warnings (deduplicated, capped) while decoding continues. */
export class Warnings {
  readonly list: string[] = [];
  private readonly seen = new Set<string>();
  constructor(private readonly limit = 200) {}
  add(section: string, offset: number, what: string): void {
    this.push(warningText(section, offset, what));
  }
  error(e: unknown, section = '<dwarf>', offset = 0): void {
    if (e instanceof DwarfError) this.push(e.message);
    else this.push(warningText(section, offset, `internal error: ${e instanceof Error ? e.message : String(e)}`));
  }
  private push(text: string): void {
    if (this.seen.has(text)) return;
    this.seen.add(text);
    if (this.list.length < this.limit) this.list.push(text);
    else if (this.list.length === this.limit) this.list.push(`(further warnings suppressed)`);
  }
}

// ---- relocations (filled in by assemble.ts) ----------------------------------------------------

/** What a symbolic datum in a section refers to. */
export type RelocTarget =
  /** A label in a function body: the instruction it precedes (index counts instructions only). */
  | { readonly kind: 'label'; readonly function: string; readonly functionIndex: number; readonly instruction: number }
  /** A function's own name: its first instruction. */
  | { readonly kind: 'function'; readonly function: string; readonly functionIndex: number }
  /** A variable: module-scope global/shared/const, a function's `.param`, or a function-body variable. */
  | { readonly kind: 'variable'; readonly space: string; readonly function: string | undefined }
  /** Another section (`.debug_abbrev`, `.debug_loc+16`) or a label inside a section. */
  | { readonly kind: 'section'; readonly section: string; readonly sectionOffset: number }
  /** Nothing of that name: the datum reads as its addend. */
  | { readonly kind: 'unresolved' };

export interface Relocation {
  /** Offset of the datum in its section. */
  readonly offset: number;
  readonly width: 1 | 2 | 4 | 8;
  readonly symbol: string;
  readonly addend: bigint;
  readonly target: RelocTarget;
  /** The value written into the section bytes (resolver address + addend, truncated to width). */
  readonly value: bigint;
}

/** One section's bytes and the relocations applied to them. */
export interface SectionData {
  readonly name: string;
  readonly bytes: Uint8Array;
  /** Relocations by datum offset. */
  readonly relocations: ReadonlyMap<number, Relocation>;
}

// ---- the reader -------------------------------------------------------------------------------

const TEXT = new TextDecoder('utf-8', { fatal: false });

export class Reader {
  private readonly view: DataView;
  /** Absolute position in the section. */
  pos: number;

  constructor(readonly data: SectionData, readonly start = 0, readonly end = data.bytes.length) {
    this.view = new DataView(data.bytes.buffer, data.bytes.byteOffset, data.bytes.byteLength);
    this.pos = start;
  }

  get section(): string {
    return this.data.name;
  }
  /** Section offset of the next byte. */
  get offset(): number {
    return this.pos;
  }
  get remaining(): number {
    return this.end - this.pos;
  }
  get atEnd(): boolean {
    return this.pos >= this.end;
  }

  fail(error: DwarfErrorKind, at = this.pos): never {
    throw new DwarfError(error, this.data.name, at);
  }
  private need(n: number): void {
    if (n > this.end - this.pos) this.fail({ kind: 'UnexpectedEof', needed: n, available: Math.max(0, this.end - this.pos) });
  }

  /** A reader over the next `len` bytes; this reader moves past them. */
  split(len: number): Reader {
    this.need(len);
    const r = new Reader(this.data, this.pos, this.pos + len);
    this.pos += len;
    return r;
  }
  /** A reader over [this.pos, this.end) that moves independently. */
  clone(): Reader {
    const r = new Reader(this.data, this.start, this.end);
    r.pos = this.pos;
    return r;
  }
  /** A reader at section offset `at` bounded by this reader's end. */
  at(at: number): Reader {
    if (at < this.start || at > this.end) this.fail({ kind: 'UnexpectedEof', needed: 1, available: 0 }, at);
    const r = new Reader(this.data, this.start, this.end);
    r.pos = at;
    return r;
  }
  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  u8(): number {
    this.need(1);
    return this.view.getUint8(this.pos++);
  }
  i8(): number {
    this.need(1);
    return this.view.getInt8(this.pos++);
  }
  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }
  i16(): number {
    this.need(2);
    const v = this.view.getInt16(this.pos, true);
    this.pos += 2;
    return v;
  }
  u24(): number {
    this.need(3);
    const v = this.view.getUint16(this.pos, true) | (this.view.getUint8(this.pos + 2) << 16);
    this.pos += 3;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  i32(): number {
    this.need(4);
    const v = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }
  i64(): bigint {
    this.need(8);
    const v = this.view.getBigInt64(this.pos, true);
    this.pos += 8;
    return v;
  }
  /** Unsigned little-endian integer of 1, 2, 4 or 8 bytes. */
  uN(size: number): bigint {
    switch (size) {
      case 1: return BigInt(this.u8());
      case 2: return BigInt(this.u16());
      case 4: return BigInt(this.u32());
      case 8: return this.u64();
      default: return this.fail({ kind: 'UnsupportedAddressSize', size });
    }
  }
  /** Target address of `size` bytes (DW_FORM_addr, DW_OP_addr, list bounds). */
  address(size: number): bigint {
    return this.uN(size);
  }
  /** A section offset of the unit's format (4 bytes for 32-bit DWARF, 8 for 64-bit). */
  sectionOffset(format: 4 | 8): number {
    if (format === 4) return this.u32();
    const at = this.pos;
    const v = this.u64();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail({ kind: 'UnsupportedOffsetSize', size: 8 }, at);
    return Number(v);
  }

  /** Unsigned LEB128 (any length; values past 64 bits are an error). */
  uleb(): bigint {
    const at = this.pos;
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.u8();
      if (shift >= 64n && (b & 0x7f) !== 0) this.fail({ kind: 'LebOverflow' }, at);
      if (shift < 64n) result |= BigInt(b & 0x7f) << shift;
      shift += 7n;
      if ((b & 0x80) === 0) break;
    }
    return BigInt.asUintN(64, result);
  }
  /** Signed LEB128. */
  sleb(): bigint {
    const at = this.pos;
    let result = 0n;
    let shift = 0n;
    let b: number;
    do {
      b = this.u8();
      if (shift >= 64n && (b & 0x7f) !== 0 && (b & 0x7f) !== 0x7f) this.fail({ kind: 'LebOverflow' }, at);
      if (shift < 64n) result |= BigInt(b & 0x7f) << shift;
      shift += 7n;
    } while (b & 0x80);
    if (shift < 64n && (b & 0x40)) result -= 1n << shift;
    return BigInt.asIntN(64, result);
  }
  /** Unsigned LEB128 as a number (codes, indices, lengths): errors past 2^53. */
  ulebNum(): number {
    const at = this.pos;
    const v = this.uleb();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail({ kind: 'LebOverflow' }, at);
    return Number(v);
  }
  /** Skip a LEB128 without decoding its value. */
  skipLeb(): void {
    while (this.u8() & 0x80) { /* continuation byte */ }
  }

  /** NUL-terminated string (UTF-8); the NUL is consumed. */
  cstring(): string {
    const bytes = this.data.bytes;
    let i = this.pos;
    while (i < this.end && bytes[i] !== 0) i++;
    if (i >= this.end) this.fail({ kind: 'UnterminatedString' });
    const s = TEXT.decode(bytes.subarray(this.pos, i));
    this.pos = i + 1;
    return s;
  }
  /** The next `n` bytes as a view (no copy). */
  bytes(n: number): Uint8Array {
    this.need(n);
    const b = this.data.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  /** The relocation of the datum starting at section offset `at`, if any. */
  relocationAt(at: number): Relocation | undefined {
    return this.data.relocations.get(at);
  }

  /**
   * Initial length of a unit/table: 32-bit DWARF (`length < 0xfffffff0`) or 64-bit DWARF
   * (`0xffffffff` then an 8-byte length).
   */
  initialLength(): { length: number; format: 4 | 8 } {
    const at = this.pos;
    const l = this.u32();
    if (l < 0xfffffff0) return { length: l, format: 4 };
    if (l === 0xffffffff) return { length: this.sectionOffset(8), format: 8 };
    return this.fail({ kind: 'UnsupportedOffsetSize', size: l }, at);
  }
}

/** A section made from raw bytes (tests, or sections read from elsewhere). */
export function sectionFromBytes(name: string, bytes: Uint8Array | readonly number[]): SectionData {
  return { name, bytes: bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes), relocations: new Map() };
}
