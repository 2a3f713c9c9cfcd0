import { DW_FORM } from '../src/index.js';
import { fixedFormSize, readForm, skipForm, type Encoding } from '../src/index.js';
import { DwarfError, Reader, sectionFromBytes } from '../src/index.js';
import { ptxRegisterName, ptxRegisterValue } from '../src/index.js';
import { sleb, uleb } from './builder.js';

const rd = (bytes: number[], name = '.debug_info'): Reader => new Reader(sectionFromBytes(name, bytes));
const enc2: Encoding = { version: 2, format: 4, addressSize: 8 };
const enc5: Encoding = { version: 5, format: 4, addressSize: 8 };

describe('LEB128', () => {
  it('decodes the DWARF spec examples', () => {
    expect(rd([2]).uleb()).toBe(2n);
    expect(rd([127]).uleb()).toBe(127n);
    expect(rd([0x80, 1]).uleb()).toBe(128n);
    expect(rd([0x81, 1]).uleb()).toBe(129n);
    expect(rd([0x82, 1]).uleb()).toBe(130n);
    expect(rd([0xb9, 0x64]).uleb()).toBe(12857n);
    expect(rd([2]).sleb()).toBe(2n);
    expect(rd([0x7e]).sleb()).toBe(-2n);
    expect(rd([0xff, 0]).sleb()).toBe(127n);
    expect(rd([0x81, 0x7f]).sleb()).toBe(-127n);
    expect(rd([0x80, 1]).sleb()).toBe(128n);
    expect(rd([0x80, 0x7f]).sleb()).toBe(-128n);
  });
  it('round-trips 64-bit values and the PTX register operand of the guide', () => {
    for (const v of [0n, 1n, 0x257231n, 0xffffffffn, (1n << 63n) + 5n, (1n << 64n) - 1n]) expect(rd(uleb(v)).uleb()).toBe(v);
    for (const v of [0n, -1n, -104n, 63n, -64n, 64n, -(1n << 63n), (1n << 63n) - 1n]) expect(rd(sleb(v)).sleb()).toBe(v);
    // .b8 144, 177, 228, 149, 1 in the interop guide: DW_OP_regx 0x257231 = %r1
    const r = rd([144, 177, 228, 149, 1]);
    expect(r.u8()).toBe(0x90);
    const v = r.uleb();
    expect(v).toBe(0x257231n);
    expect(ptxRegisterName(v)).toBe('%r1');
    expect(ptxRegisterName(0x2572643132n)).toBe('%rd12');
    expect(ptxRegisterValue('%fd1')).toBe(0x25666431n);
    expect(ptxRegisterName(5n)).toBeUndefined();
  });
  it('reports overflow and truncation with section and offset', () => {
    const r = rd([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f]);
    expect(() => r.uleb()).toThrow(DwarfError);
    const t = rd([1, 0x80, 0x80], '.debug_loc');
    t.u8();
    try {
      t.uleb();
      throw new Error('no error');
    } catch (e) {
      expect(e).toBeInstanceOf(DwarfError);
      expect((e as DwarfError).message).toBe('.debug_loc at offset 0x00000003: unexpected end of data (needed 1 byte, 0 left)');
    }
  });
});

describe('Reader', () => {
  it('reads little-endian values and splits into views', () => {
    const r = rd([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0x41, 0x42, 0]);
    expect(r.u16()).toBe(0x0201);
    const sub = r.split(4);
    expect(r.offset).toBe(6);
    expect(sub.offset).toBe(2);
    expect(sub.u32()).toBe(0x06050403);
    expect(() => sub.u8()).toThrow(DwarfError);
    expect(r.u32()).toBe(0x0a090807);
    expect(r.cstring()).toBe('AB');
    expect(r.atEnd).toBe(true);
  });
  it('reads 64-bit DWARF initial lengths', () => {
    const r = rd([0xff, 0xff, 0xff, 0xff, 0x10, 0, 0, 0, 0, 0, 0, 0]);
    expect(r.initialLength()).toEqual({ length: 16, format: 8 });
    expect(rd([0x10, 0, 0, 0]).initialLength()).toEqual({ length: 16, format: 4 });
  });
});

