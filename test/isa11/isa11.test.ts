/**
 * PTX ISA 1.1 forms, as the seed ISA 1.1 document writes them: `.entry name[NTID.1][NTID.0]`
 * (the CTA shape, used as the default block), entry parameters declared as `.param` in the body,
 * `%tid.0`-style components, index-less `.file name` / `.loc line`, and div.wide/rem.wide
 * (documented as unimplemented) rejected with a located message.
 */
import { defaultLaunch, parseLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';

function load(src: string) {
  const l = loadPtx(src, 'isa11.ptx');
  if (!l.program) throw new Error(l.diagnostics.map((d) => d.message).join('\n'));
  return l.program;
}

// The %tid example of the ISA 1.1 document ("r0 = unified tid for 2D CTA") inside the
// document's `.entry filter[16][16] { code; }` 2D-CTA example; each thread stores r0 at out[r0].
const FILTER = `.version 1.1
.target sm_10
.file "filter.cu"
.entry filter[16][16]
{
  .param .u64 out;
  .reg .b16 r0, h1, h2;
  .reg .u32 w;
  .reg .u64 a, o;
  .loc 7
  mov.b16 r0,%tid.0; mov.b16 h1,%tid.1; mov.u16 h2,%ntid.0; mad.lo.u16 r0,h1,h2,r0;
  .loc 8
  cvt.u32.u16 w, r0;
  mul.wide.u32 o, w, 4;
  ld.param.u64 a, [out];
  add.u64 a, a, o;
  st.global.u32 [a], w;
  exit;
}
`;

test('.entry name[16][16] is a 16x16 default block and %tid.0/%tid.1 give the unified tid', () => {
  const program = load(FILTER);
  const fn = program.functions.get('filter')!;
  // the body's .param is the kernel's only parameter
  expect(fn.params.map((p) => p.decl.name)).toEqual(['out']);
  const launch = defaultLaunch(program);
  expect(launch.block).toEqual([16, 16, 1]);
  const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  expect(m.run().ok).toBe(true);
  const base = m.buffers[0]!.alloc.base;
  const out = new Uint32Array(m.arena.bank.u8.slice(base, base + 4 * 256).buffer);
  // thread (x, y) stores y*16 + x at that index: every slot i holds i
  expect(Array.from(out)).toEqual(Array.from({ length: 256 }, (_, i) => i));
});

test('index-less .file and .loc map instructions to the named file and line', () => {
  const l = loadPtx(FILTER, 'isa11.ptx');
  expect(l.diagnostics).toEqual([]);
  const files = l.module.items.filter((i) => i.kind === 'file');
  expect(files.map((f) => f.kind === 'file' && [f.index, f.path])).toEqual([[1, 'filter.cu']]);
  // the first four instructions follow `.loc 7`, the rest `.loc 8`, all in file 1 (filter.cu)
  const fn = l.program!.functions.get('filter')!;
  expect(Array.from(fn.locFile)).toEqual(Array(fn.instrs.length).fill(1));
  expect(Array.from(fn.locLine)).toEqual([7, 7, 7, 7, ...Array(fn.instrs.length - 4).fill(8)]);
  expect(l.program!.files.get(1)).toBe('filter.cu');
});

test('a .file inside an entry body is accepted and the .loc after it refers to it', () => {
  const src = FILTER.replace('.file "filter.cu"\n', '').replace('  .loc 7\n', '  .file "in.cu"\n  .loc 7\n');
  const l = loadPtx(src, 'isa11.ptx');
  expect(l.diagnostics).toEqual([]);
  const files = l.module.items.filter((i) => i.kind === 'file');
  expect(files.map((f) => f.kind === 'file' && [f.index, f.path])).toEqual([[1, 'in.cu']]);
});

test('div.wide and rem.wide (documented as unimplemented) are located errors', () => {
  const src = `.version 1.1
.target sm_10
.entry k
{
  .reg .s64 a;
  .reg .s32 b, d;
  div.wide.s32 d,a,b;
  rem.wide.s32 d,a,b;
  exit;
}
`;
  const l = loadPtx(src, 'w.ptx');
  expect(l.program).toBeUndefined();
  const errs = l.diagnostics.map((d) => d.message);
  expect(errs).toHaveLength(2);
  // in the words of the ISA 1.1 release notes of div and rem
  expect(errs[0]).toContain("'div.wide' is unimplemented: \"div.wide and div.{u64,s64} are unimplemented\" (PTX ISA 1.1, div release notes)");
  expect(errs[1]).toContain("'rem.wide' is unimplemented: \"rem.wide and rem.{u64,s64} are unimplemented\"");
  // located at the opcodes, lines 7 and 8
  expect(l.diagnostics.map((d) => src.slice(0, d.span.start).split('\n').length)).toEqual([7, 8]);
  // the same notes make div/rem on 64-bit types unimplemented in an ISA 1.x module, not in 2.0+
  const d64 = (v: string): string[] => loadPtx(src.replace('1.1', v).replace('div.wide.s32 d,a,b;\n  rem.wide.s32 d,a,b;', 'div.s64 a,a,a;\n  rem.u64 a,a,a;').replace('sm_10', v === '1.1' ? 'sm_10' : 'sm_20'), 'd.ptx').diagnostics.map((x) => x.message);
  expect(d64('1.1')).toEqual([expect.stringContaining("'div.s64' is unimplemented"), expect.stringContaining("'rem.u64' is unimplemented")]);
  expect(d64('2.0')).toEqual([]);
});

test('module-scope .reg, .const[0] and % in a constant expression run as ISA 1.1 describes', () => {
  const program = load(`.version 1.1
.target sm_10
.reg .u32 gr;
.const[0] .u32 c0 = 5;
.entry k
{
  .param .u64 out;
  .reg .u32 r1, r2;
  .reg .u64 a;
  ld.const.u32 r1, [c0];
  mov.u32 gr, 17 % 5;
  add.u32 r2, r1, gr;
  ld.param.u64 a, [out];
  st.global.u32 [a], r2;
  exit;
}
`);
  const launch = { ...defaultLaunch(program), block: [1, 1, 1] as [number, number, number] };
  const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  expect(m.run().ok).toBe(true);
  const base = m.buffers[0]!.alloc.base;
  // c0 (5) + 17 mod 5 (2)
  expect(new Uint32Array(m.arena.bank.u8.slice(base, base + 4).buffer)[0]).toBe(7);
});

test('a constant bank other than 0 is a located error, not a crash', () => {
  const src = `.version 1.1
.target sm_10
.const[1] .u32 c1;
.entry k
{
  exit;
}
`;
  const l = loadPtx(src, 'b.ptx');
  expect(l.program).toBeUndefined();
  const lines = l.diagnostics.map((d) => [src.slice(0, d.span.start).split('\n').length, d.message]);
  expect(lines[0]![0]).toBe(3);
  expect(lines[0]![1]).toContain('only .const[0] exists');
});

test('array[imm], array[reg] and array[reg+imm] name elements, scaled by the element size as ptxas does', () => {
  // ptxas 13 assembles `ld.global.u32 r, a[3]` as [a+12] and `a[%r]` with an LEA shifting %r by 2
  // (compared in the cubin's code); as an address (mov) a[i] is the element's address
  const out = run1x(`.version 1.1
.target sm_10
.global .u32 a[8] = {10, 11, 12, 13, 14, 15, 16, 17};
.global .v2 .u16 h[4] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};
.entry k
{
  .param .u32 out;
  .reg .u32 r1, r2, r3, r4, r5, r6, r9, o, q;
  .reg .u16 e;
  .reg .s32 n;
  cvt.u32.u16 r9, %tid.x;
  ld.global.u32 r1, a[3];
  mov.u32 q, a[2];
  ld.global.u32 r2, [q];
  ld.global.u32 r3, a[r9];
  ld.global.u32 r4, a[r9+1];
  mov.u32 q, a[r9+2];
  ld.global.u32 r5, [q];
  st.global.u32 a[r9+4], r1;
  ld.global.u32 r6, a[r9+4];
  ld.global.u16 e, h[r9+1];
  mov.s32 n, -1;
  ld.global.u32 r9, a[n+3];
  ld.param.u32 o, [out];
  cvt.u32.u16 q, %tid.x;
  mul.lo.u32 q, q, 32;
  add.u32 o, o, q;
  st.global.u32 [o], r1;
  st.global.u32 [o+4], r2;
  st.global.u32 [o+8], r3;
  st.global.u32 [o+12], r4;
  st.global.u32 [o+16], r5;
  st.global.u32 [o+20], r6;
  cvt.u32.u16 r1, e;
  st.global.u32 [o+24], r1;
  st.global.u32 [o+28], r9;
  exit;
}
`, 2, 16);
  // thread t: a[3] = 13, *(&a[2]) = 12, a[t] = 10+t, a[t+1] = 11+t, *(&a[t+2]) = 12+t, a[t+4] after
  // storing 13 there; h[t+1].x (4-byte elements) = 3 / 5; a[-1+3] through a signed index = 12
  expect(out).toEqual([13, 12, 10, 11, 12, 13, 3, 12, 13, 12, 11, 12, 13, 13, 5, 12]);
});

test('struct member operands [p.x] address the field; vector components .0/.1 are .x/.y', () => {
  // the ISA 1.1 struct example: `.struct somestruct { .s32 i; .s32 j; .f32 x; .f32 y; };`
  // fields follow one another, so p.x is at byte 8 and p.y at byte 12
  const program = load(`.version 1.1
.target sm_10
.struct somestruct { .s32 i; .s32 j; .f32 x; .f32 y; };
.global somestruct p;
.entry k
{
  .param .u64 out;
  .reg .v2 .f32 v;
  .reg .f32 r0;
  .reg .u64 a;
  mov.f32 r0, 1.5;
  st.global.f32 [p.x], r0;
  mov.f32 r0, 2.25;
  st.global.f32 [p.y], r0;
  ld.f32 v.0, [p.x];
  ld.global.f32 v.1, [p.y];
  add.f32 r0, v.x, v.1;
  ld.param.u64 a, [out];
  st.global.f32 [a], r0;
  ld.global.f32 r0, [p+8];
  st.global.f32 [a+4], r0;
  ld.global.f32 r0, [p+12];
  st.global.f32 [a+8], r0;
  exit;
}
`);
  const launch = { ...defaultLaunch(program), block: [1, 1, 1] as [number, number, number] };
  const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  expect(m.run().ok).toBe(true);
  const base = m.buffers[0]!.alloc.base;
  // 1.5 + 2.25, then the fields read back through p+8 and p+12
  expect(Array.from(new Float32Array(m.arena.bank.u8.slice(base, base + 12).buffer))).toEqual([3.75, 1.5, 2.25]);
});

test('without .address_size an ISA 1.x module is 32-bit: .u32 pointers work end to end', () => {
  // the ISA 1.1 statement example: thread id shifted by 2 bits indexes an array of words
  const src = `.version 1.1
.target sm_10
.global .u32 table[4];
.entry k
{
  .param .u32 out;
  .reg .u32 r1, r2, a, t, v;
  mov.u32 r1, %tid.0;
  shl.b32 r2, r1, 2;
  mov.u32 t, table;
  add.u32 t, t, r2;
  add.u32 v, r1, 10;
  st.global.u32 [t], v;
  ld.u32 v, [t];
  ld.param.u32 a, [out];
  add.u32 a, a, r2;
  st.u32 [a], v;
  exit;
}
`;
  const l = loadPtx(src, 'a32.ptx');
  expect(l.module.addressSize).toBe(32);
  const program = l.program!;
  const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [4, 1, 1], args: [{ name: 'out', type: 'u32', count: 4 }] }, program, '.', 'L');
  const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  expect(m.run().ok).toBe(true);
  const base = m.buffers[0]!.alloc.base;
  // each thread stored tid+10 through a 32-bit global address and read it back generically
  expect(Array.from(new Uint32Array(m.arena.bank.u8.slice(base, base + 16).buffer))).toEqual([10, 11, 12, 13]);
  // an explicit .address_size 64 (PTX 2.3+) keeps 64-bit pointers
  expect(loadPtx('.version 2.3\n.target sm_20\n.address_size 64\n', 'x.ptx').module.addressSize).toBe(64);
  expect(loadPtx('.version 8.0\n.target sm_80\n', 'x.ptx').module.addressSize).toBe(64);
});

