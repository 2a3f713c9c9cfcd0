import { readFileSync } from 'node:fs';
import { parsePtx } from '../../src/ptx/parser.js';
import { assembleSections, splitDefaultAddress, SymbolTable, type SymbolResolver } from '../../src/ptx/dwarf-sections.js';
import { Warnings } from '../../dwarf/src/index.js';
import { ROOT } from '../helpers.js';
import { join } from 'node:path';
import { dwarfFromPtx } from '../../src/ptx/dwarf.js';
import { dwarfCommand } from '../../src/cli/dwarf.js';

const CONF = join(ROOT, 'test', 'fixtures');
const VEC = `${CONF}/vec_add/kernel.G.ptx`;

describe('section assembly', () => {
  const { module } = parsePtx(readFileSync(VEC, 'utf8'));

  it('counts only instructions when placing labels', () => {
    const t = new SymbolTable(module);
    // 4 ld.param before $L__tmp0; ret is the last of 28 instructions
    expect(t.labels.get('$L__func_begin0')).toEqual({ function: '_Z6vecAddPKfS0_Pfi', functionIndex: 0, instruction: 0 });
    expect(t.labels.get('$L__tmp0')?.instruction).toBe(4);
    expect(t.labels.get('$L__func_end0')?.instruction).toBe(t.functions.get('_Z6vecAddPKfS0_Pfi')!.instructionCount);
    expect(t.variables.get('_Z6vecAddPKfS0_Pfi_param_3')).toMatchObject({ space: 'param', function: '_Z6vecAddPKfS0_Pfi' });
    expect(t.files.get(1)).toBe('/src/vec_add/kernel.cu');
  });

  it('writes little-endian data and keeps relocations', () => {
    const { sections } = assembleSections(module);
    const info = sections.get('.debug_info')!;
    expect(Array.from(info.bytes.subarray(0, 6))).toEqual([18, 1, 0, 0, 2, 0]); // .b32 274, .b8 2, 0
    const relocs = [...info.relocations.values()];
    expect(relocs.map((r) => r.symbol).slice(0, 4)).toEqual(['.debug_abbrev', '.debug_line', '$L__func_begin0', '$L__func_end0']);
    expect(relocs[0]!.target).toEqual({ kind: 'section', section: '.debug_abbrev', sectionOffset: 0 });
    const end = relocs[3]!;
    expect(end.target).toMatchObject({ kind: 'label', instruction: 28 });
    expect(splitDefaultAddress(end.value)).toEqual({ functionIndex: 0, instruction: 28 });
  });

  it('uses the engine resolver for labels and variables', () => {
    const engine: SymbolResolver = {
      instructionAddress: (r) => BigInt(r.instruction * 16),
      variableAddress: (v) => (v.space === 'param' ? 0x160n : 0n),
    };
    const w = new Warnings();
    const { sections } = assembleSections(module, engine, w);
    const relocs = [...sections.get('.debug_info')!.relocations.values()];
    expect(relocs.find((r) => r.symbol === '$L__tmp0')!.value).toBe(64n);
    expect(relocs.find((r) => r.symbol === '_Z6vecAddPKfS0_Pfi_param_0')!.value).toBe(0x160n);
    expect(w.list).toEqual([]);
  });

  it('resolves section references with addends', () => {
    const src = readFileSync(`${CONF}/local_arrays/kernel.G.ptx`, 'utf8');
    const { sections } = assembleSections(parsePtx(src).module);
    const withAddend = [...sections.get('.debug_info')!.relocations.values()].filter((r) => r.symbol === '.debug_loc' && r.addend > 0n);
    expect(withAddend.length).toBeGreaterThan(0);
    for (const r of withAddend) expect(r.value).toBe(r.addend);
  });

  it('dumps like llvm-dwarfdump with names for registers and symbols', () => {
    const r = dwarfCommand(VEC);
    expect(r.warnings).toEqual([]);
    expect(r.text).toContain('0x00000000: Compile Unit: length = 0x00000112, format = DWARF32, version = 0x0002, abbr_offset = 0x0000, addr_size = 0x08 (next unit at 0x00000116)');
    expect(r.text).toContain('                DW_AT_low_pc\t(0x0000000000000000 "$L__func_begin0")');
    expect(r.text).toContain('                  DW_AT_location\t(DW_OP_addr _Z6vecAddPKfS0_Pfi_param_0)');
    expect(r.text).toContain('                  DW_AT_address_class\t(0x07 ADDR_param_space)');
    expect(r.text).toContain('                    DW_AT_location\t(DW_OP_regx %r1)');
    expect(r.text).toContain('                DW_AT_type\t(0x000000f7 "const float")');
    expect(r.text).toContain('0x00000115:   NULL');
    const d = dwarfFromPtx(readFileSync(VEC, 'utf8'));
    expect(d.units()[0]!.header).toMatchObject({ version: 2, addressSize: 8, format: 4, end: 0x116 });
  });
});
