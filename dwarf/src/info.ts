/**
 * `.debug_abbrev` and `.debug_info`: abbreviation tables, unit headers (DWARF 2–5), DIEs and
 * attribute values. Lazy and offset-based like gimli: a `Unit` parses only its header until asked;
 * an `EntriesCursor` walks DIEs in depth-first order, reading each DIE's abbreviation code and
 * *skipping* its attributes (in one jump when every form is fixed-size); `Die.attributes()` decodes
 * them on demand.
 */
import { DW_AT, DW_FORM, DW_UT, formName } from './constants.js';
import {
  DwarfError, Reader, Warnings, debugInfoOffset, toDebugInfoOffset, unitOffset,
  type DebugAbbrevOffset, type DebugInfoOffset, type Relocation, type SectionData, type UnitOffset,
} from './reader.js';

// ---- abbreviations ----------------------------------------------------------------------------

export interface AttributeSpec {
  readonly name: number;
  readonly form: number;
  /** The value of a DW_FORM_implicit_const attribute (stored in the abbreviation). */
  readonly implicitConst: bigint | undefined;
}

export interface Abbreviation {
  readonly code: number;
  readonly tag: number;
  readonly hasChildren: boolean;
  readonly attributes: readonly AttributeSpec[];
  /** Section offset of the declaration in `.debug_abbrev`. */
  readonly offset: number;
}

/** Abbreviations of one table: dense array for codes 1..n, map fallback for the rest. */
export class Abbreviations {
  private readonly dense: Abbreviation[] = [];
  private readonly sparse = new Map<number, Abbreviation>();

  /** Returns false (and keeps the existing one) for a duplicate code. */
  insert(a: Abbreviation): boolean {
    if (this.get(a.code)) return false;
    if (a.code === this.dense.length + 1 && this.sparse.size === 0) this.dense.push(a);
    else this.sparse.set(a.code, a);
    return true;
  }
  get(code: number): Abbreviation | undefined {
    return code >= 1 && code <= this.dense.length ? this.dense[code - 1] : this.sparse.get(code);
  }
  get size(): number {
    return this.dense.length + this.sparse.size;
  }
  *[Symbol.iterator](): IterableIterator<Abbreviation> {
    yield* this.dense;
    yield* this.sparse.values();
  }
}

/**
 * Parse the abbreviation table at `offset`. A duplicate code is reported and the first declaration
 * kept; a truncated table is reported and the declarations read so far are kept.
 */
export function parseAbbreviations(data: SectionData, offset: DebugAbbrevOffset, warnings: Warnings): Abbreviations {
  const table = new Abbreviations();
  const r = new Reader(data);
  try {
    r.pos = offset;
    if (offset > data.bytes.length) r.fail({ kind: 'UnexpectedEof', needed: 1, available: 0 });
    for (;;) {
      const declAt = r.offset;
      const code = r.ulebNum();
      if (code === 0) break;
      const tag = r.ulebNum();
      const children = r.u8();
      const attributes: AttributeSpec[] = [];
      for (;;) {
        const name = r.ulebNum();
        const form = r.ulebNum();
        if (name === 0 && form === 0) break;
        const implicitConst = form === DW_FORM.implicit_const ? r.sleb() : undefined;
        attributes.push({ name, form, implicitConst });
      }
      if (!table.insert({ code, tag, hasChildren: children !== 0, attributes, offset: declAt })) {
        warnings.add(data.name, declAt, `duplicate abbreviation code ${code}; keeping the first declaration`);
      }
    }
  } catch (e) {
    warnings.error(e, data.name, r.offset);
  }
  return table;
}

// ---- form sizes -------------------------------------------------------------------------------

export interface Encoding {
  readonly version: number;
  readonly format: 4 | 8;
  readonly addressSize: number;
}

