/**
 * `.debug_line`: line-number programs, DWARF versions 2–5 (DWARF 5 §6.2), decoded into the rows of
 * the line table as `llvm-dwarfdump --debug-line` prints them (address, line, column, file, isa,
 * discriminator, flags). Standard, extended and special opcodes; DWARF 5 directory/file entry
 * formats with DW_FORM_string/line_strp/strp/udata/data1-16/block (MD5 as data16).
 *
 * A bad header is a `DwarfError` naming `.debug_line` and the offset (the caller decides what to
 * do); an error inside the opcodes ends that program with the rows decoded so far and a warning.
 * `LineTable` answers "which file:line is this address" over every program of a section (addr2line).
 */
import { DW_AT, DW_FORM } from './constants.js';
import type { Dwarf } from './dwarf.js';
import type { Unit } from './info.js';
import { Reader, Warnings, type SectionData } from './reader.js';

export const DW_LNS = {
  copy: 1, advance_pc: 2, advance_line: 3, set_file: 4, set_column: 5, negate_stmt: 6, set_basic_block: 7,
  const_add_pc: 8, fixed_advance_pc: 9, set_prologue_end: 10, set_epilogue_begin: 11, set_isa: 12,
} as const;
export const DW_LNE = { end_sequence: 1, set_address: 2, define_file: 3, set_discriminator: 4 } as const;
export const DW_LNCT = { path: 1, directory_index: 2, timestamp: 3, size: 4, MD5: 5 } as const;

export interface LineFileEntry {
  readonly path: string;
  /** Index into `includeDirectories` (DWARF 5: 0-based; earlier: 0 = the unit's directory, else 1-based). */
  readonly directoryIndex: number;
  readonly timestamp: bigint;
  readonly size: bigint;
  readonly md5: Uint8Array | undefined;
}

export interface LineProgramHeader {
  /** Section offset of the unit (DW_AT_stmt_list). */
  readonly offset: number;
  /** Section offset just past the unit. */
  readonly end: number;
  readonly format: 4 | 8;
  readonly version: number;
  readonly addressSize: number;
  readonly minimumInstructionLength: number;
  readonly maximumOperationsPerInstruction: number;
  readonly defaultIsStmt: boolean;
  readonly lineBase: number;
  readonly lineRange: number;
  readonly opcodeBase: number;
  readonly standardOpcodeLengths: readonly number[];
  readonly includeDirectories: readonly string[];
  readonly fileNames: readonly LineFileEntry[];
}

export interface LineRow {
  readonly address: bigint;
  readonly opIndex: number;
  readonly file: number;
  readonly line: number;
  readonly column: number;
  readonly isStmt: boolean;
  readonly basicBlock: boolean;
  readonly endSequence: boolean;
  readonly prologueEnd: boolean;
  readonly epilogueBegin: boolean;
  readonly isa: number;
  readonly discriminator: number;
}

export interface LineProgram {
  readonly header: LineProgramHeader;
  readonly rows: readonly LineRow[];
}

export interface LineProgramOptions {
  /** `.debug_str` (DW_FORM_strp in DWARF 5 entry formats). */
  readonly strings?: SectionData | undefined;
  /** `.debug_line_str` (DW_FORM_line_strp). */
  readonly lineStrings?: SectionData | undefined;
  /** Address size for DWARF 2–4 programs (their header has none); default 8. */
  readonly addressSize?: number;
  /** Where opcode errors go (the rows before the error are kept). */
  readonly warnings?: Warnings;
}

const SECTION = '.debug_line';

function stringAt(section: SectionData | undefined, name: string, offset: number, r: Reader, at: number): string {
  if (!section) return r.fail({ kind: 'MissingSection', section: name }, at);
  return new Reader(section).at(offset).cstring();
}

type EntryValue = { readonly kind: 'string'; readonly value: string } | { readonly kind: 'number'; readonly value: bigint } | { readonly kind: 'bytes'; readonly value: Uint8Array };

