/**
 * The DWARF object of one section set: its sections, units, and normalised attribute values
 * (gimli's `Dwarf` + `Unit::attr_value`). Never throws to the caller: every problem is a warning in
 * `dwarf.warnings` naming section and offset, and decoding continues where possible.
 *
 * As in gimli, the caller owns the object file: it hands over the section bytes (already
 * relocated, relocations attached for symbolic printing) and, optionally, `DwarfSymbols` for what
 * only the object file knows (file names, instruction addresses). PTX modules are turned into
 * sections on the PTX side (`src/ptx/dwarf-sections.ts`); this package imports nothing of ptxdbg.
 */
import {
  accessibilityName, addressClassName, attrName, DW_AT, encodingName, inlineName, languageName,
} from './constants.js';
import { decodeExpression, type Expression, type Operation } from './expr.js';
import {
  Abbreviations, constantValue, parseAbbreviations, parseUnitHeader, Unit, type Attribute, type Die, type UnitContext,
} from './info.js';
import {
  listOffsetFromIndex, readAranges, readLocationList, readPubNames, readRangeList,
  type ArangeSet, type ListEncoding, type LocationListEntry, type PubNameSet, type Range,
} from './lists.js';
import { Reader, Warnings, type DebugAbbrevOffset, type DebugInfoOffset, type Relocation, type SectionData } from './reader.js';

/** An attribute value normalised by attribute name (gimli's `Unit::attr_value`). */
export type AttrValue =
  | { readonly kind: 'address'; readonly value: bigint; readonly reloc: Relocation | undefined }
  /** DW_AT_high_pc given as an offset from DW_AT_low_pc (DWARF 4+ constant form). */
  | { readonly kind: 'highPcOffset'; readonly value: bigint }
  | { readonly kind: 'constant'; readonly value: bigint; readonly signed: boolean }
  | { readonly kind: 'flag'; readonly value: boolean }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'reference'; readonly offset: DebugInfoOffset; readonly die: Die | undefined }
  | { readonly kind: 'expression'; readonly expression: Expression; readonly ops: readonly Operation[]; readonly error: string | undefined }
  | { readonly kind: 'locationList'; readonly offset: number; readonly entries: readonly LocationListEntry[] }
  | { readonly kind: 'rangeList'; readonly offset: number; readonly ranges: readonly Range[] }
  | { readonly kind: 'sectionOffset'; readonly section: string; readonly offset: number }
  | { readonly kind: 'file'; readonly index: number; readonly name: string | undefined }
  /** An enumerated constant: language, encoding, address class, inline, accessibility. */
  | { readonly kind: 'enum'; readonly value: number; readonly name: string }
  | { readonly kind: 'block'; readonly bytes: Uint8Array }
  | { readonly kind: 'unsupported'; readonly what: string };

/** Where a variable lives: one expression, or a list of (pc range → expression). */
export type LocationDescription =
  | { readonly kind: 'expression'; readonly expression: Expression; readonly ops: readonly Operation[] }
  | { readonly kind: 'list'; readonly offset: number; readonly entries: readonly LocationListEntry[] };

const LOCATION_ATTRS: ReadonlySet<number> = new Set([
  DW_AT.location, DW_AT.frame_base, DW_AT.data_member_location, DW_AT.string_length, DW_AT.use_location,
  DW_AT.vtable_elem_location, DW_AT.return_addr, DW_AT.segment, DW_AT.static_link, DW_AT.data_location,
  DW_AT.call_value, DW_AT.call_target, DW_AT.call_data_location, DW_AT.call_data_value,
]);
const REFERENCE_ATTRS: ReadonlySet<number> = new Set([
  DW_AT.type, DW_AT.abstract_origin, DW_AT.specification, DW_AT.sibling, DW_AT.containing_type,
  DW_AT.import, DW_AT.common_reference, DW_AT.object_pointer, DW_AT.call_origin, DW_AT.signature,
]);

/**
 * What the object file the sections came from knows and the sections do not (the caller's side of
 * relocation, as gimli leaves relocation to its caller).
 */