/** Byte size of a fixed-size form, or undefined when the size depends on the data. */
export function fixedFormSize(form: number, enc: Encoding): number | undefined {
  switch (form) {
    case DW_FORM.addr: return enc.addressSize;
    case DW_FORM.flag_present: case DW_FORM.implicit_const: return 0;
    case DW_FORM.data1: case DW_FORM.ref1: case DW_FORM.flag: case DW_FORM.strx1: case DW_FORM.addrx1: return 1;
    case DW_FORM.data2: case DW_FORM.ref2: case DW_FORM.strx2: case DW_FORM.addrx2: return 2;
    case DW_FORM.strx3: case DW_FORM.addrx3: return 3;
    case DW_FORM.data4: case DW_FORM.ref4: case DW_FORM.ref_sup4: case DW_FORM.strx4: case DW_FORM.addrx4: return 4;
    case DW_FORM.data8: case DW_FORM.ref8: case DW_FORM.ref_sig8: case DW_FORM.ref_sup8: return 8;
    case DW_FORM.data16: return 16;
    case DW_FORM.strp: case DW_FORM.sec_offset: case DW_FORM.line_strp: case DW_FORM.strp_sup:
    case DW_FORM.GNU_ref_alt: case DW_FORM.GNU_strp_alt:
      return enc.format;
    case DW_FORM.ref_addr: return enc.version <= 2 ? enc.addressSize : enc.format;
    default: return undefined;
  }
}

/** Skip one attribute value without decoding it. Throws DwarfError on an unknown form. */
export function skipForm(r: Reader, form: number, enc: Encoding): void {
  const fixed = fixedFormSize(form, enc);
  if (fixed !== undefined) return r.skip(fixed);
  switch (form) {
    case DW_FORM.string: r.cstring(); return;
    case DW_FORM.block1: r.skip(r.u8()); return;
    case DW_FORM.block2: r.skip(r.u16()); return;
    case DW_FORM.block4: r.skip(r.u32()); return;
    case DW_FORM.block: case DW_FORM.exprloc: r.skip(r.ulebNum()); return;
    case DW_FORM.sdata: case DW_FORM.udata: case DW_FORM.ref_udata: case DW_FORM.strx: case DW_FORM.addrx:
    case DW_FORM.loclistx: case DW_FORM.rnglistx: case DW_FORM.GNU_addr_index: case DW_FORM.GNU_str_index:
      r.skipLeb(); return;
    case DW_FORM.indirect: skipForm(r, r.ulebNum(), enc); return;
    default: r.fail({ kind: 'UnknownForm', form });
  }
}

// ---- attribute values -------------------------------------------------------------------------

/** An attribute value as its form encodes it (gimli's `AttributeValue` before normalisation). */
export type RawValue =
  | { readonly kind: 'addr'; readonly value: bigint; readonly reloc: Relocation | undefined }
  | { readonly kind: 'block'; readonly bytes: Uint8Array; readonly offset: number }
  | { readonly kind: 'exprloc'; readonly bytes: Uint8Array; readonly offset: number }
  | { readonly kind: 'data'; readonly size: 1 | 2 | 4 | 8; readonly value: bigint; readonly reloc: Relocation | undefined }
  | { readonly kind: 'data16'; readonly bytes: Uint8Array }
  | { readonly kind: 'sdata'; readonly value: bigint }
  | { readonly kind: 'udata'; readonly value: bigint }
  | { readonly kind: 'flag'; readonly value: boolean }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'strp'; readonly section: string; readonly offset: number }
  | { readonly kind: 'strx'; readonly index: number }
  | { readonly kind: 'ref'; readonly offset: UnitOffset }
  | { readonly kind: 'refAddr'; readonly offset: DebugInfoOffset }
  | { readonly kind: 'refSig8'; readonly signature: bigint }
  | { readonly kind: 'refSup'; readonly offset: number }
  | { readonly kind: 'secOffset'; readonly offset: number; readonly reloc: Relocation | undefined }
  | { readonly kind: 'implicitConst'; readonly value: bigint }
  | { readonly kind: 'addrx'; readonly index: number }
  | { readonly kind: 'loclistx'; readonly index: number }
  | { readonly kind: 'rnglistx'; readonly index: number };