/** Runs entry `k` of an ISA 1.x module on `threads` threads with one u32[n] buffer `out`; returns it. */
function run1x(src: string, threads: number, n: number): number[] {
  const program = load(src);
  const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [threads, 1, 1], args: [{ name: 'out', type: 'u32', count: n }] }, program, '.', 'L');
  const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  const r = m.run();
  expect(r.fault).toBeUndefined();
  const base = m.buffers[0]!.alloc.base;
  return Array.from(new Uint32Array(m.arena.bank.u8.slice(base, base + 4 * n).buffer));
}

test('a module-scope .reg is one register every function of a thread sees, across call and return', () => {
  // the kernel sets g, init() (ISA 1.1's `call init;`) reads and changes it, the kernel reads it back
  const out = run1x(`.version 1.1
.target sm_10
.reg .u32 g;
.func init
{
  .reg .u32 t;
  mul.lo.u32 t, g, 10;
  add.u32 g, t, 1;
  ret;
}
.entry k
{
  .param .u32 out;
  .reg .u32 a, o;
  cvt.u32.u16 g, %tid.x;
  call init;
  ld.param.u32 a, [out];
  cvt.u32.u16 o, %tid.x;
  shl.b32 o, o, 2;
  add.u32 a, a, o;
  st.global.u32 [a], g;
  exit;
}
`, 4, 4);
  // g = tid, then tid * 10 + 1 in init
  expect(out).toEqual([1, 11, 21, 31]);
});