/** One value of a DWARF 5 directory/file entry, by form. */
function entryValue(r: Reader, form: number, format: 4 | 8, o: LineProgramOptions): EntryValue {
  const at = r.pos;
  switch (form) {
    case DW_FORM.string: return { kind: 'string', value: r.cstring() };
    case DW_FORM.line_strp: return { kind: 'string', value: stringAt(o.lineStrings, '.debug_line_str', r.sectionOffset(format), r, at) };
    case DW_FORM.strp: return { kind: 'string', value: stringAt(o.strings, '.debug_str', r.sectionOffset(format), r, at) };
    case DW_FORM.udata: return { kind: 'number', value: r.uleb() };
    case DW_FORM.data1: return { kind: 'number', value: r.uN(1) };
    case DW_FORM.data2: return { kind: 'number', value: r.uN(2) };
    case DW_FORM.data4: return { kind: 'number', value: r.uN(4) };
    case DW_FORM.data8: return { kind: 'number', value: r.uN(8) };
    case DW_FORM.data16: return { kind: 'bytes', value: r.bytes(16) };
    case DW_FORM.block: return { kind: 'bytes', value: r.bytes(r.ulebNum()) };
    default: return r.fail({ kind: 'UnknownForm', form }, at);
  }
}

/** DWARF 5 entry list: a format (content type, form pairs), a count, the entries. */
function readEntries(r: Reader, format: 4 | 8, o: LineProgramOptions, what: string): LineFileEntry[] {
  const formatCount = r.u8();
  const pairs: [number, number][] = [];
  for (let i = 0; i < formatCount; i++) pairs.push([r.ulebNum(), r.ulebNum()]);
  const countAt = r.pos;
  const count = r.ulebNum();
  // each entry takes at least one byte when it has any field: a count past the bytes left is a lie
  if (formatCount > 0 && count > r.remaining) r.fail({ kind: 'BadLineHeader', why: `${count} ${what} entries in ${r.remaining} bytes` }, countAt);
  const out: LineFileEntry[] = [];
  for (let i = 0; i < count; i++) {
    let path = '';
    let directoryIndex = 0;
    let timestamp = 0n;
    let size = 0n;
    let md5: Uint8Array | undefined;
    for (const [type, form] of pairs) {
      const v = entryValue(r, form, format, o);
      if (type === DW_LNCT.path && v.kind === 'string') path = v.value;
      else if (type === DW_LNCT.directory_index && v.kind === 'number') directoryIndex = Number(v.value);
      else if (type === DW_LNCT.timestamp && v.kind === 'number') timestamp = v.value;
      else if (type === DW_LNCT.size && v.kind === 'number') size = v.value;
      else if (type === DW_LNCT.MD5 && v.kind === 'bytes') md5 = v.value;
      // other content types (vendor ones) are skipped by their form
    }
    out.push({ path, directoryIndex, timestamp, size, md5 });
  }
  return out;
}