export interface Attribute {
  readonly name: number;
  /** The form actually used (after resolving DW_FORM_indirect). */
  readonly form: number;
  readonly raw: RawValue;
  /** Section offset of the value in `.debug_info`. */
  readonly offset: number;
}

export function readForm(r: Reader, spec: AttributeSpec, enc: Encoding, form = spec.form): RawValue {
  const at = r.offset;
  switch (form) {
    case DW_FORM.addr: return { kind: 'addr', value: r.address(enc.addressSize), reloc: r.relocationAt(at) };
    case DW_FORM.block1: { const n = r.u8(); return { kind: 'block', offset: r.offset, bytes: r.bytes(n) }; }
    case DW_FORM.block2: { const n = r.u16(); return { kind: 'block', offset: r.offset, bytes: r.bytes(n) }; }
    case DW_FORM.block4: { const n = r.u32(); return { kind: 'block', offset: r.offset, bytes: r.bytes(n) }; }
    case DW_FORM.block: { const n = r.ulebNum(); return { kind: 'block', offset: r.offset, bytes: r.bytes(n) }; }
    case DW_FORM.exprloc: { const n = r.ulebNum(); return { kind: 'exprloc', offset: r.offset, bytes: r.bytes(n) }; }
    case DW_FORM.data1: return { kind: 'data', size: 1, value: BigInt(r.u8()), reloc: r.relocationAt(at) };
    case DW_FORM.data2: return { kind: 'data', size: 2, value: BigInt(r.u16()), reloc: r.relocationAt(at) };
    case DW_FORM.data4: return { kind: 'data', size: 4, value: BigInt(r.u32()), reloc: r.relocationAt(at) };
    case DW_FORM.data8: return { kind: 'data', size: 8, value: r.u64(), reloc: r.relocationAt(at) };
    case DW_FORM.data16: return { kind: 'data16', bytes: r.bytes(16) };
    case DW_FORM.sdata: return { kind: 'sdata', value: r.sleb() };
    case DW_FORM.udata: return { kind: 'udata', value: r.uleb() };
    case DW_FORM.flag: return { kind: 'flag', value: r.u8() !== 0 };
    case DW_FORM.flag_present: return { kind: 'flag', value: true };
    case DW_FORM.string: return { kind: 'string', value: r.cstring() };
    case DW_FORM.strp: case DW_FORM.GNU_strp_alt: return { kind: 'strp', section: '.debug_str', offset: r.sectionOffset(enc.format) };
    case DW_FORM.line_strp: return { kind: 'strp', section: '.debug_line_str', offset: r.sectionOffset(enc.format) };
    case DW_FORM.strp_sup: return { kind: 'strp', section: '.debug_str(sup)', offset: r.sectionOffset(enc.format) };
    case DW_FORM.strx: case DW_FORM.GNU_str_index: return { kind: 'strx', index: r.ulebNum() };
    case DW_FORM.strx1: return { kind: 'strx', index: r.u8() };
    case DW_FORM.strx2: return { kind: 'strx', index: r.u16() };
    case DW_FORM.strx3: return { kind: 'strx', index: r.u24() };
    case DW_FORM.strx4: return { kind: 'strx', index: r.u32() };
    case DW_FORM.ref1: return { kind: 'ref', offset: unitOffset(r.u8()) };
    case DW_FORM.ref2: return { kind: 'ref', offset: unitOffset(r.u16()) };
    case DW_FORM.ref4: return { kind: 'ref', offset: unitOffset(r.u32()) };
    case DW_FORM.ref8: return { kind: 'ref', offset: unitOffset(Number(r.u64())) };
    case DW_FORM.ref_udata: return { kind: 'ref', offset: unitOffset(r.ulebNum()) };
    case DW_FORM.ref_addr:
      return { kind: 'refAddr', offset: debugInfoOffset(enc.version <= 2 ? Number(r.address(enc.addressSize)) : r.sectionOffset(enc.format)) };
    case DW_FORM.GNU_ref_alt: return { kind: 'refSup', offset: r.sectionOffset(enc.format) };
    case DW_FORM.ref_sup4: return { kind: 'refSup', offset: r.u32() };
    case DW_FORM.ref_sup8: return { kind: 'refSup', offset: Number(r.u64()) };
    case DW_FORM.ref_sig8: return { kind: 'refSig8', signature: r.u64() };
    case DW_FORM.sec_offset: return { kind: 'secOffset', offset: r.sectionOffset(enc.format), reloc: r.relocationAt(at) };
    case DW_FORM.implicit_const: return { kind: 'implicitConst', value: spec.implicitConst ?? 0n };
    case DW_FORM.addrx: case DW_FORM.GNU_addr_index: return { kind: 'addrx', index: r.ulebNum() };
    case DW_FORM.addrx1: return { kind: 'addrx', index: r.u8() };
    case DW_FORM.addrx2: return { kind: 'addrx', index: r.u16() };
    case DW_FORM.addrx3: return { kind: 'addrx', index: r.u24() };
    case DW_FORM.addrx4: return { kind: 'addrx', index: r.u32() };
    case DW_FORM.loclistx: return { kind: 'loclistx', index: r.ulebNum() };
    case DW_FORM.rnglistx: return { kind: 'rnglistx', index: r.ulebNum() };
    case DW_FORM.indirect: return readForm(r, spec, enc, r.ulebNum());
    default: return r.fail({ kind: 'UnknownForm', form }, at);
  }
}

