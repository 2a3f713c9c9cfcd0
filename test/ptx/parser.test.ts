import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPtx } from '../../src/ptx/index.js';
import { formatDiagnostics } from '../../src/ptx/diagnostics.js';
import { parsePtx } from '../../src/ptx/parser.js';
import { CONFORMANCE, ptxFilesUnder, ROOT } from '../helpers.js';

const corpus = [
  ...ptxFilesUnder(CONFORMANCE),
  ...ptxFilesUnder(join(ROOT, 'samples')),
  ...ptxFilesUnder(join(ROOT, 'test', 'corpus')),
];

describe('real nvcc output', () => {
  test('the corpus is not empty', () => {
    expect(corpus.length).toBeGreaterThan(40);
  });
  test.each(corpus.map((f) => [f.slice(ROOT.length - 4), f]))('%s parses and resolves without diagnostics', (_n, file) => {
    const src = readFileSync(file, 'utf8');
    const r = loadPtx(src, file);
    expect(formatDiagnostics(file, src, r.diagnostics)).toBe('');
    expect(r.program).toBeDefined();
  });
});

describe('module model', () => {
  const src = `
.version 9.0
.target sm_80, debug
.address_size 64
.global .align 4 .b8 tbl[8] = {1, 2, 3, 4, 5, 6, 7, 8};
.global .align 8 .u64 ptrs[2] = {generic(tbl), generic(tbl)+4};
.const .align 4 .f32 k = 0f3F800000;
.extern .func (.param .b32 ret) vprintf (.param .b64 a, .param .b64 b);
.visible .entry kern(.param .u64 kern_param_0, .param .align 8 .b8 kern_param_1[24])
.maxntid 128, 1, 1
{
  .reg .pred %p<3>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  .loc 1 7 3
  mov.u32 %r1, %tid.x;
  @!%p1 bra $L__BB0_2;
  { .reg .pred p; setp.ne.u32 p, %r1, 0; @p add.u32 %r2, %r1, 1; }
  { .param .b64 param0; st.param.b64 [param0], %rd1;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param0);
    ld.param.b32 %r3, [retval0]; }
$L__BB0_2:
  ld.global.nc.v4.f32 {%r1, %r2, %r3, _}, [%rd1+-16];
  setp.lt.and.s32 %p1|%p2, %r1, -5, %p0;
  ret;
}
.file 1 "/src/x/kernel.cu"
.section .debug_abbrev { .b8 1, 17, 0 .b32 $L__BB0_2 .b64 .debug_abbrev+4 }
`;
  const { module, diagnostics } = parsePtx(src, 'm.ptx');
  test('no diagnostics', () => expect(diagnostics).toEqual([]));
  test('header fields', () => {
    expect(module.version).toBe('9.0');
    expect(module.target).toEqual(['sm_80', 'debug']);
    expect(module.addressSize).toBe(64);
  });
  test('entry with params and performance directives', () => {
    const fn = module.items.find((i) => i.kind === 'function' && i.isEntry);
    expect(fn?.kind).toBe('function');
    if (fn?.kind !== 'function') return;
    expect(fn.params.map((p) => [p.name, p.type, p.align ?? 0, p.dims])).toEqual([
      ['kern_param_0', 'u64', 0, []],
      ['kern_param_1', 'b8', 8, [24]],
    ]);
    expect(fn.perf.get('maxntid')).toEqual([128, 1, 1]);
  });
  test('initializers keep symbols and float bits', () => {
    const ptrs = module.items.find((i) => i.kind === 'var' && i.name === 'ptrs');
    expect(ptrs?.kind === 'var' && ptrs.init).toMatchObject({ kind: 'list', items: [{ kind: 'sym', name: 'tbl', generic: true, addend: 0n }, { kind: 'sym', addend: 4n }] });
    const k = module.items.find((i) => i.kind === 'var' && i.name === 'k');
    expect(k?.kind === 'var' && k.init).toMatchObject({ kind: 'float', f32Bits: 0x3f800000 });
  });
  test('sections mix numbers, labels and section references', () => {
    const s = module.items.find((i) => i.kind === 'section');
    expect(s?.kind === 'section' && s.data.map((d) => (d.kind === 'num' ? Number(d.value) : `${d.name}+${d.addend}`))).toEqual([1, 17, 0, '$L__BB0_2+0', '.debug_abbrev+4']);
  });
  test('resolution: labels, scoped registers, loc table', () => {
    const r = loadPtx(src, 'm.ptx');
    const fn = r.program!.functions.get('kern')!;
    const bra = fn.instrs.find((i) => i.opcode === 'bra')!;
    expect(bra.guard?.negate).toBe(true);
    expect(bra.operands[0]).toMatchObject({ kind: 'label', index: fn.labels.get('$L__BB0_2') });
    const ld = fn.instrs.find((i) => i.opcode === 'ld' && i.mods.includes('nc'))!;
    expect(ld.mods).toEqual(['global', 'nc', 'v4', 'f32']);
    expect(ld.operands[1]).toMatchObject({ kind: 'addr', offset: -16n });
    expect(fn.locLine[0]).toBe(7);
    expect(r.program!.files.get(1)).toBe('/src/x/kernel.cu');
  });
});