/** The header of the line program at `offset`; `r` is left at the first opcode. */
function readHeader(section: SectionData, offset: number, o: LineProgramOptions): { header: LineProgramHeader; program: Reader } {
  const whole = new Reader(section);
  const r = whole.at(offset);
  const { length, format } = r.initialLength();
  if (length > r.remaining) r.fail({ kind: 'BadUnitLength', length, available: r.remaining }, offset);
  const unit = r.split(length);
  const versionAt = unit.pos;
  const version = unit.u16();
  if (version < 2 || version > 5) unit.fail({ kind: 'UnknownVersion', version }, versionAt);
  let addressSize = o.addressSize ?? 8;
  if (version >= 5) {
    const at = unit.pos;
    addressSize = unit.u8();
    if (![1, 2, 4, 8].includes(addressSize)) unit.fail({ kind: 'UnsupportedAddressSize', size: addressSize }, at);
    const segmentSelectorSize = unit.u8();
    if (segmentSelectorSize !== 0) unit.fail({ kind: 'BadLineHeader', why: `segment selector size ${segmentSelectorSize} (segmented addresses are not supported)` }, at + 1);
  }
  const headerLengthAt = unit.pos;
  const headerLength = unit.sectionOffset(format);
  if (headerLength > unit.remaining) unit.fail({ kind: 'BadLineHeader', why: `header length ${headerLength} exceeds the ${unit.remaining} bytes left in the unit` }, headerLengthAt);
  const program = unit.clone();
  program.skip(headerLength);
  const h = unit.split(headerLength);
  const minimumInstructionLength = h.u8();
  const maximumOperationsPerInstruction = version >= 4 ? h.u8() : 1;
  if (maximumOperationsPerInstruction === 0) h.fail({ kind: 'BadLineHeader', why: 'maximum_operations_per_instruction is 0' }, h.pos - 1);
  const defaultIsStmt = h.u8() !== 0;
  const lineBase = h.i8();
  const lineRangeAt = h.pos;
  const lineRange = h.u8();
  if (lineRange === 0) h.fail({ kind: 'BadLineHeader', why: 'line_range is 0' }, lineRangeAt);
  const opcodeBaseAt = h.pos;
  const opcodeBase = h.u8();
  if (opcodeBase === 0) h.fail({ kind: 'BadLineHeader', why: 'opcode_base is 0' }, opcodeBaseAt);
  const standardOpcodeLengths: number[] = [];
  for (let i = 1; i < opcodeBase; i++) standardOpcodeLengths.push(h.u8());
  let includeDirectories: string[];
  let fileNames: LineFileEntry[];
  if (version >= 5) {
    includeDirectories = readEntries(h, format, o, 'directory').map((e) => e.path);
    fileNames = readEntries(h, format, o, 'file name');
  } else {
    includeDirectories = [];
    for (let d = h.cstring(); d !== ''; d = h.cstring()) includeDirectories.push(d);
    fileNames = [];
    for (let f = h.cstring(); f !== ''; f = h.cstring()) {
      fileNames.push({ path: f, directoryIndex: h.ulebNum(), timestamp: h.uleb(), size: h.uleb(), md5: undefined });
    }
  }
  return {
    header: {
      offset, end: unit.end, format, version, addressSize, minimumInstructionLength, maximumOperationsPerInstruction,
      defaultIsStmt, lineBase, lineRange, opcodeBase, standardOpcodeLengths, includeDirectories, fileNames,
    },
    program,
  };
}

/**
 * Decode the line program at section offset `offset` (a unit's DW_AT_stmt_list). Throws a
 * `DwarfError` (section and offset) when the header is unusable.
 */
