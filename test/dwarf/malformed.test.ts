import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { parsePtx } from '../../src/ptx/parser.js';
import { DW_AT, DW_FORM, DW_TAG } from '../../dwarf/src/index.js';
import { dumpDebugInfo } from '../../dwarf/src/index.js';
import { Dwarf } from '../../dwarf/src/index.js';
import { sectionFromBytes, type SectionData } from '../../dwarf/src/index.js';
import { ScopeIndex } from '../../dwarf/src/index.js';
import { abbrevBytes, dwarfFrom, InfoBuilder } from '../../dwarf/test/builder.js';
import { ROOT, tempDir } from '../helpers.js';
import { dwarfFromModule, dwarfFromPtx } from '../../src/ptx/dwarf.js';
import { dwarfCommand } from '../../src/cli/dwarf.js';

const CONF = join(ROOT, 'test', 'fixtures');
const vecAdd = readFileSync(`${CONF}/vec_add/kernel.G.ptx`, 'utf8');
const localArrays = readFileSync(`${CONF}/local_arrays/kernel.G.ptx`, 'utf8');

/** Decode everything a client would touch; must never throw. */
function exercise(d: Dwarf): string {
  const text = dumpDebugInfo(d);
  const s = new ScopeIndex(d);
  for (const f of s.functions()) for (const r of f.ranges) for (const v of s.variablesAt(r.begin.address)) s.evaluateVariable(v);
  d.pubnames();
  d.aranges();
  return text;
}

function sectionsOf(src: string): Map<string, SectionData> {
  const d = dwarfFromModule(parsePtx(src).module);
  return new Map(d.sections);
}