describe('diagnostics', () => {
  const bad = `.version 9.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<3>;
  mov.u32 %r1, 5;
  frobnicate.u32 %r1, %r2;
  add.u32.bogus %r1, %r1, 1;
  add.u32 %r1, %r9, 1;
  ret;
}
`;
  test('several located errors with a caret, no exception', () => {
    const r = loadPtx(bad, 'bad.ptx');
    const text = formatDiagnostics('bad.ptx', bad, r.diagnostics);
    expect(text).toContain("bad.ptx:8:3: error: unknown instruction 'frobnicate'");
    expect(text).toContain("bad.ptx:9:10: error: unknown modifier '.bogus' for 'add'");
    expect(text).toContain('  ^~~~~~~~~~');
    expect(r.program).toBeUndefined();
  });
  test('resolution errors are located too', () => {
    const src = bad.replace('  frobnicate.u32 %r1, %r2;\n', '').replace('  add.u32.bogus %r1, %r1, 1;\n', '');
    const r = loadPtx(src, 'bad.ptx');
    expect(formatDiagnostics('bad.ptx', src, r.diagnostics)).toContain("bad.ptx:8:16: error: undeclared register '%r9'");
  });
  test('a missing brace is reported at end of file', () => {
    const r = parsePtx('.version 9.0\n.target sm_80\n.entry k()\n{\n ret;\n', 'x.ptx');
    expect(r.diagnostics.map((d) => d.message)).toContain("unexpected end of file: missing '}'");
  });
});

describe('ISA 1.1 syntax from the seeds', () => {
  test('.entry with CTA dims, unprefixed registers, .struct, .byte sections', () => {
    const src = `.version 1.1
.target sm_10
.struct float4 { .f32[4] v };
.global float4 coord;
.entry cta_fft [256]
{
  .reg .u32 r0, r1;
  mov.u32 r0, %tid.x;
  add.u32 r1, r0, 1;
  exit;
}
.section .debug_info, "", @progbits
.byte 0x7d,0x01,0x00
`;
    const r = parsePtx(src, 'old.ptx');
    expect(r.diagnostics).toEqual([]);
    const fn = r.module.items.find((i) => i.kind === 'function');
    expect(fn?.kind === 'function' && fn.ctaDims).toEqual([256]);
  });
});

describe('.section data: every written form, one line per datum or several', () => {
  // lines nvcc writes (.b8 N), lists, hex, symbols, expressions, octal, 64-bit values past 2^53,
  // comments and `;` — the fast path takes the plain literal lines, the token parser the rest
  const text = `.version 8.0
.target sm_80
.address_size 64
.section .debug_info
{
.b32 74
.b8 2
.b8 0x1f, 200, 0
.b8 7; .b8 8
.b64 $L__tmp1
.b64 $L__tmp1+8
.b16 010
.b64 0xffffffffffffffff
.b32 18446744073709551615
.b8 3 // a comment
\t.b8\t4 , 5
lbl:
.b32 2+3
.b8 0x7
}
`;
  const { module, diagnostics } = parsePtx(text, 's.ptx');
  const s = module.items.find((i) => i.kind === 'section');
  test('values and widths', () => {
    expect(diagnostics).toEqual([]);
    expect(s?.kind === 'section' && s.data.map((d) => [d.width, d.kind === 'num' ? d.value : `${d.name}+${d.addend}`])).toEqual([
      [4, 74n], [1, 2n], [1, 0x1fn], [1, 200n], [1, 0n], [1, 7n], [1, 8n], [8, '$L__tmp1+0'], [8, '$L__tmp1+8'],
      [2, 8n], [8, 0xffffffffffffffffn], [4, 18446744073709551615n], [1, 3n], [1, 4n], [1, 5n], [4, 5n], [1, 7n],
    ]);
    expect(s?.kind === 'section' && s.labels.map((l) => [l.name, l.datum])).toEqual([['lbl', 15]]);
  });
  test('each datum keeps its source position', () => {
    const spans = s?.kind === 'section' ? s.data.map((d) => text.slice(d.span.start, d.span.end)) : [];
    expect(spans.slice(0, 5)).toEqual(['74', '2', '0x1f', '200', '0']);
    expect(spans[13]).toBe('4');
  });
});