export interface DwarfSymbols {
  /** Path of file index N (DW_AT_decl_file / DW_AT_call_file); PTX: `.file N`. */
  fileName(index: number): string | undefined;
  /** Address of the `index`-th instruction of function `fn` as the relocations placed it, if known. */
  instructionAddress(fn: string, index: number): bigint | undefined;
}

export class Dwarf {
  readonly warnings: Warnings;
  private unitList: Unit[] | undefined;
  private readonly abbrevCache = new Map<number, Abbreviations>();

  constructor(
    readonly sections: ReadonlyMap<string, SectionData>,
    /** The object file's symbols (PTX: labels, functions, `.file` names), when known. */
    readonly symbols: DwarfSymbols | undefined = undefined,
    warnings?: Warnings,
  ) {
    this.warnings = warnings ?? new Warnings();
  }

  section(name: string): SectionData | undefined {
    return this.sections.get(name);
  }

  abbreviations(offset: DebugAbbrevOffset): Abbreviations {
    let t = this.abbrevCache.get(offset);
    if (!t) {
      const data = this.sections.get('.debug_abbrev');
      if (!data) {
        this.warnings.add('.debug_abbrev', offset, 'section .debug_abbrev is missing');
        t = new Abbreviations();
      } else t = parseAbbreviations(data, offset, this.warnings);
      this.abbrevCache.set(offset, t);
    }
    return t;
  }

  /** A NUL-terminated string at `offset` of a string section. */
  stringAt(section: string, offset: number): string | undefined {
    const data = this.sections.get(section);
    if (!data) {
      this.warnings.add(section, offset, `section ${section} is missing`);
      return undefined;
    }
    const r = new Reader(data);
    try {
      if (offset >= data.bytes.length) r.fail({ kind: 'UnexpectedEof', needed: 1, available: 0 }, offset);
      r.pos = offset;
      return r.cstring();
    } catch (e) {
      this.warnings.error(e, section, offset);
      return undefined;
    }
  }

  /** Units of `.debug_info`, headers parsed; a bad header ends the list with a warning. */
  units(): readonly Unit[] {
    if (this.unitList) return this.unitList;
    const list: Unit[] = [];
    const info = this.sections.get('.debug_info');
    if (info) {
      const ctx: UnitContext = {
        info, warnings: this.warnings,
        abbreviations: (off) => this.abbreviations(off),
        stringAt: (s, o) => this.stringAt(s, o),
      };
      let at = 0;
      while (at < info.bytes.length) {
        try {
          const h = parseUnitHeader(info, at);
          list.push(new Unit(h, ctx));
          at = h.end;
        } catch (e) {
          this.warnings.error(e, '.debug_info', at);
          break;
        }
      }
    }
    this.unitList = list;
    return list;
  }

  /** The unit containing a `.debug_info` offset. */
  unitAt(off: DebugInfoOffset): Unit | undefined {
    return this.units().find((u) => off >= u.offset && off < u.header.end);
  }

  /** Path of `.file N` (DW_AT_decl_file / call_file index N; ptxas builds the line table from `.file`). */
  fileName(index: number): string | undefined {
    return this.symbols?.fileName(index);
  }

  /** Encoding for list sections, with the unit's base address. */
  listEncoding(unit: Unit): ListEncoding {
    const root = unit.root();
    const low = root?.die.raw(DW_AT.low_pc);
    return {
      version: unit.header.version, format: unit.header.format, addressSize: unit.header.addressSize,
      baseAddress: low?.kind === 'addr' ? low.value : 0n,
    };
  }

  locationList(unit: Unit, offset: number): LocationListEntry[] {
    const name = unit.header.version >= 5 ? '.debug_loclists' : '.debug_loc';
    const data = this.sections.get(name);
    if (!data) {
      this.warnings.add(name, offset, `section ${name} is missing (location list referenced from unit at 0x${unit.offset.toString(16)})`);
      return [];
    }
    return readLocationList(data, offset, this.listEncoding(unit), this.warnings);
  }