/** The form actually used by an attribute, following DW_FORM_indirect (caller positioned at value). */
function peekIndirect(r: Reader, form: number): number {
  if (form !== DW_FORM.indirect) return form;
  const c = r.clone();
  return c.ulebNum();
}

/** Integer value of a constant-class raw value (data*, sdata, udata, implicit_const), else undefined. */
export function constantValue(v: RawValue): bigint | undefined {
  switch (v.kind) {
    case 'data': case 'sdata': case 'udata': case 'implicitConst': return v.value;
    default: return undefined;
  }
}

// ---- units ------------------------------------------------------------------------------------

export interface UnitHeader extends Encoding {
  /** Section offset of the unit header. */
  readonly offset: DebugInfoOffset;
  /** The unit_length field (bytes after the initial length). */
  readonly length: number;
  /** DW_UT_* (DWARF 5), DW_UT_compile for older versions. */
  readonly unitType: number;
  readonly abbrevOffset: DebugAbbrevOffset;
  /** Unit offset of the first DIE (= header size). */
  readonly firstDie: UnitOffset;
  /** Section offset just past the unit. */
  readonly end: number;
  readonly dwoId: bigint | undefined;
  readonly typeSignature: bigint | undefined;
  readonly typeOffset: UnitOffset | undefined;
}

/** Parse the unit header at section offset `at`. Throws DwarfError. */
export function parseUnitHeader(data: SectionData, at: number): UnitHeader {
  const r = new Reader(data);
  r.pos = at;
  const { length, format } = r.initialLength();
  const lengthEnd = r.offset;
  if (length > r.remaining) r.fail({ kind: 'BadUnitLength', length, available: r.remaining }, at);
  const end = lengthEnd + length;
  const u = r.split(length);
  u.pos = lengthEnd;
  const version = u.u16();
  if (version < 2 || version > 5) u.fail({ kind: 'UnknownVersion', version }, lengthEnd);
  let unitType: number = DW_UT.compile;
  let addressSize: number;
  let abbrevOffset: number;
  let dwoId: bigint | undefined;
  let typeSignature: bigint | undefined;
  let typeOffset: UnitOffset | undefined;
  if (version >= 5) {
    unitType = u.u8();
    addressSize = u.u8();
    abbrevOffset = u.sectionOffset(format);
    switch (unitType) {
      case DW_UT.compile: case DW_UT.partial: break;
      case DW_UT.skeleton: case DW_UT.split_compile: dwoId = u.u64(); break;
      case DW_UT.type: case DW_UT.split_type:
        typeSignature = u.u64();
        typeOffset = unitOffset(u.sectionOffset(format));
        break;
      default: u.fail({ kind: 'UnknownUnitType', unitType }, lengthEnd + 2);
    }
  } else {
    abbrevOffset = u.sectionOffset(format);
    addressSize = u.u8();
  }
  if (addressSize !== 1 && addressSize !== 2 && addressSize !== 4 && addressSize !== 8) {
    u.fail({ kind: 'UnsupportedAddressSize', size: addressSize }, u.offset - 1);
  }
  return {
    offset: debugInfoOffset(at), length, format, version, unitType, addressSize,
    abbrevOffset: abbrevOffset as DebugAbbrevOffset, firstDie: unitOffset(u.offset - at), end,
    dwoId, typeSignature, typeOffset,
  };
}