export function readLineProgram(section: SectionData, offset = 0, o: LineProgramOptions = {}): LineProgram {
  const { header: hd, program: r } = readHeader(section, offset, o);
  const fileNames = [...hd.fileNames];
  const rows: LineRow[] = [];
  const initial = () => ({
    address: 0n, opIndex: 0, file: 1, line: 1, column: 0, isStmt: hd.defaultIsStmt, basicBlock: false,
    endSequence: false, prologueEnd: false, epilogueBegin: false, isa: 0, discriminator: 0,
  });
  let s = initial();
  const maxOps = hd.maximumOperationsPerInstruction;
  const advance = (operationAdvance: bigint): void => {
    if (maxOps === 1) {
      s.address = BigInt.asUintN(64, s.address + BigInt(hd.minimumInstructionLength) * operationAdvance);
    } else {
      const total = BigInt(s.opIndex) + operationAdvance;
      s.address = BigInt.asUintN(64, s.address + BigInt(hd.minimumInstructionLength) * (total / BigInt(maxOps)));
      s.opIndex = Number(total % BigInt(maxOps));
    }
  };
  const emit = (): void => {
    rows.push({ ...s });
    s.basicBlock = false; s.prologueEnd = false; s.epilogueBegin = false; s.discriminator = 0;
  };
  try {
    while (!r.atEnd) {
      const opAt = r.pos;
      const op = r.u8();
      if (op >= hd.opcodeBase) {
        const adjusted = op - hd.opcodeBase;
        advance(BigInt(Math.floor(adjusted / hd.lineRange)));
        s.line += hd.lineBase + (adjusted % hd.lineRange);
        emit();
      } else if (op === 0) {
        const len = r.ulebNum();
        const ext = r.split(len);
        if (len === 0) continue;
        const sub = ext.u8();
        switch (sub) {
          case DW_LNE.end_sequence:
            s.endSequence = true;
            emit();
            s = initial();
            break;
          case DW_LNE.set_address: {
            const size = len - 1;
            if (![1, 2, 4, 8].includes(size)) ext.fail({ kind: 'UnsupportedAddressSize', size }, opAt);
            s.address = ext.address(size);
            s.opIndex = 0;
            break;
          }
          case DW_LNE.define_file:
            fileNames.push({ path: ext.cstring(), directoryIndex: ext.ulebNum(), timestamp: ext.uleb(), size: ext.uleb(), md5: undefined });
            break;
          case DW_LNE.set_discriminator:
            s.discriminator = ext.ulebNum();
            break;
          default: break; // vendor extended opcodes: their length skips them
        }
      } else {
        switch (op) {
          case DW_LNS.copy: emit(); break;
          case DW_LNS.advance_pc: advance(r.uleb()); break;
          case DW_LNS.advance_line: s.line += Number(r.sleb()); break;
          case DW_LNS.set_file: s.file = r.ulebNum(); break;
          case DW_LNS.set_column: s.column = r.ulebNum(); break;
          case DW_LNS.negate_stmt: s.isStmt = !s.isStmt; break;
          case DW_LNS.set_basic_block: s.basicBlock = true; break;
          case DW_LNS.const_add_pc: advance(BigInt(Math.floor((255 - hd.opcodeBase) / hd.lineRange))); break;
          case DW_LNS.fixed_advance_pc: s.address = BigInt.asUintN(64, s.address + BigInt(r.u16())); s.opIndex = 0; break;
          case DW_LNS.set_prologue_end: s.prologueEnd = true; break;
          case DW_LNS.set_epilogue_begin: s.epilogueBegin = true; break;
          case DW_LNS.set_isa: s.isa = r.ulebNum(); break;
          default:
            // an opcode this decoder does not know: the header says how many LEB128 operands it has
            for (let i = 0; i < (hd.standardOpcodeLengths[op - 1] ?? 0); i++) r.skipLeb();
        }
      }
    }
  } catch (e) {
    (o.warnings ?? new Warnings()).error(e, SECTION, r.pos);
  }
  return { header: { ...hd, fileNames }, rows };
}

/**
 * Path of file `index` of a program as a row names it: DWARF 5 counts from 0, earlier versions
 * from 1. A relative path is joined to its directory; `compDir` stands for directory 0 of DWARF 2–4
 * (the unit's DW_AT_comp_dir).
 */
export function lineFilePath(header: LineProgramHeader, index: number, compDir?: string): string | undefined {
  const v5 = header.version >= 5;
  const f = header.fileNames[v5 ? index : index - 1];
  if (!f) return undefined;
  if (f.path.startsWith('/')) return f.path;
  const dir = v5 ? header.includeDirectories[f.directoryIndex] : f.directoryIndex === 0 ? compDir : header.includeDirectories[f.directoryIndex - 1];
  return dir ? `${dir.replace(/\/+$/, '')}/${f.path}` : f.path;
}

