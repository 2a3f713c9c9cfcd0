import { DW_AT, DW_ATE, DW_FORM, DW_TAG } from '../src/index.js';
import type { Dwarf } from '../src/index.js';
import { sizeOf, typeName, TypeTable, type DwarfType } from '../src/index.js';
import { unitOffset } from '../src/index.js';
import { abbrevBytes, dwarfFrom, InfoBuilder, type AbbrevDecl } from './builder.js';

const A: AbbrevDecl[] = [
  { code: 1, tag: DW_TAG.compile_unit, children: true, attrs: [[DW_AT.name, DW_FORM.string]] },
  { code: 2, tag: DW_TAG.base_type, children: false, attrs: [[DW_AT.name, DW_FORM.string], [DW_AT.encoding, DW_FORM.data1], [DW_AT.byte_size, DW_FORM.data1]] },
  { code: 3, tag: DW_TAG.pointer_type, children: false, attrs: [[DW_AT.type, DW_FORM.ref4], [DW_AT.address_class, DW_FORM.data4]] },
  { code: 4, tag: DW_TAG.const_type, children: false, attrs: [[DW_AT.type, DW_FORM.ref4]] },
  { code: 5, tag: DW_TAG.array_type, children: true, attrs: [[DW_AT.type, DW_FORM.ref4]] },
  { code: 6, tag: DW_TAG.subrange_type, children: false, attrs: [[DW_AT.count, DW_FORM.data1]] },
  { code: 7, tag: DW_TAG.structure_type, children: true, attrs: [[DW_AT.name, DW_FORM.string], [DW_AT.byte_size, DW_FORM.data1]] },
  { code: 8, tag: DW_TAG.member, children: false, attrs: [[DW_AT.name, DW_FORM.string], [DW_AT.type, DW_FORM.ref4], [DW_AT.data_member_location, DW_FORM.block1]] },
  { code: 9, tag: DW_TAG.typedef, children: false, attrs: [[DW_AT.name, DW_FORM.string], [DW_AT.type, DW_FORM.ref4]] },
  { code: 10, tag: DW_TAG.member, children: false, attrs: [[DW_AT.name, DW_FORM.string], [DW_AT.type, DW_FORM.ref4], [DW_AT.data_member_location, DW_FORM.block1], [DW_AT.bit_size, DW_FORM.data1], [DW_AT.bit_offset, DW_FORM.udata]] },
  { code: 11, tag: DW_TAG.subroutine_type, children: true, attrs: [[DW_AT.type, DW_FORM.ref4]] },
  { code: 12, tag: DW_TAG.formal_parameter, children: false, attrs: [[DW_AT.type, DW_FORM.ref4]] },
  { code: 13, tag: DW_TAG.pointer_type, children: false, attrs: [[DW_AT.type, DW_FORM.ref4]] },
  { code: 14, tag: DW_TAG.enumeration_type, children: true, attrs: [[DW_AT.name, DW_FORM.string], [DW_AT.byte_size, DW_FORM.data1]] },
  { code: 15, tag: DW_TAG.enumerator, children: false, attrs: [[DW_AT.name, DW_FORM.string], [DW_AT.const_value, DW_FORM.sdata]] },
  { code: 16, tag: DW_TAG.union_type, children: true, attrs: [[DW_AT.name, DW_FORM.string], [DW_AT.byte_size, DW_FORM.data1]] },
];

interface Built {
  dwarf: Dwarf;
  table: TypeTable;
  t: (off: number) => DwarfType;
  at: Record<string, number>;
}