  rangeList(unit: Unit, offset: number): Range[] {
    const name = unit.header.version >= 5 ? '.debug_rnglists' : '.debug_ranges';
    const data = this.sections.get(name);
    if (!data) {
      this.warnings.add(name, offset, `section ${name} is missing`);
      return [];
    }
    return readRangeList(data, offset, this.listEncoding(unit), this.warnings);
  }

  pubnames(): PubNameSet[] {
    const d = this.sections.get('.debug_pubnames');
    return d ? readPubNames(d, this.warnings) : [];
  }
  aranges(): ArangeSet[] {
    const d = this.sections.get('.debug_aranges');
    return d ? readAranges(d, this.warnings) : [];
  }

  /** Decode an expression, reporting a malformed one. */
  expression(unit: Unit, expression: Expression): { ops: Operation[]; error: string | undefined } {
    const { ops, error } = decodeExpression(expression, unit.header);
    if (error) this.warnings.add(error.section, error.offset, error.message.replace(/^.* at offset 0x[0-9a-f]+: /, ''));
    return { ops, error: error?.message };
  }

  /** Normalise one attribute of a DIE (see AttrValue). */
  value(die: Die, attr: Attribute): AttrValue {
    const unit = die.unit;
    const raw = attr.raw;
    const name = attr.name;
    const v = unit.header.version;
    if (LOCATION_ATTRS.has(name)) {
      if (raw.kind === 'block' || raw.kind === 'exprloc') {
        const expression: Expression = { data: unit.ctx.info, offset: raw.offset, length: raw.bytes.length };
        const { ops, error } = this.expression(unit, expression);
        return { kind: 'expression', expression, ops, error };
      }
      const isListForm = raw.kind === 'secOffset' || (raw.kind === 'data' && (raw.size === 4 || raw.size === 8) && v <= 3);
      if (isListForm && name !== DW_AT.data_member_location) {
        const offset = raw.kind === 'secOffset' ? raw.offset : Number(raw.value);
        return { kind: 'locationList', offset, entries: this.locationList(unit, offset) };
      }
      if (raw.kind === 'loclistx') {
        const base = this.listsBase(unit, DW_AT.loclists_base);
        const data = this.sections.get('.debug_loclists');
        const off = data && base !== undefined ? listOffsetFromIndex(data, base, raw.index, unit.header.format, this.warnings) : undefined;
        if (off === undefined) return { kind: 'unsupported', what: `loclistx ${raw.index} without .debug_loclists/DW_AT_loclists_base` };
        return { kind: 'locationList', offset: off, entries: this.locationList(unit, off) };
      }
    }
    if (name === DW_AT.ranges) {
      if (raw.kind === 'rnglistx') {
        const base = this.listsBase(unit, DW_AT.rnglists_base);
        const data = this.sections.get('.debug_rnglists');
        const off = data && base !== undefined ? listOffsetFromIndex(data, base, raw.index, unit.header.format, this.warnings) : undefined;
        if (off === undefined) return { kind: 'unsupported', what: `rnglistx ${raw.index} without .debug_rnglists/DW_AT_rnglists_base` };
        return { kind: 'rangeList', offset: off, ranges: this.rangeList(unit, off) };
      }
      const c = raw.kind === 'secOffset' ? raw.offset : constantValue(raw) !== undefined ? Number(constantValue(raw)) : undefined;
      if (c !== undefined) return { kind: 'rangeList', offset: c, ranges: this.rangeList(unit, c) };
    }
    if (name === DW_AT.stmt_list || name === DW_AT.macro_info || name === DW_AT.macros) {
      const section = name === DW_AT.stmt_list ? '.debug_line' : name === DW_AT.macros ? '.debug_macro' : '.debug_macinfo';
      const off = raw.kind === 'secOffset' ? raw.offset : constantValue(raw);
      if (off !== undefined) return { kind: 'sectionOffset', section, offset: Number(off) };
    }
    if (REFERENCE_ATTRS.has(name) && (raw.kind === 'ref' || raw.kind === 'refAddr')) {
      const offset = raw.kind === 'ref' ? unit.sectionOffset(raw.offset) : raw.offset;
      return { kind: 'reference', offset, die: unit.resolveRef(raw, attr.offset) };
    }
    if ((name === DW_AT.decl_file || name === DW_AT.call_file) && constantValue(raw) !== undefined) {
      const index = Number(constantValue(raw));
      return { kind: 'file', index, name: this.fileName(index) };
    }
    const c = constantValue(raw);
    if (c !== undefined) {
      const n = Number(c);
      switch (name) {
        case DW_AT.language: return { kind: 'enum', value: n, name: languageName(n) };
        case DW_AT.encoding: return { kind: 'enum', value: n, name: encodingName(n) };
        case DW_AT.address_class: return { kind: 'enum', value: n, name: addressClassName(n) };
        case DW_AT.inline: return { kind: 'enum', value: n, name: inlineName(n) };
        case DW_AT.accessibility: return { kind: 'enum', value: n, name: accessibilityName(n) };
        case DW_AT.high_pc: if (v >= 4) return { kind: 'highPcOffset', value: c }; break;
        default: break;
      }
      const signed = raw.kind === 'sdata' || raw.kind === 'implicitConst';
      return { kind: 'constant', value: c, signed };
    }
    switch (raw.kind) {
      case 'addr': return { kind: 'address', value: raw.value, reloc: raw.reloc };
      case 'flag': return { kind: 'flag', value: raw.value };
      case 'string': return { kind: 'string', value: raw.value };
      case 'strp': {
        const s = this.stringAt(raw.section, raw.offset);
        return s === undefined ? { kind: 'unsupported', what: `${raw.section}[0x${raw.offset.toString(16)}]` } : { kind: 'string', value: s };
      }
      case 'ref': case 'refAddr': {
        const offset = raw.kind === 'ref' ? unit.sectionOffset(raw.offset) : raw.offset;
        return { kind: 'reference', offset, die: unit.resolveRef(raw, attr.offset) };
      }
      case 'block': case 'exprloc': return { kind: 'block', bytes: raw.bytes };
      case 'data16': return { kind: 'block', bytes: raw.bytes };
      case 'secOffset': return { kind: 'sectionOffset', section: '?', offset: raw.offset };
      default: return { kind: 'unsupported', what: `${raw.kind} value of ${attrName(name)}` };
    }
  }