/** Services a unit needs from the whole DWARF object (string sections, file names). */
export interface UnitContext {
  readonly info: SectionData;
  readonly warnings: Warnings;
  abbreviations(offset: DebugAbbrevOffset): Abbreviations;
  /** A string from `.debug_str` / `.debug_line_str`. */
  stringAt(section: string, offset: number): string | undefined;
}

export class Unit {
  private dieCache = new Map<number, Die | null>();
  private treeRoot: DieNode | undefined | null = null;
  readonly abbreviations: Abbreviations;

  constructor(readonly header: UnitHeader, readonly ctx: UnitContext) {
    this.abbreviations = ctx.abbreviations(header.abbrevOffset);
  }

  get offset(): DebugInfoOffset {
    return this.header.offset;
  }
  /** Section offset of a unit offset. */
  sectionOffset(off: UnitOffset): DebugInfoOffset {
    return toDebugInfoOffset(this.header.offset, off);
  }
  /** Does this unit contain the DIE at this unit offset? */
  contains(off: UnitOffset): boolean {
    return off >= this.header.firstDie && this.header.offset + off < this.header.end;
  }

  /** A cursor positioned before the first DIE. */
  entries(): EntriesCursor {
    return new EntriesCursor(this, this.header.firstDie);
  }

  /** The DIE at `off` (unit-relative), or undefined (and a warning) when there is none. */
  dieAt(off: UnitOffset): Die | undefined {
    const cached = this.dieCache.get(off);
    if (cached !== undefined) return cached ?? undefined;
    let die: Die | undefined;
    if (!this.contains(off)) {
      this.ctx.warnings.add('.debug_info', this.sectionOffset(off), `bad reference: no DIE at unit offset 0x${off.toString(16)} (outside the unit at 0x${this.offset.toString(16)})`);
    } else {
      try {
        const c = new EntriesCursor(this, off);
        die = c.readOne(0);
        if (die === undefined) this.ctx.warnings.add('.debug_info', this.sectionOffset(off), 'bad reference: points at a null entry');
      } catch (e) {
        this.ctx.warnings.error(e, '.debug_info', this.sectionOffset(off));
      }
    }
    this.dieCache.set(off, die ?? null);
    return die;
  }

  /**
   * The whole DIE tree of this unit (built once). A decoding error stops the walk with a warning;
   * the tree built so far is returned.
   */
  root(): DieNode | undefined {
    if (this.treeRoot !== null) return this.treeRoot;
    const cursor = this.entries();
    const stack: DieNode[] = [];
    cursor.onNull = (offset, depth) => {
      const owner = stack[depth - 1];
      if (owner) (owner as { childrenEnd: number | undefined }).childrenEnd = offset;
    };
    let root: DieNode | undefined;
    const seen = new Map<number, DieNode>();
    try {
      for (let die = cursor.nextDfs(); die; die = cursor.nextDfs()) {
        stack.length = die.depth;
        const parent = stack[die.depth - 1];
        const node: DieNode = { die, parent, children: [], childrenEnd: undefined };
        seen.set(die.offset, node);
        if (parent) (parent.children as DieNode[]).push(node);
        else if (!root) root = node;
        else {
          this.ctx.warnings.add('.debug_info', die.sectionOffset, 'more than one top-level DIE in unit; extra ones ignored');
          break;
        }
        stack.push(node);
      }
    } catch (e) {
      this.ctx.warnings.error(e, '.debug_info', cursor.position);
    }
    this.nodes = seen;
    this.treeRoot = root;
    return root;
  }
  private nodes = new Map<number, DieNode>();