test('an immediate absolute address in a space (st.shared.s32 [100], r7) is that byte of the space', () => {
  // the ISA 1.1 st example `st.shared.s32 [100],r7;` and ld example `ld.local.b64 x,[240];`, with no
  // variable declared: the kernel's shared memory covers byte 100..103
  const out = run1x(`.version 1.1
.target sm_10
.entry k
{
  .param .u32 out;
  .reg .s32 r7, r8;
  .reg .b64 x;
  .reg .u32 a, o;
  .reg .pred p;
  cvt.s32.u16 r7, %tid.x;
  add.s32 r7, r7, 40;
  cvt.u32.u16 o, %tid.x;
  setp.eq.u32 p, o, 1;
  @p st.shared.s32 [100], r7;
  bar.sync 0;
  ld.shared.s32 r8, [100];
  cvt.s64.s32 x, r8;
  st.local.b64 [240], x;
  ld.local.b64 x, [240];
  cvt.u32.u64 r8, x;
  ld.param.u32 a, [out];
  shl.b32 o, o, 2;
  add.u32 a, a, o;
  st.global.u32 [a], r8;
  exit;
}
`, 2, 2);
  // thread 1 stored 41 at shared byte 100; both read it back through local byte 240
  expect(out).toEqual([41, 41]);
});

