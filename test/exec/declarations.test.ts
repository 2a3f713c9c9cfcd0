/**
 * Declarations ptxas accepts that we refused, and ones it refuses that we accepted silently.
 */
import { parseLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { formatDiagnostics } from '../../src/ptx/diagnostics.js';
import { loadPtx } from '../../src/ptx/index.js';

const HEAD = '.version 8.0\n.target sm_80\n.address_size 64\n';

function errors(src: string): string[] {
  const r = loadPtx(HEAD + src, 'k.ptx');
  return formatDiagnostics('k.ptx', HEAD + src, r.diagnostics).split('\n').filter((l) => l.startsWith('k.ptx:')).map((l) => l.replace(/^k\.ptx:(\d+):\d+: error: /, '$1: '));
}

test('a .global variable declared in a function body lives for the whole launch; its name is the body\'s', () => {
  // counter starts at 5 (its initializer); each of 4 threads adds 1 atomically: 9 in the end.
  const src = `${HEAD}.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  .global .align 4 .u32 counter = 5;
  atom.global.add.u32 %r1, [counter], 1;
  bar.sync 0;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.volatile.global.u32 %r2, [counter];
  st.global.u32 [%rd1], %r2;
  ret;
}
`;
  const r = loadPtx(src, 'k.ptx');
  expect(r.diagnostics).toEqual([]);
  const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [4, 1, 1], args: [{ name: 'out', type: 'u32', count: 1 }] }, r.program!, '.');
  const m = new Machine(r.program!, launch, DEFAULT_RUN_OPTIONS);
  expect(m.run().fault).toBeUndefined();
  const base = m.buffers[0]!.alloc.base;
  expect(new Uint32Array(m.arena.bank.u8.slice(base, base + 4).buffer)[0]).toBe(9);
});

test('.shared and .local variables cannot have initializers (ptxas refuses them; we used to drop them)', () => {
  expect(errors('.shared .align 4 .u32 s = 3;\n')).toEqual(['4: .shared variables cannot have an initializer']);
  expect(errors('.visible .entry k()\n{\n  .shared .u32 t = 1;\n  .local .u32 l[2] = {1, 2};\n  ret;\n}\n')).toEqual([
    '6: .shared variables cannot have an initializer',
    '7: .local variables cannot have an initializer',
  ]);
});

test('shared memory is laid out per kernel: another kernel\'s arrays take no room', () => {
  // kA uses big[4100]; kB uses only v and the dynamic array. v is at 0 in kB's layout, and the
  // dynamic array follows kB's 16 static bytes (rounded to 16): 16. With one module-wide layout, v
  // would sit after big (at 4112) and dyn after both.
  const src = `${HEAD}.shared .align 1 .b8 big[4100];
.shared .align 16 .b32 v[4];
.extern .shared .align 16 .b8 dyn[];
.visible .entry kA()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, 1;
  st.shared.u8 [big+4099], %r1;
  ret;
}
.visible .entry kB(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  mov.u32 %r1, v;
  mov.u32 %r2, dyn;
  st.shared.v4.u32 [v], {%r1, %r1, %r1, %r1};
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  ret;
}
`;
  const r = loadPtx(src, 'k.ptx');
  expect(r.diagnostics).toEqual([]);
  const launch = parseLaunch({ kernel: 'kB', grid: [1, 1, 1], block: [1, 1, 1], sharedBytes: 32, args: [{ name: 'out', type: 'u32', count: 2 }] }, r.program!, '.');
  const m = new Machine(r.program!, launch, DEFAULT_RUN_OPTIONS);
  expect(m.run().fault).toBeUndefined();
  const base = m.buffers[0]!.alloc.base;
  expect([...new Uint32Array(m.arena.bank.u8.slice(base, base + 8).buffer)]).toEqual([0, 16]);
});

test('[temp+8]: a register named without % plus an offset is an address (ptxas accepts it)', () => {
  const src = `${HEAD}.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  .reg .b64 temp;
  .local .align 8 .b8 depot[16];
  mov.u64 temp, depot;
  mov.u32 %r1, 77;
  st.local.u32 [temp+8], %r1;
  ld.local.u32 %r2, [temp+8];
  ld.local.u32 %r3, [temp+4];
  add.u32 %r2, %r2, %r3;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  st.global.u32 [%rd1], %r2;
  ret;
}
`;
  const r = loadPtx(src, 'k.ptx');
  expect(r.diagnostics).toEqual([]);
  const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [1, 1, 1], args: [{ name: 'out', type: 'u32', count: 1 }] }, r.program!, '.');
  const m = new Machine(r.program!, launch, DEFAULT_RUN_OPTIONS);
  expect(m.run().fault).toBeUndefined();
  const base = m.buffers[0]!.alloc.base;
  // 77 stored at depot+8 and read back; depot+4 was never written (local memory starts zeroed here)
  expect(new Uint32Array(m.arena.bank.u8.slice(base, base + 4).buffer)[0]).toBe(77);
});