  /** The tree node of the DIE at `off` (builds the tree). */
  nodeAt(off: UnitOffset): DieNode | undefined {
    this.root();
    return this.nodes.get(off);
  }

  /** Follow a reference-class attribute to its DIE within this unit. */
  resolveRef(v: RawValue, from: number): Die | undefined {
    if (v.kind === 'ref') return this.dieAt(v.offset);
    if (v.kind === 'refAddr') {
      if (v.offset >= this.offset && v.offset < this.header.end) return this.dieAt(unitOffset(v.offset - this.offset));
      this.ctx.warnings.add('.debug_info', from, `reference 0x${v.offset.toString(16)} to another unit is not followed`);
      return undefined;
    }
    this.ctx.warnings.add('.debug_info', from, `attribute of kind '${v.kind}' is not a reference`);
    return undefined;
  }
}

export interface DieNode {
  readonly die: Die;
  readonly parent: DieNode | undefined;
  readonly children: readonly DieNode[];
  /** Section offset of the null entry closing the children list (when the DIE has children). */
  readonly childrenEnd: number | undefined;
}

/** A DIE: its abbreviation, position and lazily decoded attributes. */
export class Die {
  private attrs: Attribute[] | undefined;
  constructor(
    readonly unit: Unit,
    /** Unit-relative offset. */
    readonly offset: UnitOffset,
    readonly abbrev: Abbreviation,
    /** Depth in the tree: 0 for the unit DIE. */
    readonly depth: number,
    /** Section offset where the attribute values start. */
    readonly attrsStart: number,
  ) {}

  get tag(): number {
    return this.abbrev.tag;
  }
  get hasChildren(): boolean {
    return this.abbrev.hasChildren;
  }
  get sectionOffset(): DebugInfoOffset {
    return this.unit.sectionOffset(this.offset);
  }

  /** Decode all attributes (cached). A decoding error is reported and ends the list. */
  attributes(): readonly Attribute[] {
    if (this.attrs) return this.attrs;
    const out: Attribute[] = [];
    const r = new Reader(this.unit.ctx.info, this.unit.offset, this.unit.header.end);
    r.pos = this.attrsStart;
    try {
      for (const spec of this.abbrev.attributes) {
        const at = r.offset;
        const form = peekIndirect(r, spec.form);
        const raw = readForm(r, spec, this.unit.header);
        out.push({ name: spec.name, form, raw, offset: at });
      }
    } catch (e) {
      this.unit.ctx.warnings.error(e, '.debug_info', r.offset);
    }
    this.attrs = out;
    return out;
  }

  attr(name: number): Attribute | undefined {
    return this.attributes().find((a) => a.name === name);
  }
  raw(name: number): RawValue | undefined {
    return this.attr(name)?.raw;
  }
  has(name: number): boolean {
    return this.abbrev.attributes.some((a) => a.name === name);
  }

  /** A string attribute (DW_FORM_string/strp/line_strp). */
  string(name: number): string | undefined {
    const v = this.raw(name);
    if (!v) return undefined;
    if (v.kind === 'string') return v.value;
    if (v.kind === 'strp') return this.unit.ctx.stringAt(v.section, v.offset);
    return undefined;
  }
  /** The DIE's name (DW_AT_name). */
  get name(): string | undefined {
    return this.string(DW_AT.name);
  }
  /** An unsigned constant attribute as a number (data*, udata, sdata, flag, implicit_const). */
  udata(name: number): number | undefined {
    const v = this.raw(name);
    if (!v) return undefined;
    if (v.kind === 'flag') return v.value ? 1 : 0;
    const c = constantValue(v);
    return c === undefined ? undefined : Number(c);
  }
  /** A signed constant attribute (data forms are sign-extended from their size only for sdata). */
  sdata(name: number): bigint | undefined {
    const v = this.raw(name);
    return v ? constantValue(v) : undefined;
  }
  flag(name: number): boolean {
    const v = this.raw(name);
    return v?.kind === 'flag' ? v.value : v !== undefined && constantValue(v) !== 0n;
  }
  /** Follow a reference attribute (DW_AT_type, DW_AT_abstract_origin, ...). */
  ref(name: number): Die | undefined {
    const a = this.attr(name);
    return a ? this.unit.resolveRef(a.raw, a.offset) : undefined;
  }
}

