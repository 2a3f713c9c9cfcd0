/**
 * Issue 12 audit: one small kernel per item whose result is a silent wrong value or a crash on
 * outside material. Expected values are derived by hand from the PTX ISA text (written next to
 * each case), never read back from the interpreter.
 */
import { parseLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/exec/machine.js';
import { checkRun } from '../../src/races/index.js';
import { HEAD, runModule } from './run-module.js';
import { loadPtx } from '../../src/ptx/index.js';

const REGS = '.reg .b32 %r<16>; .reg .b64 %rd<16>; .reg .b16 %h<16>; .reg .pred %p<8>; .reg .f32 %f<16>; .reg .f64 %fd<8>;';

/** A one-thread kernel: %rd9 is the output buffer (u32 words). */
function run(body: string, words = 4, decls = ''): number[] {
  const { out, res } = runModule(`${decls}.visible .entry k(.param .u64 out)\n{\n  ${REGS}\n  ld.param.u64 %rd9, [out];\n  cvta.to.global.u64 %rd9, %rd9;\n${body}\n  ret;\n}\n`, words);
  if (res.fault) throw new Error(res.fault.message);
  return out;
}

const f32bits = (x: number): number => new Uint32Array(Float32Array.of(x).buffer)[0]!;

test('sad.f32 / sad.f64: d = c + |a - b| in floating point (ISA 1.1 SAD)', () => {
  // f32: 0.25 + |1.5 - 4.0| = 2.75; f64: 0.5 + |-1 - 2| = 3.5 (hi word 0x400C0000, lo 0)
  const out = run(`
  mov.f32 %f1, 0f3FC00000; mov.f32 %f2, 0f40800000; mov.f32 %f3, 0f3E800000;
  sad.f32 %f4, %f1, %f2, %f3; st.global.f32 [%rd9], %f4;
  mov.f64 %fd1, 0dBFF0000000000000; mov.f64 %fd2, 0d4000000000000000; mov.f64 %fd3, 0d3FE0000000000000;
  sad.f64 %fd4, %fd1, %fd2, %fd3; st.global.f64 [%rd9+8], %fd4;`);
  expect(out).toEqual([f32bits(2.75), 0, 0, 0x400C0000]);
});

test('an entry with no final ret or exit: the exit is implied', () => {
  const { out, res } = runModule(`.visible .entry k(.param .u64 out)\n{\n  ${REGS}\n  ld.param.u64 %rd9, [out];\n  cvta.to.global.u64 %rd9, %rd9;\n  st.global.u32 [%rd9], 7;\n}\n`, 1);
  expect(res.fault).toBeUndefined();
  expect(out).toEqual([7]);
});

test('a .func with no final ret returns (the return is implied)', () => {
  const { out, res } = runModule(`.func (.param .b32 r) f(.param .b32 a)\n{\n  .reg .b32 %x;\n  ld.param.b32 %x, [a];\n  add.u32 %x, %x, 1;\n  st.param.b32 [r], %x;\n}\n.visible .entry k(.param .u64 out)\n{\n  ${REGS}\n  ld.param.u64 %rd9, [out];\n  cvta.to.global.u64 %rd9, %rd9;\n  {\n  .param .b32 p0; .param .b32 rv;\n  st.param.b32 [p0], 41;\n  call (rv), f, (p0);\n  ld.param.b32 %r1, [rv];\n  }\n  st.global.u32 [%rd9], %r1;\n  ret;\n}\n`, 1);
  expect(res.fault).toBeUndefined();
  expect(out).toEqual([42]);
});

test('prmt.b32 sign-replicate: selector nibble 0x8|i gives 0xFF or 0x00 by the msb of byte i', () => {
  // a = 0x80017F02, b = 0x00000000: bytes a0=02 a1=7F a2=01 a3=80.
  // selector 0xB980: nibble0=0 -> a0=0x02; nibble1=8 -> msb(a0)=0 -> 0x00; nibble2=9 -> msb(a1)=0 -> 0x00;
  // nibble3=0xB -> msb(a3)=1 -> 0xFF. d = 0xFF000002
  const out = run(`
  mov.u32 %r1, 0x80017F02; mov.u32 %r2, 0;
  prmt.b32 %r3, %r1, %r2, 0xB980; st.global.u32 [%rd9], %r3;`, 1);
  expect(out).toEqual([0xFF000002]);
});

test('vector function parameters: .param .v4 .f32 p read whole and as .param .v2 .u32', () => {
  // f(p) returns p.x + p.w = 1.5 + 4.0 = 5.5; the entry passes {1.5, 2, 3, 4}
  const { out, res } = runModule(`.func (.param .f32 r) f(.param .align 16 .v4 .f32 p)
{
  .reg .f32 %a<5>;
  ld.param.v4.f32 {%a1, %a2, %a3, %a4}, [p];
  add.f32 %a1, %a1, %a4;
  st.param.f32 [r], %a1;
  ret;
}
.visible .entry k(.param .u64 out)
{
  ${REGS}
  ld.param.u64 %rd9, [out];
  cvta.to.global.u64 %rd9, %rd9;
  {
  .param .align 16 .v4 .f32 p0; .param .f32 rv;
  st.param.v4.f32 [p0], {0f3FC00000, 0f40000000, 0f40400000, 0f40800000};
  call (rv), f, (p0);
  ld.param.f32 %f1, [rv];
  }
  st.global.f32 [%rd9], %f1;
  ret;
}
`, 1);
  expect(res.fault?.message).toBeUndefined();
  expect(out).toEqual([f32bits(5.5)]);
});

test('vector register parameters of a .func (.reg .v2 .u32 a): components a.x, a.y', () => {
  // g(a = {3, 10}) = a.x * a.y = 30
  const { out, res } = runModule(`.func (.reg .u32 r) g(.reg .v2 .u32 a)
{
  mul.lo.u32 r, a.x, a.y;
  ret;
}
.visible .entry k(.param .u64 out)
{
  ${REGS}
  .reg .v2 .u32 %v;
  ld.param.u64 %rd9, [out];
  cvta.to.global.u64 %rd9, %rd9;
  mov.u32 %v.x, 3; mov.u32 %v.y, 10;
  call (%r1), g, (%v);
  st.global.u32 [%rd9], %r1;
  ret;
}
`, 1);
  expect(res.fault?.message).toBeUndefined();
  expect(out).toEqual([30]);
});

describe('initializers', () => {
  test('.pred, .f16 and struct initializers', () => {
    // .const .u32 w[2] = {1, 2}: sanity; .f16 h = 1.5 -> 0x3E00; struct {s32 -1, f32 0.5} = 0xFFFFFFFF, 0x3F000000
    const out = run(`
  ld.const.u32 %r1, [w+4]; st.global.u32 [%rd9], %r1;
  ld.global.b16 %h1, [h]; cvt.u32.u16 %r2, %h1; st.global.u32 [%rd9+4], %r2;
  ld.global.u32 %r3, [s]; st.global.u32 [%rd9+8], %r3;
  ld.global.u32 %r4, [s+4]; st.global.u32 [%rd9+12], %r4;`, 4,
    '.const .align 4 .u32 w[2] = {1, 2};\n.global .align 2 .f16 h = 1.5;\n.struct two { .s32 a; .f32 b; };\n.global .align 4 two s = {-1, 0.5};\n');
    expect(out).toEqual([2, 0x3E00, 0xFFFFFFFF, 0x3F000000]);
  });
});

test('%reserved_smem_offset_*: a reserved region that does not overlap the kernel\'s shared variables', () => {
  // the kernel's own shared word at 0 holds 5; a write through the reserved region must not change it
  const out = run(`
  st.shared.u32 [sv], 5;
  mov.u32 %r1, %reserved_smem_offset_begin;
  mov.u32 %r2, %reserved_smem_offset_end;
  mov.u32 %r3, %reserved_smem_offset_1;
  st.shared.u32 [%r3], 99;
  ld.shared.u32 %r4, [sv]; st.global.u32 [%rd9], %r4;
  ld.shared.u32 %r5, [%r3]; st.global.u32 [%rd9+4], %r5;
  setp.gt.u32 %p1, %r2, %r1; selp.u32 %r6, 1, 0, %p1; st.global.u32 [%rd9+8], %r6;
  setp.ge.u32 %p2, %r1, 4; selp.u32 %r7, 1, 0, %p2; st.global.u32 [%rd9+12], %r7;`, 4, '.shared .align 4 .u32 sv;\n');
  expect(out).toEqual([5, 99, 1, 1]);
});

test('with a reserved region, the kernel\'s own shared accesses past its end are still out of bounds', () => {
  // sv is the kernel's only shared word (16 bytes with padding): [sv+16] is past its end, where the reserved region
  // used to start; a kernel that names %reserved_smem_offset_* must still get the fault there
  const { res } = runModule(`.shared .align 4 .u32 sv;\n.visible .entry k(.param .u64 out)\n{\n  ${REGS}\n  mov.u32 %r1, %reserved_smem_offset_1;\n  st.shared.u32 [%r1], 1;\n  st.shared.u32 [sv+16], 2;\n  ret;\n}\n`, 1);
  expect(res.fault?.kind).toBe('oob');
  expect(res.fault?.message).toContain('out-of-bounds shared write of 4 bytes');
  expect(res.fault?.ptx).toContain('[sv+16]');
});

describe('initializers of registers and vectors (ISA 1.1 5.3.5: all declarations, predicates included)', () => {
  test('.reg .pred and .reg .u32 initializers', () => {
    // q = 1 (true) -> selp gives 11; k = 7
    const out = run(`
  .reg .pred %q = 1;
  .reg .u32 %k = 7;
  selp.u32 %r1, 11, 22, %q; st.global.u32 [%rd9], %r1;
  st.global.u32 [%rd9+4], %k;`, 2);
    expect(out).toEqual([11, 7]);
  });
  test('.global .v3 .u8 rgb[3] = {{1,0,0},{0,1,0},{0,0,1}}: v3 of u8 padded to 4 bytes', () => {
    // v3 .u8 has size 4 (vectors are padded to a power of two): bytes 01 00 00 00 | 00 01 00 00 | 00 00 01 00
    const out = run(`
  ld.global.u32 %r1, [rgb]; st.global.u32 [%rd9], %r1;
  ld.global.u32 %r2, [rgb+4]; st.global.u32 [%rd9+4], %r2;
  ld.global.u32 %r3, [rgb+8]; st.global.u32 [%rd9+8], %r3;`, 3, '.global .align 4 .v3 .u8 rgb[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};\n');
    expect(out).toEqual([1, 0x100, 0x10000]);
  });
  test('.global .pred g = 1 (ISA 1.1 allows predicate variables with initializers): one byte holding 1', () => {
    const out = run(`
  ld.global.u8 %h1, [g]; cvt.u32.u16 %r1, %h1; st.global.u32 [%rd9], %r1;`, 1, '.global .pred g = 1;\n');
    expect(out).toEqual([1]);
  });
});

test('an initialized register starts at its value on every call (frames are reused); vector return registers', () => {
  // h(x) { acc = 100 initially; acc += x; return {acc, x} }: h(1) = {101, 1}, h(2) = {102, 2} (not 103)
  const { out, res } = runModule(`.func (.reg .v2 .u32 r) h(.reg .u32 x)
{
  .reg .u32 %acc = 100;
  add.u32 %acc, %acc, x;
  mov.u32 r.x, %acc;
  mov.u32 r.y, x;
  ret;
}
.visible .entry k(.param .u64 out)
{
  ${REGS}
  .reg .v2 .u32 %a, %b;
  ld.param.u64 %rd9, [out];
  cvta.to.global.u64 %rd9, %rd9;
  call (%a), h, (1);
  call (%b), h, (2);
  st.global.v2.u32 [%rd9], %a;
  st.global.v2.u32 [%rd9+8], %b;
  ret;
}
`, 4);
  expect(res.fault?.message).toBeUndefined();
  expect(out).toEqual([101, 1, 102, 2]);
});

test('the debugger at load reports what it cannot execute as located warnings (check reports them as errors)', async () => {
  const { openSession } = await import('../../src/engine/session.js');
  // the guarded redux.f32 is never reached by the 32 threads (tid <= 31), so the run succeeds
  const text = `${HEAD}.visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<4>; .reg .pred %p;\n  mov.u32 %r1, %tid.x;\n  setp.gt.u32 %p, %r1, 100;\n  @%p redux.sync.min.f32 %r2, %r1, 0xffffffff;\n  ret;\n}\n`;
  const s = openSession({ ptxPath: 'u.ptx', ptxText: text, block: '32' });
  expect(s.loadWarnings).toMatch(/^u\.ptx:9:\d+: warning: not supported by the interpreter: .*redux/m);
  expect(s.machine.fault).toBeUndefined();
});

describe('bar.sync and independent thread scheduling', () => {
  test('bar.sync waits for the non-exited threads only: threads that exit early are excused', () => {
    // 64 threads; t >= 40 store 5 and exit (warp 1 diverges: lanes 0-7 stay, 8-31 exit);
    // t < 40 store s[t] = t, bar.sync, then out[t] = s[39 - t] + 100 = 139 - t
    const { out, res } = runModule(`.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .pred %p; .reg .b64 %rd<4>;
  .shared .align 4 .u32 s[64];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  setp.ge.u32 %p, %r1, 40;
  @%p bra $OUT;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  sub.u32 %r5, 39, %r1;
  shl.b32 %r5, %r5, 2;
  add.u32 %r5, %r3, %r5;
  ld.shared.u32 %r6, [%r5];
  add.u32 %r6, %r6, 100;
  st.global.u32 [%rd3], %r6;
  ret;
$OUT:
  st.global.u32 [%rd3], 5;
  exit;
}
`, 64, 64);
    expect(res.fault?.message).toBeUndefined();
    expect(out).toEqual(Array.from({ length: 64 }, (_, t) => (t < 40 ? 139 - t : 5)));
  });

  const skip = (after: string): string => `.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .pred %p; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p, %r1, 16;
  @%p bra $SKIP;
  bar.sync 0;
$SKIP:
${after}
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
`;

  test('a barrier skipped by threads that then exit completes (they are excused, as in an early return)', () => {
    // lanes 16-31 of warp 0 and all of warp 1 jump over bar.sync (instruction 5) and exit: the
    // barrier waits for the 16 non-exited threads only, as sm_70+ do; every thread stores its tid
    const { out, res } = runModule(skip(''), 64, 64);
    expect(res.fault?.message).toBeUndefined();
    expect(out).toEqual(Array.from({ length: 64 }, (_, t) => t));
    const text = HEAD + skip('');
    const program = loadPtx(text, 'k.ptx').program!;
    const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [64, 1, 1], args: [{ name: 'out', type: 'u32', count: 64 }] }, program, '.');
    // the PTX bar.sync waits for non-exited threads: the shape of an early return, no error
    expect(checkRun(program, launch, DEFAULT_RUN_OPTIONS).report.barrierErrors).toEqual([]);
  });

  test('a barrier skipped by threads that stay alive: completed by arrivals at two places, races reports it, located', () => {
    // the skipping lanes reach a second bar.sync 0 (instruction 6): bar.sync counts threads,
    // not places, so 16 at the first + 48 at the second complete it (as sm_70+ hardware does);
    // then the 16 reach the second one alone, when the others have exited. The races command
    // reports the partial-warp arrival at the first one (lanes 16-31 were alive elsewhere).
    const text = HEAD + skip('  bar.sync 0;');
    const { out, res } = runModule(skip('  bar.sync 0;'), 64, 64);
    expect(res.fault?.message).toBeUndefined();
    expect(out).toEqual(Array.from({ length: 64 }, (_, t) => t));
    const program = loadPtx(text, 'k.ptx').program!;
    const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [64, 1, 1], args: [{ name: 'out', type: 'u32', count: 64 }] }, program, '.');
    const errs = checkRun(program, launch, DEFAULT_RUN_OPTIONS).report.barrierErrors;
    expect(errs.filter((e) => e.kind === 'divergence').map((e) => [e.pc, e.ptx])).toContainEqual([5, 'bar.sync 0;']);
  });

  test('a barrier skipped by threads that stay alive at another barrier is a deadlock, located', () => {
    // the skipping lanes wait at bar.sync 1 (instruction 6) for all 64 threads, the others at
    // bar.sync 0 (instruction 5): neither can complete
    const { res } = runModule(skip('  bar.sync 1;'), 64, 64);
    expect(res.fault?.kind).toBe('deadlock');
    expect(res.fault?.pc).toBe(6);
    expect(res.fault?.ptx).toBe('bar.sync 1;');
  });


});