  /** Normalised value of attribute `name` of `die`, or undefined when absent. */
  attr(die: Die, name: number): AttrValue | undefined {
    const a = die.attr(name);
    return a ? this.value(die, a) : undefined;
  }

  /** DW_AT_location (or another location attribute) of a DIE. */
  location(die: Die, name: number = DW_AT.location): LocationDescription | undefined {
    const v = this.attr(die, name);
    if (!v) return undefined;
    if (v.kind === 'expression') return { kind: 'expression', expression: v.expression, ops: v.ops };
    if (v.kind === 'locationList') return { kind: 'list', offset: v.offset, entries: v.entries };
    return undefined;
  }

  /** The pc ranges of a DIE: [low_pc, high_pc) or DW_AT_ranges. Empty when it has none. */
  pcRanges(die: Die): Range[] {
    const ranges = this.attr(die, DW_AT.ranges);
    if (ranges?.kind === 'rangeList') return [...ranges.ranges];
    const low = this.attr(die, DW_AT.low_pc);
    const high = this.attr(die, DW_AT.high_pc);
    if (low?.kind !== 'address' || !high) return [];
    const begin = { address: low.value, reloc: low.reloc };
    if (high.kind === 'address') return [{ begin, end: { address: high.value, reloc: high.reloc } }];
    if (high.kind === 'highPcOffset' || high.kind === 'constant') return [{ begin, end: { address: low.value + high.value, reloc: undefined } }];
    return [];
  }

  private listsBase(unit: Unit, name: number): number | undefined {
    const root = unit.root();
    const v = root?.die.raw(name);
    return v?.kind === 'secOffset' ? v.offset : undefined;
  }

  /** All DIEs of all units in depth-first order (builds the trees). */
  *allDies(): IterableIterator<Die> {
    for (const u of this.units()) {
      const root = u.root();
      if (!root) continue;
      const stack = [root];
      while (stack.length) {
        const n = stack.pop()!;
        yield n.die;
        for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
      }
    }
  }
}