test('vector arithmetic and swizzles are refused in the ISA 1.1 words (10.5.3); mov of a whole vector moves its components', () => {
  const body = (line: string, version = '1.1'): string[] => loadPtx(`.version ${version}
.target ${version === '1.1' ? 'sm_10' : 'sm_80'}
.entry k
{
  .reg .v4 .u32 V1, V2, V3;
  .reg .v3 .f32 W;
  .reg .f32 a, b, c;
  ${line}
  exit;
}
`, 'v.ptx').diagnostics.map((d) => d.message);
  const WORDS = '"Vector operands are not generally supported. The LD, ST, and TEX instructions do support limited use of vector operands written using the tuple notation." (PTX ISA 1.1, 10.5.3)';
  // the ISA 1.1 6.4.3 examples
  expect(body('add.v4.s32 V3, V2, V1;')).toEqual([`vector arithmetic ('add.v4.s32') is unimplemented: ${WORDS}`]);
  expect(body('mov.v4.u32 V2, V1.wzyx;')).toEqual([expect.stringContaining(`swizzle 'V1.wzyx' is unimplemented: ${WORDS}`)]);
  // ptxas 13: "Vector qualifier is not allowed for instruction 'add'"
  expect(body('add.v4.u32 V3, V2, V1;', '7.0')).toEqual([expect.stringContaining("'add' takes no vector modifier")]);
  const out = run1x(`.version 1.1
.target sm_10
.entry k
{
  .param .u32 out;
  .reg .v3 .f32 W;
  .reg .f32 a, b, c;
  .reg .u32 o;
  mov.f32 W.x, 1.5; mov.f32 W.y, 2.5; mov.f32 W.z, 3.5;
  mov.v3.f32 {a,b,c}, W;
  ld.param.u32 o, [out];
  st.global.v2.f32 [o], {c, a};
  st.global.f32 [o+8], b;
  exit;
}
`, 1, 3);
  expect(out.map((x) => new Float32Array(new Uint32Array([x]).buffer)[0])).toEqual([3.5, 1.5, 2.5]);
});