function build(): Built {
  const b = new InfoBuilder();
  const at: Record<string, number> = {};
  const refs: [number, string][] = [];
  const ref = (name: string): void => {
    refs.push([b.ref4(), name]);
  };
  b.push(1).str('t.cu');
  at['int'] = b.offset; b.push(2).str('int').push(DW_ATE.signed, 4);
  at['float'] = b.offset; b.push(2).str('float').push(DW_ATE.float, 4);
  at['int*'] = b.offset; b.push(3); ref('int'); b.u32(12);
  at['cfloat'] = b.offset; b.push(4); ref('float');
  at['cfloat*'] = b.offset; b.push(3); ref('cfloat'); b.u32(12);
  at['f16x16'] = b.offset; b.push(5); ref('float'); b.push(6, 16, 6, 16, 0);
  at['int4'] = b.offset; b.push(5); ref('int'); b.push(6, 4, 0);
  at['int(*)[4]'] = b.offset; b.push(13); ref('int4');
  at['Pair'] = b.offset; b.push(7).str('Pair').push(8);
  b.push(8).str('a'); ref('int'); b.push(2, 0x23, 0);
  b.push(8).str('b'); ref('float'); b.push(2, 0x23, 4);
  b.push(0);
  at['Node'] = b.offset; b.push(7).str('Node').push(16);
  b.push(8).str('next'); ref('Node*'); b.push(2, 0x23, 0);
  b.push(10).str('flags'); ref('int'); b.push(2, 0x23, 8, 3, 29); // 3 bits at the LSB end
  b.push(0);
  at['Node*'] = b.offset; b.push(13); ref('Node');
  at['myint'] = b.offset; b.push(9).str('myint'); ref('int');
  at['fn'] = b.offset; b.push(11); ref('int'); b.push(12); ref('float'); b.push(12); ref('int*'); b.push(0);
  at['fnptr'] = b.offset; b.push(13); ref('fn');
  at['Color'] = b.offset; b.push(14).str('Color').push(4);
  b.push(15).str('RED').push(0); b.push(15).str('BLUE').push(0x7f); b.push(0);
  at['U'] = b.offset; b.push(16).str('U').push(4);
  b.push(8).str('i'); ref('int'); b.push(2, 0x23, 0); b.push(0);
  // cycles: a pointer to itself, two typedefs naming each other
  at['selfptr'] = b.offset; b.push(13); ref('selfptr');
  at['loopA'] = b.offset; b.push(9).str('A'); ref('loopB');
  at['loopB'] = b.offset; b.push(9).str('B'); ref('loopA');
  at['const*const'] = b.offset; b.push(4); ref('int*');
  b.push(0);
  for (const [pos, name] of refs) b.patch(pos, at[name]!);
  const dwarf = dwarfFrom({ '.debug_info': b.unit(), '.debug_abbrev': abbrevBytes(A) });
  const table = new TypeTable(dwarf);
  const unit = dwarf.units()[0]!;
  return { dwarf, table, at, t: (off) => table.typeOf(unit.dieAt(unitOffset(off))!) };
}

describe('type model and names', () => {
  const { dwarf, t, at } = build();
  it('names types like gdb', () => {
    expect(typeName(t(at['int']!))).toBe('int');
    expect(typeName(t(at['int*']!))).toBe('int *');
    expect(typeName(t(at['cfloat*']!))).toBe('const float *');
    expect(typeName(t(at['f16x16']!))).toBe('float [16][16]');
    expect(typeName(t(at['int(*)[4]']!))).toBe('int (*)[4]');
    expect(typeName(t(at['Pair']!))).toBe('struct Pair');
    expect(typeName(t(at['Node*']!))).toBe('struct Node *');
    expect(typeName(t(at['myint']!))).toBe('myint');
    expect(typeName(t(at['fnptr']!))).toBe('int (*)(float, int *)');
    expect(typeName(t(at['Color']!))).toBe('enum Color');
    expect(typeName(t(at['U']!))).toBe('union U');
    expect(typeName(t(at['const*const']!))).toBe('int * const');
  });
  it('names types like llvm-dwarfdump', () => {
    expect(typeName(t(at['f16x16']!), 'llvm')).toBe('float[16][16]');
    expect(typeName(t(at['Pair']!), 'llvm')).toBe('Pair');
    expect(typeName(t(at['const*const']!), 'llvm')).toBe('int *const');
  });
  it('computes sizes, member offsets, bit fields and address classes', () => {
    expect(sizeOf(t(at['f16x16']!))).toBe(1024);
    expect(sizeOf(t(at['int*']!))).toBe(8);
    const p = t(at['Pair']!);
    expect(p.kind === 'struct' ? p.members.map((m) => [m.name, m.offset]) : []).toEqual([['a', 0], ['b', 4]]);
    const n = t(at['Node']!);
    expect(n.kind === 'struct' ? n.members[1] : undefined).toMatchObject({ name: 'flags', offset: 8, bitSize: 3, bitOffset: 0 });
    // struct Node { Node *next; } refers back to the same object
    expect(n.kind === 'struct' && n.members[0]!.type.kind === 'pointer' ? n.members[0]!.type.target : undefined).toBe(n);
    const ptr = t(at['int*']!);
    expect(ptr.kind === 'pointer' ? ptr.addressClass : undefined).toBe(12);
    const e = t(at['Color']!);
    expect(e.kind === 'enum' ? e.enumerators.map((x) => `${x.name}=${x.value}`) : []).toEqual(['RED=0', 'BLUE=-1']);
  });
  it('breaks cyclic type references with a warning naming the offset', () => {
    expect(typeName(t(at['selfptr']!))).toBe('<cyclic type> *');
    expect(typeName(t(at['loopA']!))).toBe('A');
    const a = t(at['loopA']!);
    expect(a.kind === 'typedef' && a.target.kind === 'typedef' ? a.target.target.kind : undefined).toBe('unknown');
    expect(dwarf.warnings.list).toContain(`.debug_info at offset 0x${at['selfptr']!.toString(16).padStart(8, '0')}: cyclic type reference through 0x${at['selfptr']!.toString(16).padStart(8, '0')} (DW_TAG_pointer_type)`);
    expect(dwarf.warnings.list.some((w) => w.includes('cyclic type reference') && w.includes('DW_TAG_typedef'))).toBe(true);
  });
});
