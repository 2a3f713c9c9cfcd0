/**
 * `.debug_line` programs against llvm-dwarfdump: the fixtures are the line tables gcc 12 wrote for
 * fixtures/lines.c at -gdwarf-3/-4/-5, linked into a shared object (fixtures/regen.sh), and the expected rows and file names are
 * read from `llvm-dwarfdump --debug-line` of the same objects, never from this decoder.
 * Hand-built programs cover what gcc does not emit (DWARF 2, MD5, strp, op_index, define_file)
 * and the header errors.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Dwarf, DwarfError, lineFilePath, LineTable, lineTableOf, readLineProgram, readLinePrograms, sectionFromBytes, Warnings, type LineRow,
} from '../src/index.js';
import { sleb, uleb } from './builder.js';

const FIX = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const section = (name: string, file: string) => sectionFromBytes(name, readFileSync(join(FIX, file)));

/** The rows of an llvm-dwarfdump --debug-line listing, in the decoder's terms. */
function dumpedRows(text: string): object[] {
  const rows: object[] = [];
  for (const m of text.matchAll(/^0x([0-9a-f]{16})\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)[ \t]*(.*)$/gm)) {
    const flags = m[7]!.trim().split(/\s+/).filter(Boolean);
    rows.push({
      address: BigInt('0x' + m[1]), line: Number(m[2]), column: Number(m[3]), file: Number(m[4]), isa: Number(m[5]),
      discriminator: Number(m[6]), isStmt: flags.includes('is_stmt'), endSequence: flags.includes('end_sequence'),
      prologueEnd: flags.includes('prologue_end'), epilogueBegin: flags.includes('epilogue_begin'), basicBlock: flags.includes('basic_block'),
    });
  }
  return rows;
}
const ours = (rows: readonly LineRow[]): object[] => rows.map((r) => ({
  address: r.address, line: r.line, column: r.column, file: r.file, isa: r.isa, discriminator: r.discriminator,
  isStmt: r.isStmt, endSequence: r.endSequence, prologueEnd: r.prologueEnd, epilogueBegin: r.epilogueBegin, basicBlock: r.basicBlock,
}));

describe('.debug_line from gcc, against llvm-dwarfdump', () => {
  for (const v of [3, 4, 5]) {
    it(`DWARF ${v}: every row and the header`, () => {
      const text = readFileSync(join(FIX, `lines.v${v}.dwarfdump.txt`), 'utf8');
      const lineStrings = v === 5 ? section('.debug_line_str', 'lines.v5.debug_line_str') : undefined;
      const p = readLineProgram(section('.debug_line', `lines.v${v}.debug_line`), 0, { lineStrings });
      const expected = dumpedRows(text);
      expect(expected).toHaveLength(25);
      expect(ours(p.rows)).toEqual(expected);
      const field = (name: string): number => Number(new RegExp(`^\\s*${name}: (\\S+)`, 'm').exec(text)![1]);
      expect(p.header).toMatchObject({
        version: field('version'), lineBase: field('line_base'), lineRange: field('line_range'),
        opcodeBase: field('opcode_base'), minimumInstructionLength: field('min_inst_length'),
      });
      const names = [...text.matchAll(/^\s+name: "([^"]+)"/gm)].map((m) => m[1]);
      expect(p.header.fileNames.map((f) => f.path)).toEqual(names);
      const dirs = [...text.matchAll(/^include_directories\[\s*\d+\] = "([^"]+)"/gm)].map((m) => m[1]);
      expect(p.header.includeDirectories).toEqual(dirs);
    });
  }

  it('answers address → file:line as addr2line reads the rows (DWARF 5)', () => {
    const sections = new Map([
      ['.debug_line', section('.debug_line', 'lines.v5.debug_line')],
      ['.debug_line_str', section('.debug_line_str', 'lines.v5.debug_line_str')],
    ]);
    const table = new LineTable(readLinePrograms(sections));
    const dir = /^include_directories\[\s*0\] = "([^"]+)"/m.exec(readFileSync(join(FIX, 'lines.v5.dwarfdump.txt'), 'utf8'))![1];
    // 0x1013 is the row "0x1013 12 24 file 1" (s += square(i) + twice(i): lines.c:12); 0x100e's last
    // row is "0x100e 5 14 file 1" (x * x in square, inlined); 0x1029 is the end of the sequence
    expect(table.find(0x1013n)).toEqual({ file: `${dir}/lines.c`, line: 12, column: 24 });
    expect(table.find(0x1010n)).toEqual({ file: `${dir}/lines.c`, line: 5, column: 14 });
    expect(table.find(0x1029n)).toBeUndefined();
    expect(table.find(0xfffn)).toBeUndefined();
  });

  it('lineTableOf: the unit\'s DW_AT_stmt_list program with its DW_AT_comp_dir (the same answers through .debug_info)', () => {
    const sections = new Map(['info', 'abbrev', 'str', 'line', 'line_str', 'loclists', 'rnglists']
      .map((n) => [`.debug_${n}`, section(`.debug_${n}`, `lines.v5.debug_${n}`)] as const));
    const dwarf = new Dwarf(sections);
    const dir = /^include_directories\[\s*0\] = "([^"]+)"/m.exec(readFileSync(join(FIX, 'lines.v5.dwarfdump.txt'), 'utf8'))![1];
    expect(lineTableOf(dwarf).find(0x1013n)).toEqual({ file: `${dir}/lines.c`, line: 12, column: 24 });
    expect(dwarf.warnings.list).toEqual([]);
  });
});

