/**
 * Location lists (`.debug_loc` DWARF 2–4, `.debug_loclists` DWARF 5), range lists (`.debug_ranges`,
 * `.debug_rnglists`), and the lookup tables `.debug_pubnames` and `.debug_aranges`.
 *
 * List bounds that were symbolic in the PTX (`$L__tmp3`) keep their relocation, so a dump can print
 * the label and the engine can map it back to an instruction.
 */
import { DW_LLE, DW_RLE } from './constants.js';
import type { Expression } from './expr.js';
import { DwarfError, Reader, Warnings, type Relocation, type SectionData } from './reader.js';

export interface ListEncoding {
  readonly version: number;
  readonly format: 4 | 8;
  readonly addressSize: number;
  /** The unit's base address (DW_AT_low_pc of the unit DIE). */
  readonly baseAddress: bigint;
  /** Resolve a `.debug_addr` index (DWARF 5 x-forms); undefined when unavailable. */
  readonly addressIndex?: (index: number) => bigint | undefined;
}

export interface Bound {
  readonly address: bigint;
  /** The symbol the bound was written as in the PTX (when it was one). */
  readonly reloc: Relocation | undefined;
}

export interface LocationListEntry {
  /** Section offset of the entry. */
  readonly offset: number;
  /** Half-open range [begin, end) of addresses, already rebased on the base address. */
  readonly begin: Bound;
  readonly end: Bound;
  readonly expression: Expression;
  /** DW_LLE_default_location: applies where no other entry does. */
  readonly isDefault: boolean;
}

export interface Range {
  readonly begin: Bound;
  readonly end: Bound;
}

function maxAddress(size: number): bigint {
  return (1n << BigInt(size * 8)) - 1n;
}

function readBound(r: Reader, size: number): Bound {
  const at = r.offset;
  const address = r.address(size);
  return { address, reloc: r.relocationAt(at) };
}
const rebase = (b: Bound, base: bigint, size: number): Bound => ({ address: BigInt.asUintN(size * 8, b.address + base), reloc: b.reloc });
const plain = (address: bigint): Bound => ({ address, reloc: undefined });

const MAX_ENTRIES = 100000;

/**
 * Read the location list at `offset`. Malformed data ends the list with a warning naming the
 * section and offset; the entries read so far are returned.
 */
export function readLocationList(data: SectionData, offset: number, enc: ListEncoding, warnings: Warnings): LocationListEntry[] {
  const out: LocationListEntry[] = [];
  const r = new Reader(data);
  try {
    if (offset >= data.bytes.length) r.fail({ kind: 'UnexpectedEof', needed: 1, available: 0 }, offset);
    r.pos = offset;
    let base = enc.baseAddress;
    const size = enc.addressSize;
    const idx = (i: number, at: number): bigint => {
      const v = enc.addressIndex?.(i);
      if (v === undefined) throw new DwarfError({ kind: 'MissingSection', section: '.debug_addr' }, data.name, at);
      return v;
    };
    while (out.length < MAX_ENTRIES) {
      const at = r.offset;
      if (enc.version < 5) {
        const b = readBound(r, size);
        const e = readBound(r, size);
        if (b.address === 0n && e.address === 0n && !b.reloc && !e.reloc) break;
        if (b.address === maxAddress(size)) {
          base = e.address;
          continue;
        }
        const len = r.u16();
        out.push({ offset: at, begin: rebase(b, base, size), end: rebase(e, base, size), expression: { data, offset: r.offset, length: len }, isDefault: false });
        r.skip(len);
        continue;
      }
      const kind = r.u8();
      let begin: Bound;
      let end: Bound;
      let isDefault = false;
      switch (kind) {
        case DW_LLE.end_of_list: return out;
        case DW_LLE.base_addressx: base = idx(r.ulebNum(), at); continue;
        case DW_LLE.base_address: base = readBound(r, size).address; continue;
        case DW_LLE.startx_endx: begin = plain(idx(r.ulebNum(), at)); end = plain(idx(r.ulebNum(), at)); break;
        case DW_LLE.startx_length: begin = plain(idx(r.ulebNum(), at)); end = plain(begin.address + r.uleb()); break;
        case DW_LLE.offset_pair: {
          const b = r.uleb(); const e = r.uleb();
          begin = plain(base + b); end = plain(base + e);
          break;
        }
        case DW_LLE.default_location: begin = plain(0n); end = plain(maxAddress(size)); isDefault = true; break;
        case DW_LLE.start_end: begin = readBound(r, size); end = readBound(r, size); break;
        case DW_LLE.start_length: begin = readBound(r, size); end = { address: begin.address + r.uleb(), reloc: undefined }; break;
        default: return r.fail({ kind: 'BadEntryKind', entryKind: kind }, at);
      }
      const len = r.ulebNum();
      out.push({ offset: at, begin, end, expression: { data, offset: r.offset, length: len }, isDefault });
      r.skip(len);
    }
  } catch (e) {
    warnings.error(e, data.name, r.offset);
  }
  return out;
}