describe('initializers fill each element by its own type', () => {
  function globalsAfterRun(decls: string, loads: string, words: number): number[] {
    const src = `${HEAD}${decls}.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .b16 %h<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
${loads}
  ret;
}
`;
    const r = loadPtx(src, 'k.ptx');
    if (!r.program) throw new Error(formatDiagnostics('k.ptx', src, r.diagnostics));
    const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [1, 1, 1], args: [{ name: 'out', type: 'u32', count: words }] }, r.program, '.');
    const m = new Machine(r.program, launch, DEFAULT_RUN_OPTIONS);
    expect(m.run().fault).toBeUndefined();
    const base = m.buffers[0]!.alloc.base;
    return [...new Uint32Array(m.arena.bank.u8.slice(base, base + 4 * words).buffer)];
  }

  test('.f16 and .bf16 from float literals are their 16-bit encodings', () => {
    // f16: 1.0 = 0x3C00, -2.0 = 0xC000; bf16: 1.0 = 0x3F80, -2.0 = 0xC000 (element 0 in the low half)
    const out = globalsAfterRun('.global .align 4 .f16 h[2] = {1.0, -2.0};\n.global .align 4 .bf16 b[2] = {1.0, -2.0};\n',
      '  ld.global.u32 %r1, [h]; st.global.u32 [%rd1], %r1;\n  ld.global.u32 %r2, [b]; st.global.u32 [%rd1+4], %r2;', 2);
    expect(out).toEqual([0xC0003C00, 0xC0003F80]);
  });

  test('a struct initializer follows the fields (ISA 1.1 .struct, packed)', () => {
    // fields s32, f32, u16 at offsets 0, 4, 8: {7, 2.5, 65535}; 2.5f = 0x40200000
    const out = globalsAfterRun('.struct rec { .s32 a; .f32 b; .u16 c; };\n.global .align 4 rec r = {7, 2.5, 65535};\n',
      '  ld.global.u32 %r1, [r]; st.global.u32 [%rd1], %r1;\n  ld.global.u32 %r2, [r+4]; st.global.u32 [%rd1+4], %r2;\n  ld.global.u16 %h1, [r+8]; cvt.u32.u16 %r3, %h1; st.global.u32 [%rd1+8], %r3;', 3);
    expect(out).toEqual([7, 0x40200000, 65535]);
  });
});

test('an unsized .param .b8 args[] receives the bytes the caller passes (the variadic ABI)', () => {
  // sum3(n = 3, args = {10, 20, 30}) reads three words of args and returns 10 + 20 + 30 = 60;
  // the callee's local x (declared after) must not be overwritten by the 12 bytes of args.
  const src = `${HEAD}.func (.param .b32 r) sum3(.param .b32 n, .param .b8 args[])
{
  .reg .b32 %r<8>;
  .local .align 4 .b32 x;
  st.local.u32 [x], 5;
  ld.param.u32 %r1, [args];
  ld.param.u32 %r2, [args+4];
  ld.param.u32 %r3, [args+8];
  add.u32 %r4, %r1, %r2;
  add.u32 %r4, %r4, %r3;
  ld.local.u32 %r5, [x];
  mad.lo.u32 %r4, %r5, 1000, %r4;
  st.param.b32 [r], %r4;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  {
  .param .b32 p0;
  st.param.b32 [p0], 3;
  .param .align 4 .b8 p1[12];
  st.param.b32 [p1], 10;
  st.param.b32 [p1+4], 20;
  st.param.b32 [p1+8], 30;
  .param .b32 rv;
  call (rv), sum3, (p0, p1);
  ld.param.b32 %r1, [rv];
  }
  st.global.u32 [%rd1], %r1;
  ret;
}
`;
  const r = loadPtx(src, 'k.ptx');
  if (!r.program) throw new Error(formatDiagnostics('k.ptx', src, r.diagnostics));
  const launch = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [1, 1, 1], args: [{ name: 'out', type: 'u32', count: 1 }] }, r.program, '.');
  const m = new Machine(r.program, launch, DEFAULT_RUN_OPTIONS);
  expect(m.run().fault).toBeUndefined();
  const base = m.buffers[0]!.alloc.base;
  expect(new Uint32Array(m.arena.bank.u8.slice(base, base + 4).buffer)[0]).toBe(5 * 1000 + 60);
});