/** Every line program of a `.debug_line` section, one after another. Bad headers become warnings. */
export function readLinePrograms(sections: ReadonlyMap<string, SectionData>, warnings = new Warnings()): LineProgram[] {
  const section = sections.get(SECTION);
  if (!section) return [];
  const o: LineProgramOptions = { strings: sections.get('.debug_str'), lineStrings: sections.get('.debug_line_str'), warnings };
  const out: LineProgram[] = [];
  let offset = 0;
  while (offset < section.bytes.length) {
    try {
      const p = readLineProgram(section, offset, o);
      out.push(p);
      offset = p.header.end;
    } catch (e) {
      warnings.error(e, SECTION, offset);
      break; // without a usable length nothing after it can be found
    }
  }
  return out;
}

export interface LineLocation {
  readonly file: string | undefined;
  readonly line: number;
  readonly column: number;
}

/** Address → file:line over a set of line programs (the row whose range holds the address). */
export class LineTable {
  /** [start, end) of each row's range, sorted by start. */
  private readonly ranges: { start: bigint; end: bigint; program: LineProgram; row: LineRow }[] = [];
  private readonly compDir: (p: LineProgram) => string | undefined;

  /** `compDir`: directory 0 of DWARF 2–4 programs (their unit's DW_AT_comp_dir), one or per program. */
  constructor(programs: readonly LineProgram[], compDir?: string | ((p: LineProgram) => string | undefined)) {
    this.compDir = typeof compDir === 'function' ? compDir : () => compDir;
    for (const p of programs) {
      for (let i = 0; i + 1 < p.rows.length; i++) {
        const row = p.rows[i]!;
        const next = p.rows[i + 1]!;
        if (row.endSequence || next.address <= row.address) continue;
        this.ranges.push({ start: row.address, end: next.address, program: p, row });
      }
    }
    this.ranges.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  }

  /** The location of `address`, or undefined when no sequence covers it. */
  find(address: bigint): LineLocation | undefined {
    let lo = 0;
    let hi = this.ranges.length - 1;
    let hit = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.ranges[mid]!.start <= address) { hit = mid; lo = mid + 1; } else hi = mid - 1;
    }
    const r = hit >= 0 ? this.ranges[hit] : undefined;
    if (!r || address >= r.end) return undefined;
    return { file: lineFilePath(r.program.header, r.row.file, this.compDir(r.program)), line: r.row.line, column: r.row.column };
  }
}

/**
 * The line table of a whole section set: each unit's program (DW_AT_stmt_list) with its
 * DW_AT_comp_dir; without `.debug_info`, every program of `.debug_line` in order. Never throws:
 * problems go to `dwarf.warnings`.
 */
export function lineTableOf(dwarf: Dwarf): LineTable {
  const section = dwarf.section(SECTION);
  if (!section) return new LineTable([]);
  const o: LineProgramOptions = { strings: dwarf.section('.debug_str'), lineStrings: dwarf.section('.debug_line_str'), warnings: dwarf.warnings };
  const programs = new Map<number, { program: LineProgram; compDir: string | undefined }>();
  let units: readonly Unit[] = [];
  try { units = dwarf.units(); } catch (e) { dwarf.warnings.error(e, '.debug_info'); }
  for (const u of units) {
    try {
      const die = u.root()?.die;
      if (!die) continue;
      const raw = die.raw(DW_AT.stmt_list);
      const offset = raw?.kind === 'secOffset' ? raw.offset : die.udata(DW_AT.stmt_list);
      if (offset === undefined || programs.has(offset)) continue;
      const program = readLineProgram(section, offset, { ...o, addressSize: u.header.addressSize });
      programs.set(offset, { program, compDir: die.string(DW_AT.comp_dir) });
    } catch (e) {
      dwarf.warnings.error(e, SECTION);
    }
  }
  if (programs.size === 0) return new LineTable(readLinePrograms(dwarf.sections, dwarf.warnings));
  const byProgram = new Map([...programs.values()].map((p) => [p.program, p.compDir]));
  return new LineTable([...byProgram.keys()], (p) => byProgram.get(p));
}