test('slct on an sm_1x target flushes a subnormal .f32 c (so a is selected) and an .f32 result, as .ftz does later', () => {
  // ISA 1.1 slct: "if operand c is a denorm, it is flushed to zero, resulting in selection of
  // operand a"; "For .f32 data selections, denorm results are flushed to zero". c = -2^-149
  const kernel = (version: string, target: string, ftz: string): string => `.version ${version}
.target ${target}
.entry k
{
  .param .u32 out;
  .reg .u32 x, o;
  .reg .f32 c, s, y;
  mov.b32 c, 0x80000001;
  slct${ftz}.u32.f32 x, 7, 9, c;
  mov.b32 s, 0x00000003;
  slct${ftz}.f32.f32 y, s, 1.0, c;
  ld.param.u32 o, [out];
  st.global.u32 [o], x;
  st.global.f32 [o+4], y;
  exit;
}
`;
  // sm_10: a selected (7), and the selected subnormal 3 * 2^-149 flushed to +0
  expect(run1x(kernel('1.1', 'sm_10', ''), 1, 2)).toEqual([7, 0]);
  // sm_20 and later without .ftz: c < 0 selects b (9, 1.0); with .ftz a, the subnormal result kept
  expect(run1x(kernel('2.0', 'sm_20', ''), 1, 2)).toEqual([9, 0x3f800000]);
  expect(run1x(kernel('2.0', 'sm_20', '.ftz'), 1, 2)).toEqual([7, 3]);
});

test('the ISA 1.1 tex form with the texture and coordinates as separate operands reads the texel', () => {
  // `tex.1d.v4.s32.f32 {r1,r2,r3,r4},tex_a,{f1};` (the 1.1 TEX example); unnormalized point sampling
  // at x = 2.5 reads texel 2 (floor), its four int channels
  const program = load(`.version 1.1
.target sm_10
.tex .u32 tex_a;
.entry k
{
  .param .u32 out;
  .reg .s32 r1, r2, r3, r4;
  .reg .f32 f1;
  .reg .u32 o;
  mov.f32 f1, 2.5;
  tex.1d.v4.s32.f32 {r1,r2,r3,r4},tex_a,{f1};
  ld.param.u32 o, [out];
  st.global.v4.s32 [o], {r1,r2,r3,r4};
  exit;
}
`);
  const launch = parseLaunch({
    kernel: 'k', grid: [1, 1, 1], block: [1, 1, 1], args: [{ name: 'out', type: 's32', count: 4 }],
    textures: { tex_a: { type: 'texture', format: 'int4', extent: [4], value: [0, 1, 2, 3, 10, 11, 12, 13, 20, -21, 22, 23, 30, 31, 32, 33] } },
  }, program, '.', 'L');
  const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  expect(m.run().fault).toBeUndefined();
  const base = m.buffers[0]!.alloc.base;
  expect(Array.from(new Int32Array(m.arena.bank.u8.slice(base, base + 16).buffer))).toEqual([20, -21, 22, 23]);
});

