/**
 * The parser reads plain body statements and `.section` lines straight from the text
 * (fast-statement.ts, scanSectionData) and leaves everything else to the token parser. Each case
 * writes the same statement twice, once plainly and once with a block comment inside (which only
 * the token parser reads), and expects the same node; spans are checked against the text.
 */
import type { Instruction, Operand, Section, Statement } from '../../src/ptx/ast.js';
import { parsePtx } from '../../src/ptx/parser.js';

function body(src: string): { stmts: readonly Statement[]; text: string; errors: string[] } {
  const text = `.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n${src}\n}\n`;
  const r = parsePtx(text, 'k.ptx');
  const fn = r.module.items.find((i) => i.kind === 'function');
  return { stmts: fn?.kind === 'function' ? fn.body ?? [] : [], text, errors: r.diagnostics.map((d) => d.message) };
}

/** An operand as plain data, with its span as the text it covers. */
function shape(o: Operand, text: string): unknown {
  const at = text.slice(o.span.start, o.span.end);
  switch (o.kind) {
    case 'reg': return ['reg', o.name, at];
    case 'sym': return ['sym', o.name, o.addend, at];
    case 'int': return ['int', o.value, at];
    case 'addr': return ['addr', o.base && shape(o.base, text), o.offset, at];
    default: return [o.kind, at];
  }
}

function instr(s: Statement | undefined, text: string): unknown {
  const i = s as Instruction;
  return { opcode: i.opcode, mods: i.mods, guard: i.guard && [i.guard.reg, i.guard.negate], operands: i.operands.map((o) => shape(o, text)), op: text.slice(i.opSpan.start, i.opSpan.end) };
}

describe('plain statements read from the text are the nodes the token parser builds', () => {
  test.each([
    ['ld.global.u32 %r1, [%rd2+8];', 'ld.global.u32 /**/ %r1, [%rd2+8];'],
    ['@!%p1 bra $L__BB0_3;', '@!%p1 bra /**/ $L__BB0_3;'],
    ['st.local.u64 [%SP-16], 0x7f;', 'st.local.u64 [%SP-16], /**/ 0x7f;'],
    ['mov.u32 %r3, -42;', 'mov.u32 %r3, /**/ -42;'],
    ['ret;', 'ret /**/ ;'],
  ])('%s', (plain, commented) => {
    const { stmts, text, errors } = body(`.reg .b32 %r<4>;\n.reg .b64 %rd<3>;\n.reg .pred %p<2>;\n${plain}\n${commented}`);
    expect(errors).toEqual([]);
    const [a, b] = stmts.filter((s) => s.kind === 'instr');
    expect(instr(a, text)).toEqual(instr(b, text));
  });

  test('the values and spans of a plain instruction are those written', () => {
    const { stmts, text } = body('\tst.local.u64 \t[%SP-16], 0x7f;');
    const i = stmts[0] as Instruction;
    expect(text.slice(i.span.start, i.span.end)).toBe('st.local.u64 \t[%SP-16], 0x7f;');
    expect(instr(i, text)).toEqual({
      opcode: 'st', mods: ['local', 'u64'], guard: undefined, op: 'st.local.u64',
      operands: [['addr', ['reg', '%SP', '%SP'], -16n, '[%SP-16]'], ['int', 127n, '0x7f']],
    });
  });

  test('labels, .loc and declarations', () => {
    const { stmts, text, errors } = body('$L__tmp1:\n.loc 1 20 5\n.reg .b32 %r<3>;\n.local .align 8 .b8 __local_depot0[16];');
    expect(errors).toEqual([]);
    expect(stmts.map((s) => [s.kind, text.slice(s.span.start, s.span.end)])).toEqual([
      ['label', '$L__tmp1'], ['loc', '.loc 1 20 5'], ['var', '.reg .b32 %r<3>'], ['var', '.local .align 8 .b8 __local_depot0[16]'],
    ]);
    expect(stmts[1]).toMatchObject({ file: 1, line: 20, column: 5 });
    expect(stmts[2]).toMatchObject({ space: 'reg', type: 'b32', rangeCount: 3, dims: [] });
    expect(stmts[3]).toMatchObject({ space: 'local', type: 'b8', align: 8, dims: [16] });
  });

  test('a .loc whose attributes start on the next line keeps them', () => {
    const { stmts, errors } = body('.loc 1 20 5\n, function_name $L__info_string0\nret;');
    expect(errors).toEqual([]);
    expect(stmts[0]).toMatchObject({ kind: 'loc', line: 20, functionName: '$L__info_string0' });
  });

  test('a body without its closing brace ends at its last statement', () => {
    const text = '.version 8.0\n.target sm_80\n.address_size 64\n.func f()\n{\nret;\n.visible .entry k()\n{\nret;\n}\n';
    const r = parsePtx(text, 'k.ptx');
    const f = r.module.items.find((i) => i.kind === 'function' && i.name === 'f')!;
    expect(text.slice(f.span.start, f.span.end)).toBe('.func f()\n{\nret;');
    expect(r.diagnostics.map((d) => d.message)).toEqual(["missing '}' before this directive"]);
  });
});

describe('.section symbol lines', () => {
  const sec = (lines: string): { data: unknown[]; errors: string[] } => {
    const text = `.version 8.0\n.target sm_80\n.address_size 64\n.section .debug_info\n{\n${lines}\n}\n`;
    const r = parsePtx(text, 'k.ptx');
    const s = r.module.items.find((i): i is Section => i.kind === 'section')!;
    return { data: s.data.map((d) => (d.kind === 'sym' ? [d.width, d.name, d.addend, text.slice(d.span.start, d.span.end)] : [d.width, d.value])), errors: r.diagnostics.map((d) => d.message) };
  };

  test('a symbol, with and without an addend', () => {
    expect(sec('.b64 $L__tmp1\n.b32 .debug_abbrev+4\n.b8 7')).toEqual({
      data: [[8, '$L__tmp1', 0n, '$L__tmp1'], [4, '.debug_abbrev', 4n, '.debug_abbrev+4'], [1, 7n]], errors: [],
    });
  });

  test('an addend on the next line belongs to the symbol', () => {
    expect(sec('.b64 $L__tmp1\n+ 8\n.b8 7').data).toEqual([[8, '$L__tmp1', 8n, '$L__tmp1\n+ 8'], [1, 7n]]);
  });
});