describe('forms', () => {
  const spec = (form: number): { name: number; form: number; implicitConst: bigint | undefined } => ({ name: 3, form, implicitConst: undefined });
  it('decodes every form nvcc uses', () => {
    expect(readForm(rd([0x2a]), spec(DW_FORM.data1), enc2)).toMatchObject({ kind: 'data', size: 1, value: 42n });
    expect(readForm(rd([0x34, 0x12]), spec(DW_FORM.data2), enc2)).toMatchObject({ kind: 'data', size: 2, value: 0x1234n });
    expect(readForm(rd([1, 0, 0, 0]), spec(DW_FORM.data4), enc2)).toMatchObject({ kind: 'data', value: 1n });
    expect(readForm(rd([0x7f]), spec(DW_FORM.sdata), enc2)).toEqual({ kind: 'sdata', value: -1n });
    expect(readForm(rd([0x80, 1]), spec(DW_FORM.udata), enc2)).toEqual({ kind: 'udata', value: 128n });
    expect(readForm(rd([0x69, 0]), spec(DW_FORM.string), enc2)).toEqual({ kind: 'string', value: 'i' });
    expect(readForm(rd([0xe8, 0, 0, 0]), spec(DW_FORM.ref4), enc2)).toEqual({ kind: 'ref', offset: 0xe8 });
    expect(readForm(rd([1]), spec(DW_FORM.flag), enc2)).toEqual({ kind: 'flag', value: true });
    expect(readForm(rd([8, 0, 0, 0, 0, 0, 0, 1]), spec(DW_FORM.addr), enc2)).toMatchObject({ kind: 'addr', value: (1n << 56n) + 8n });
    const b = readForm(rd([2, 0x9c, 0x96]), spec(DW_FORM.block1), enc2);
    expect(b.kind).toBe('block');
    if (b.kind === 'block') expect([...b.bytes]).toEqual([0x9c, 0x96]);
  });
  it('decodes the rest of the standard set', () => {
    expect(readForm(rd([]), spec(DW_FORM.flag_present), enc5)).toEqual({ kind: 'flag', value: true });
    expect(readForm(rd([5, 0, 0, 0]), spec(DW_FORM.strp), enc5)).toEqual({ kind: 'strp', section: '.debug_str', offset: 5 });
    expect(readForm(rd([1, 2, 3]), spec(DW_FORM.strx3), enc5)).toEqual({ kind: 'strx', index: 0x030201 });
    expect(readForm(rd([2, 0x30, 0x31]), spec(DW_FORM.exprloc), enc5)).toMatchObject({ kind: 'exprloc' });
    expect(readForm(rd([]), { name: 3, form: DW_FORM.implicit_const, implicitConst: -7n }, enc5)).toEqual({ kind: 'implicitConst', value: -7n });
    expect(readForm(rd([DW_FORM.data1, 9]), spec(DW_FORM.indirect), enc5)).toMatchObject({ kind: 'data', value: 9n });
    expect(readForm(rd([4, 0, 0, 0, 0, 0, 0, 0]), spec(DW_FORM.ref_addr), enc2)).toEqual({ kind: 'refAddr', offset: 4 });
    expect(readForm(rd([4, 0, 0, 0]), spec(DW_FORM.ref_addr), enc5)).toEqual({ kind: 'refAddr', offset: 4 });
    expect(readForm(rd(new Array<number>(16).fill(1)), spec(DW_FORM.data16), enc5).kind).toBe('data16');
  });
  it('skips fixed-size forms by size and variable ones by content', () => {
    expect(fixedFormSize(DW_FORM.ref4, enc2)).toBe(4);
    expect(fixedFormSize(DW_FORM.addr, enc2)).toBe(8);
    expect(fixedFormSize(DW_FORM.ref_addr, enc2)).toBe(8);
    expect(fixedFormSize(DW_FORM.ref_addr, enc5)).toBe(4);
    expect(fixedFormSize(DW_FORM.string, enc2)).toBeUndefined();
    const r = rd([3, 1, 2, 3, 0x41, 0, 0x80, 1, 9]);
    skipForm(r, DW_FORM.block1, enc2);
    skipForm(r, DW_FORM.string, enc2);
    skipForm(r, DW_FORM.udata, enc2);
    expect(r.u8()).toBe(9);
  });
  it('rejects unknown forms with a DwarfError naming the form', () => {
    expect(() => readForm(rd([0]), spec(0x7e), enc2)).toThrow('.debug_info at offset 0x00000000: unknown DW_FORM 0x7e');
    expect(() => skipForm(rd([0]), 0x7e, enc2)).toThrow(DwarfError);
  });
});