describe('malformed DWARF', () => {
  it('survives every truncation of .debug_info and .debug_abbrev, naming section and offset', () => {
    const base = sectionsOf(vecAdd);
    const info = base.get('.debug_info')!;
    const abbrev = base.get('.debug_abbrev')!;
    for (const [name, sec] of [['.debug_info', info], ['.debug_abbrev', abbrev]] as const) {
      for (let n = 0; n < sec.bytes.length; n += 3) {
        const m = new Map(base);
        m.set(name, { ...sec, bytes: sec.bytes.slice(0, n) });
        const d = new Dwarf(m, undefined);
        expect(() => exercise(d)).not.toThrow();
        if (n > 0) expect(d.warnings.list.length).toBeGreaterThan(0);
        for (const w of d.warnings.list) expect(w).toMatch(/^\.debug_\w+ at offset 0x[0-9a-f]{8}: /);
      }
    }
    const cut = new Map(base);
    cut.set('.debug_info', { ...info, bytes: info.bytes.slice(0, 100) });
    const d = new Dwarf(cut, undefined);
    exercise(d);
    expect(d.warnings.list).toContain('.debug_info at offset 0x00000000: unit length 274 exceeds the 96 bytes left in the section');
  });

  it('reports a truncated DIE inside a consistent unit and keeps the DIEs before it', () => {
    const b = new InfoBuilder();
    b.push(1).str('cu');
    b.push(2).str('in'); // DW_FORM_data4 missing after the name
    const info = b.unit();
    const d = dwarfFrom({
      '.debug_info': info,
      '.debug_abbrev': abbrevBytes([
        { code: 1, tag: DW_TAG.compile_unit, children: true, attrs: [[DW_AT.name, DW_FORM.string]] },
        { code: 2, tag: DW_TAG.variable, children: false, attrs: [[DW_AT.name, DW_FORM.string], [DW_AT.decl_line, DW_FORM.data4]] },
      ]),
    });
    const text = exercise(d);
    expect(text).toContain('DW_AT_name\t("cu")');
    expect(d.warnings.list).toEqual(['.debug_info at offset 0x00000013: unexpected end of data (needed 4 bytes, 0 left)']);
  });

  it('reports bad abbreviation codes, unknown forms and duplicate codes', () => {
    const abbrev = abbrevBytes([
      { code: 1, tag: DW_TAG.compile_unit, children: true, attrs: [[DW_AT.name, DW_FORM.string]] },
      { code: 2, tag: DW_TAG.variable, children: false, attrs: [[DW_AT.name, DW_FORM.string], [0x3fff, 0x7e]] },
      { code: 2, tag: DW_TAG.base_type, children: false, attrs: [] },
      { code: 3, tag: 0x77, children: false, attrs: [[0x1234, DW_FORM.data1]] },
    ]);
    const b = new InfoBuilder();
    b.push(1).str('cu');
    b.push(3, 9); // unknown tag and attribute: printed, not fatal
    b.push(0x55); // no such abbreviation
    const d = dwarfFrom({ '.debug_info': b.unit(), '.debug_abbrev': abbrev });
    const text = exercise(d);
    expect(text).toContain('unknown DW_TAG 0x77');
    expect(text).toContain('unknown DW_AT 0x1234\t(0x09)');
    expect(d.warnings.list).toContain('.debug_abbrev at offset 0x00000011: duplicate abbreviation code 2; keeping the first declaration');
    expect(d.warnings.list).toContain('.debug_info at offset 0x00000011: invalid abbreviation code 85');

    const b2 = new InfoBuilder();
    b2.push(1).str('cu');
    b2.push(2).str('x').push(1, 2, 3);
    const d2 = dwarfFrom({ '.debug_info': b2.unit(), '.debug_abbrev': abbrev });
    expect(() => exercise(d2)).not.toThrow();
    expect(d2.warnings.list).toContain('.debug_info at offset 0x00000012: unknown DW_FORM 0x7e');
  });

  it('reports bad relocations and bad list offsets in PTX sections', () => {
    const src = vecAdd.replace('.b64 $L__tmp0', '.b64 $L__nosuch');
    const d = dwarfFromPtx(src);
    exercise(d);
    expect(d.warnings.list).toEqual([
      `.debug_info at offset 0x000000c6: bad relocation '$L__nosuch': no label, variable, function or section of that name`,
    ]);
    const d2 = dwarfFromPtx(localArrays.replace(/\.b32 \.debug_loc\b/, '.b32 .debug_loc+9999'));
    exercise(d2);
    expect(d2.warnings.list).toEqual(['.debug_loc at offset 0x0000270f: unexpected end of data (needed 1 byte, 0 left)']);
  });

  it('handles unsupported versions, missing sections and cyclic types in a dump', () => {
    const b = new InfoBuilder();
    b.push(1).str('cu');
    const bad = b.unit(9);
    const d = dwarfFrom({ '.debug_info': bad, '.debug_abbrev': [0] });
    exercise(d);
    expect(d.warnings.list).toEqual(['.debug_info at offset 0x00000004: unsupported DWARF version 9']);

    const c = new InfoBuilder();
    c.push(1).str('cu');
    const p = c.offset;
    c.push(2);
    c.u32(p); // pointer to itself
    c.push(3).str('v');
    c.u32(p);
    c.push(0);
    const abbrev = abbrevBytes([
      { code: 1, tag: DW_TAG.compile_unit, children: true, attrs: [[DW_AT.name, DW_FORM.string]] },
      { code: 2, tag: DW_TAG.pointer_type, children: false, attrs: [[DW_AT.type, DW_FORM.ref4]] },
      { code: 3, tag: DW_TAG.variable, children: false, attrs: [[DW_AT.name, DW_FORM.string], [DW_AT.type, DW_FORM.ref4]] },
    ]);
    const d2 = dwarfFrom({ '.debug_info': c.unit(), '.debug_abbrev': abbrev });
    const text = exercise(d2);
    expect(text).toContain('DW_AT_type\t(0x0000000f "<cyclic type> *")');
    expect(d2.warnings.list).toEqual(['.debug_info at offset 0x0000000f: cyclic type reference through 0x0000000f (DW_TAG_pointer_type)']);

    const d3 = new Dwarf(new Map([['.debug_info', sectionFromBytes('.debug_info', c.unit())]]), undefined);
    exercise(d3);
    expect(d3.warnings.list[0]).toBe('.debug_abbrev at offset 0x00000000: section .debug_abbrev is missing');
  });

  it('dwarfCommand reports unreadable files and files without DWARF', () => {
    const r = dwarfCommand('/nonexistent/kernel.ptx');
    expect(r.text).toBe('');
    expect(r.warnings[0]).toMatch(/^\/nonexistent\/kernel\.ptx: cannot read/);
    const dir = tempDir('ptxdbg-dwarf-');
    const f = join(dir, 'k.ptx');
    writeFileSync(f, '.version 9.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n');
    expect(dwarfCommand(f)).toEqual({ text: `${f}: no .debug_info section (compile with nvcc -G)\n`, warnings: [] });
  });
});