/** Read the range list at `offset` (`.debug_ranges` before DWARF 5, `.debug_rnglists` from 5). */
export function readRangeList(data: SectionData, offset: number, enc: ListEncoding, warnings: Warnings): Range[] {
  const out: Range[] = [];
  const r = new Reader(data);
  try {
    if (offset >= data.bytes.length) r.fail({ kind: 'UnexpectedEof', needed: 1, available: 0 }, offset);
    r.pos = offset;
    let base = enc.baseAddress;
    const size = enc.addressSize;
    const idx = (i: number, at: number): bigint => {
      const v = enc.addressIndex?.(i);
      if (v === undefined) throw new DwarfError({ kind: 'MissingSection', section: '.debug_addr' }, data.name, at);
      return v;
    };
    while (out.length < MAX_ENTRIES) {
      const at = r.offset;
      if (enc.version < 5) {
        const b = readBound(r, size);
        const e = readBound(r, size);
        if (b.address === 0n && e.address === 0n && !b.reloc && !e.reloc) break;
        if (b.address === maxAddress(size)) { base = e.address; continue; }
        out.push({ begin: rebase(b, base, size), end: rebase(e, base, size) });
        continue;
      }
      const kind = r.u8();
      switch (kind) {
        case DW_RLE.end_of_list: return out;
        case DW_RLE.base_addressx: base = idx(r.ulebNum(), at); break;
        case DW_RLE.base_address: base = readBound(r, size).address; break;
        case DW_RLE.startx_endx: out.push({ begin: plain(idx(r.ulebNum(), at)), end: plain(idx(r.ulebNum(), at)) }); break;
        case DW_RLE.startx_length: { const b = idx(r.ulebNum(), at); out.push({ begin: plain(b), end: plain(b + r.uleb()) }); break; }
        case DW_RLE.offset_pair: { const b = r.uleb(); const e = r.uleb(); out.push({ begin: plain(base + b), end: plain(base + e) }); break; }
        case DW_RLE.start_end: out.push({ begin: readBound(r, size), end: readBound(r, size) }); break;
        case DW_RLE.start_length: { const b = readBound(r, size); out.push({ begin: b, end: plain(b.address + r.uleb()) }); break; }
        default: return r.fail({ kind: 'BadEntryKind', entryKind: kind }, at);
      }
    }
  } catch (e) {
    warnings.error(e, data.name, r.offset);
  }
  return out;
}

/** DWARF 5 `DW_FORM_loclistx`/`rnglistx`: the offset of list `index` given the unit's list base. */
export function listOffsetFromIndex(data: SectionData, base: number, index: number, format: 4 | 8, warnings: Warnings): number | undefined {
  const r = new Reader(data);
  try {
    r.pos = base + index * format;
    return base + r.sectionOffset(format);
  } catch (e) {
    warnings.error(e, data.name, r.offset);
    return undefined;
  }
}

// ---- .debug_pubnames / .debug_pubtypes ---------------------------------------------------------

export interface PubNameSet {
  readonly offset: number;
  readonly version: number;
  readonly unitOffset: number;
  readonly unitLength: number;
  readonly names: readonly { readonly dieOffset: number; readonly name: string }[];
}

export function readPubNames(data: SectionData, warnings: Warnings): PubNameSet[] {
  const sets: PubNameSet[] = [];
  const r = new Reader(data);
  try {
    while (!r.atEnd) {
      const at = r.offset;
      const { length, format } = r.initialLength();
      const s = r.split(length);
      const version = s.u16();
      const unitOffset = s.sectionOffset(format);
      const unitLength = s.sectionOffset(format);
      const names: { dieOffset: number; name: string }[] = [];
      while (!s.atEnd) {
        const dieOffset = s.sectionOffset(format);
        if (dieOffset === 0) break;
        names.push({ dieOffset, name: s.cstring() });
      }
      sets.push({ offset: at, version, unitOffset, unitLength, names });
    }
  } catch (e) {
    warnings.error(e, data.name, r.offset);
  }
  return sets;
}

// ---- .debug_aranges -----------------------------------------------------------------------------

export interface ArangeSet {
  readonly offset: number;
  readonly version: number;
  readonly unitOffset: number;
  readonly addressSize: number;
  readonly ranges: readonly Range[];
}

export function readAranges(data: SectionData, warnings: Warnings): ArangeSet[] {
  const sets: ArangeSet[] = [];
  const r = new Reader(data);
  try {
    while (!r.atEnd) {
      const at = r.offset;
      const { length, format } = r.initialLength();
      const s = r.split(length);
      const version = s.u16();
      const unitOffset = s.sectionOffset(format);
      const addressSize = s.u8();
      const segSize = s.u8();
      const tuple = 2 * addressSize + segSize;
      const pad = (tuple - ((s.offset - at) % tuple)) % tuple;
      s.skip(Math.min(pad, s.remaining));
      const ranges: Range[] = [];
      while (s.remaining >= 2 * addressSize + segSize) {
        if (segSize) s.skip(segSize);
        const b = readBound(s, addressSize);
        const at2 = s.offset;
        const len = s.address(addressSize);
        if (b.address === 0n && len === 0n && !b.reloc) break;
        ranges.push({ begin: b, end: { address: b.address + len, reloc: s.relocationAt(at2) } });
      }
      sets.push({ offset: at, version, unitOffset, addressSize, ranges });
    }
  } catch (e) {
    warnings.error(e, data.name, r.offset);
  }
  return sets;
}