/** Depth-first DIE walker (gimli's `EntriesCursor`). */
export class EntriesCursor {
  private readonly r: Reader;
  private depth = 0;
  private current: Die | undefined;
  private started = false;
  /** Called for each null entry with its section offset and the depth of the list it closes. */
  onNull: ((offset: number, depth: number) => void) | undefined;

  constructor(readonly unit: Unit, start: UnitOffset) {
    this.r = new Reader(unit.ctx.info, unit.offset, unit.header.end);
    this.r.pos = unit.offset + start;
  }
  /** Section offset of the cursor. */
  get position(): number {
    return this.r.offset;
  }

  /** Read the entry at the cursor: a DIE or undefined for a null entry; skips its attributes. */
  readOne(depth: number): Die | undefined {
    const r = this.r;
    const at = r.offset;
    const code = r.ulebNum();
    if (code === 0) return undefined;
    const abbrev = this.unit.abbreviations.get(code);
    if (!abbrev) return r.fail({ kind: 'InvalidAbbreviationCode', code }, at);
    const die = new Die(this.unit, unitOffset(at - this.unit.offset), abbrev, depth, r.offset);
    this.skipAttributes(abbrev);
    return die;
  }

  private skipAttributes(abbrev: Abbreviation): void {
    const enc = this.unit.header;
    let fixed = 0;
    for (const spec of abbrev.attributes) {
      const n = fixedFormSize(spec.form, enc);
      if (n !== undefined) {
        fixed += n;
        continue;
      }
      this.r.skip(fixed);
      fixed = 0;
      skipForm(this.r, spec.form, enc);
    }
    this.r.skip(fixed);
  }

  /**
   * The next DIE in depth-first order (null entries close a level and are not returned), or
   * undefined at the end of the unit. Throws DwarfError on malformed data.
   */
  nextDfs(): Die | undefined {
    for (;;) {
      if (this.r.atEnd) return undefined;
      if (this.started && this.current?.hasChildren) this.depth++;
      this.started = true;
      this.current = undefined;
      const at = this.r.offset;
      const die = this.readOne(this.depth);
      if (die) {
        this.current = die;
        return die;
      }
      this.onNull?.(at, this.depth);
      // Null entry: end of a sibling list.
      if (this.depth === 0) {
        if (!this.r.atEnd) this.unit.ctx.warnings.add('.debug_info', this.r.offset - 1, `null entry at top level; ${this.r.remaining} byte(s) left in unit skipped`);
        this.r.pos = this.r.end;
        return undefined;
      }
      this.depth--;
    }
  }

  /** Skip the children of the current DIE and return its next sibling (or undefined). */
  nextSibling(): Die | undefined {
    const cur = this.current;
    if (!cur) return this.nextDfs();
    const target = cur.depth;
    const sib = cur.hasChildren ? cur.attr(DW_AT.sibling) : undefined;
    if (sib && sib.raw.kind === 'ref' && this.unit.contains(sib.raw.offset)) {
      this.r.pos = this.unit.offset + sib.raw.offset;
      this.current = undefined;
      this.depth = target;
      const d = this.readOne(target);
      this.current = d;
      return d;
    }
    for (let d = this.nextDfs(); d; d = this.nextDfs()) {
      if (d.depth <= target) return d.depth === target ? d : undefined;
    }
    return undefined;
  }
}

/** For messages: "DW_FORM_data4" etc. */
export { formName };

/** Thrown-error helper for callers that want a DwarfError in hand. */
export function isDwarfError(e: unknown): e is DwarfError {
  return e instanceof DwarfError;
}