/** A line program from parts: header fields after header_length, then the opcodes. */
function program(version: number, header: number[], opcodes: number[], addressSize = 8): Uint8Array {
  const afterLength: number[] = [];
  const hl = header.length;
  const body = [...(version >= 5 ? [addressSize, 0] : []), hl & 0xff, (hl >> 8) & 0xff, 0, 0, ...header, ...opcodes];
  afterLength.push(version & 0xff, version >> 8, ...body);
  const len = afterLength.length;
  return Uint8Array.from([len & 0xff, (len >> 8) & 0xff, 0, 0, ...afterLength]);
}
const STD = [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1];
const cstr = (s: string): number[] => [...Buffer.from(s), 0];
const u64 = (v: number): number[] => Array.from({ length: 8 }, (_, i) => Number((BigInt(v) >> BigInt(8 * i)) & 0xffn));

describe('.debug_line by hand', () => {
  it('DWARF 2: special, standard and extended opcodes (computed from DWARF 5 §6.2.5)', () => {
    // min_inst 4, default_is_stmt 1, line_base -3, line_range 12, opcode_base 13
    const header = [4, 1, 0xfd, 12, 13, ...STD, ...cstr('inc'), 0, ...cstr('a.c'), 0, 0, 0, ...cstr('b.h'), 1, 0, 0, 0];
    const ops = [
      0, 9, 2, ...u64(0x1000), // set_address 0x1000
      0x05, 7, // set_column 7
      0x01, // copy: 0x1000 line 1
      // special opcode: adjusted = op - 13; address += 4 * floor(adj/12); line += -3 + adj%12
      13 + 2 * 12 + 5, // address +8, line +2 → 0x1008 line 3
      0x03, ...sleb(-2), 0x02, ...uleb(3), 0x01, // line 1, address +12 → 0x1014
      0x04, 2, 0x06, 0x08, 0x01, // file 2, not stmt, const_add_pc: +4*floor(242/12)=+80 → 0x1064
      0x09, 0x10, 0x00, 0x0a, 0x0b, 0x01, // fixed_advance_pc 16 (not scaled) → 0x1074, prologue_end, epilogue_begin
      0, 2, 4, 9, 0x0c, 1, 0x07, 0x01, // discriminator 9, isa 1, basic_block, copy
      0, 8, 3, ...cstr('c.c'), 0, 0, 0, // define_file c.c (file 3)
      0, 1, 1, // end_sequence at 0x1074
    ];
    const p = readLineProgram(sectionFromBytes('.debug_line', program(2, header, ops)));
    expect(p.rows.map((r) => [Number(r.address), r.line, r.column, r.file, r.isStmt])).toEqual([
      [0x1000, 1, 7, 1, true], [0x1008, 3, 7, 1, true], [0x1014, 1, 7, 1, true], [0x1064, 1, 7, 2, false],
      [0x1074, 1, 7, 2, false], [0x1074, 1, 7, 2, false], [0x1074, 1, 7, 2, false],
    ]);
    expect(p.rows[4]).toMatchObject({ prologueEnd: true, epilogueBegin: true, discriminator: 0 });
    expect(p.rows[5]).toMatchObject({ prologueEnd: false, discriminator: 9, isa: 1, basicBlock: true });
    expect(p.rows[6]).toMatchObject({ endSequence: true, discriminator: 0 });
    expect(p.header.fileNames.map((f) => f.path)).toEqual(['a.c', 'b.h', 'c.c']);
    expect(lineFilePath(p.header, 1, '/work')).toBe('/work/a.c');
    expect(lineFilePath(p.header, 2)).toBe('inc/b.h');
    expect(lineFilePath(p.header, 9)).toBeUndefined();
  });

  it('DWARF 5: strp, udata and data16 MD5 entry formats; VLIW op_index', () => {
    const str = sectionFromBytes('.debug_str', [...cstr('x'), ...cstr('/src')]);
    const md5 = Array.from({ length: 16 }, (_, i) => i + 1);
    const header = [
      1, 3, 1, 0xfb, 14, 13, ...STD, // min_inst 1, max_ops 3
      1, 1, 0x0e, 1, 2, 0, 0, 0, // directory format: (path, strp); 1 directory: offset 2 → "/src"
      3, 1, 0x08, 2, 0x0f, 5, 0x1e, 1, ...cstr('k.cu'), 0, ...md5, // file format: path string, dir udata, MD5 data16
    ];
    // advance_pc 4 operations with max_ops 3: address += 1 * floor(4/3), op_index = 1
    const ops = [0x02, 4, 0x01, 0, 1, 1];
    const p = readLineProgram(sectionFromBytes('.debug_line', program(5, header, ops)), 0, { strings: str });
    expect(p.header.includeDirectories).toEqual(['/src']);
    expect(p.header.fileNames).toEqual([{ path: 'k.cu', directoryIndex: 0, timestamp: 0n, size: 0n, md5: Uint8Array.from(md5) }]);
    expect(p.rows.map((r) => [Number(r.address), r.opIndex])).toEqual([[1, 1], [1, 1]]);
    expect(lineFilePath(p.header, 0)).toBe('/src/k.cu');
  });

  it('bad headers are DwarfErrors naming .debug_line and the offset; bad opcodes keep the rows before them', () => {
    const good = [1, 1, 0xfb, 14, 13, ...STD, 0, 0];
    const err = (bytes: Uint8Array, offset = 0): string => {
      try { readLineProgram(sectionFromBytes('.debug_line', bytes), offset); } catch (e) {
        expect(e).toBeInstanceOf(DwarfError);
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(err(program(7, good, []))).toBe('.debug_line at offset 0x00000004: unsupported DWARF version 7');
    const zeroRange = [1, 1, 0xfb, 0, 13, ...STD, 0, 0];
    expect(err(program(3, zeroRange, []))).toBe('.debug_line at offset 0x0000000d: bad line program header: line_range is 0');
    expect(err(Uint8Array.from([0x40, 0, 0, 0, 3, 0]))).toBe('.debug_line at offset 0x00000000: unit length 64 exceeds the 2 bytes left in the section');
    const bytes = program(3, good, []);
    bytes[6] = 0x7f; // header_length past the unit
    expect(err(bytes)).toMatch(/^\.debug_line at offset 0x00000006: bad line program header: header length 127 exceeds/);
    expect(err(program(5, [1, 1, 1, 0xfb, 14, 13, ...STD, 1, 1, 0x25, 1, 0], [], 8))).toBe('.debug_line at offset 0x00000022: unknown DW_FORM 0x25');
    expect(err(program(5, [1, 1, 1, 0xfb, 14, 13, ...STD, 1, 1, 0x1f, 1, 0, 0, 0, 0, 0], []))).toBe('.debug_line at offset 0x00000022: section .debug_line_str is missing');
    expect(err(new Uint8Array(0))).toMatch(/^\.debug_line at offset 0x00000000: unexpected end of data/);

    const w = new Warnings();
    const cut = program(3, good, [0x01, 0x02]); // advance_pc without its operand
    const p = readLineProgram(sectionFromBytes('.debug_line', cut), 0, { warnings: w });
    expect(p.rows).toHaveLength(1);
    expect(w.list).toEqual([`.debug_line at offset 0x${(cut.length).toString(16).padStart(8, '0')}: unexpected end of data (needed 1 byte, 0 left)`]);
    const all = new Warnings();
    expect(readLinePrograms(new Map([['.debug_line', sectionFromBytes('.debug_line', [...program(3, good, [0x01]), 9, 9])]]), all)).toHaveLength(1);
    expect(all.list).toEqual(['.debug_line at offset 0x0000001e: unexpected end of data (needed 4 bytes, 2 left)']);
  });
});