test('.address_size 32: vprintf, a 32-bit argument buffer and generic pointers to local and shared memory', () => {
  // the interop guide's vprintf(fmt, args) with 32-bit pointers: args packed at their natural
  // alignment, so "%d %s %ld" reads an int at 0, a 4-byte char* at 4 and a 4-byte long at 8
  const program = load(`.version 4.0
.target sm_20
.address_size 32
.extern .func (.param .b32 func_retval0) vprintf (.param .b32 vprintf_param_0, .param .b32 vprintf_param_1);
.global .align 1 .b8 fmt[12] = {37, 100, 32, 37, 115, 32, 37, 108, 100, 124, 10, 0};
.global .align 1 .b8 word[3] = {104, 105, 0};
.shared .align 4 .u32 sh;
.visible .entry k(.param .u32 out)
{
  .local .align 8 .b8 depot[12];
  .reg .b32 %r<16>;
  .reg .pred %p<3>;
  mov.u32 %r1, depot;
  cvta.local.u32 %r2, %r1;
  mov.u32 %r3, %tid.x;
  st.u32 [%r2], %r3;
  mov.u32 %r4, word;
  cvta.global.u32 %r4, %r4;
  st.u32 [%r2+4], %r4;
  mov.u32 %r5, 70000;
  st.u32 [%r2+8], %r5;
  mov.u32 %r6, fmt;
  cvta.global.u32 %r6, %r6;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r6;
  .param .b32 param1;
  st.param.b32 [param1+0], %r2;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  }
  mov.u32 %r7, sh;
  cvta.shared.u32 %r8, %r7;
  add.u32 %r9, %r3, 5;
  st.u32 [%r8], %r9;
  ld.shared.u32 %r10, [sh];
  isspacep.shared %p1, %r8;
  isspacep.local %p2, %r2;
  selp.u32 %r11, 1, 0, %p1;
  selp.u32 %r12, 1, 0, %p2;
  cvta.to.shared.u32 %r13, %r8;
  ld.param.u32 %r14, [out];
  st.global.v4.u32 [%r14], {%r10, %r11, %r12, %r13};
  ret;
}
`);
  const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [1, 1, 1], args: [{ name: 'out', type: 'u32', count: 4 }] }, program, '.', 'L');
  const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  const r = m.run();
  expect(r.fault).toBeUndefined();
  expect(r.stdout).toBe('0 hi 70000|\n');
  const base = m.buffers[0]!.alloc.base;
  // the generic store reached sh (0 + 5); isspacep sees both windows; cvta.to.shared gives back sh's offset 0
  expect(Array.from(new Uint32Array(m.arena.bank.u8.slice(base, base + 16).buffer))).toEqual([5, 1, 1, 0]);
});

test('a load or store with no state space on a variable uses the variable\'s space (ISA 1.x has no generic addressing)', () => {
  const out = run1x(`.version 1.1
.target sm_10
.const .u32 c = 30;
.shared .u32 s;
.entry k
{
  .param .u32 out;
  .local .u32 l;
  .reg .u32 a, b, o;
  ld.u32 a, [c];
  add.u32 b, a, 4;
  st.u32 [s], b;
  ld.u32 b, [s];
  add.u32 b, b, 5;
  st.u32 [l], b;
  ld.u32 b, [l];
  ld.param.u32 o, [out];
  st.global.u32 [o], a;
  st.global.u32 [o+4], b;
  exit;
}
`, 1, 2);
  // c = 30 from the constant bank; 30 + 4 through shared s; + 5 through local l
  expect(out).toEqual([30, 39]);
});
