/**
 * ISA 1.1 5.3.5 Initializers on .shared and .local variables: "All declarations may specify an
 * initial value for the variable being declared", with the example
 * `.shared .f16 blur_kernel[][] = {{.05,.1,.05},{.1,.4,.1},{.05,.1,.05}};`, and "Initializers for
 * thread-private memory all initialize their variables to the same value". Later modules refuse
 * them, as ptxas does. Module-scope .local variables each have their own place in every thread.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { ROOT } from '../helpers.js';

/** Runs entry `k` on grid x block threads with one u32[n] buffer `out`; returns it. */
function run1x(src: string, grid: number, block: number, n: number): number[] {
  const l = loadPtx(src, 'init.ptx');
  if (!l.program) throw new Error(l.diagnostics.map((d) => d.message).join('\n'));
  const launch = parseLaunch({ kernel: 'k', grid: [grid, 1, 1], block: [block, 1, 1], args: [{ name: 'out', type: 'u32', count: n }] }, l.program, '.', 'L');
  const m = new Machine(l.program, launch, DEFAULT_RUN_OPTIONS);
  const r = m.run();
  expect(r.fault).toBeUndefined();
  const base = m.buffers[0]!.alloc.base;
  return Array.from(new Uint32Array(m.arena.bank.u8.slice(base, base + 4 * n).buffer));
}

test('the 5.3.5 .shared example holds its values when every CTA starts', () => {
  // thread t of CTA c stores blur_kernel's element t (a .f16 bit pattern) at out[c*9+t], then,
  // after a barrier, overwrites its element: the next CTA must still see the initial values
  const src = `.version 1.1
.target sm_10
.shared .f16 blur_kernel[][]
= {{.05,.1,.05},{.1,.4,.1},{.05,.1,.05}};
.entry k
{
  .param .u32 out;
  .reg .u32 t, c, i, a, v, p;
  .reg .b16 h;
  mov.u32 t, %tid.x;
  mov.u32 c, %ctaid.x;
  mad.lo.u32 i, c, 9, t;
  shl.b32 i, i, 2;
  shl.b32 t, t, 1;
  mov.u32 p, blur_kernel;
  add.u32 p, p, t;
  ld.shared.b16 h, [p];
  cvt.u32.u16 v, h;
  ld.param.u32 a, [out];
  add.u32 a, a, i;
  st.global.u32 [a], v;
  bar.sync 0;
  mov.b16 h, 0;
  st.shared.b16 [p], h;
  exit;
}
`;
  // binary16 by hand: 0.05 = 1.6 * 2^-5 -> exponent 10, fraction 0.6 * 1024 = 614.4 -> 614 (0x266):
  // 0x2A66; 0.1 = 1.6 * 2^-4 -> 0x2E66; 0.4 = 1.6 * 2^-2 -> 0x3666
  const a = 0x2a66, b = 0x2e66, c = 0x3666;
  const one = [a, b, a, b, c, b, a, b, a];
  expect(run1x(src, 3, 9, 27)).toEqual([...one, ...one, ...one]);
});

test('.local initializers give every thread the same value, each time the function is entered', () => {
  // ml (module scope) starts at 11 in every thread; kl (the kernel's) at 5; f's fl = {-3, 4}: f
  // reads fl[1], overwrites it, and stores what it read into ml; the second call reads 4 again
  const src = `.version 1.1
.target sm_10
.local .u32 ml = 11;
.local .u32 other = 7;
.func f
{
  .local .s32 fl[2] = {-3, 4};
  .reg .s32 t;
  ld.local.s32 t, [fl+4];
  st.local.s32 [fl+4], 99;
  st.local.u32 [ml], t;
}
.entry k
{
  .param .u32 out;
  .local .u32 kl = 5;
  .reg .u32 r, a, o;
  mov.u32 r, %tid.x;
  shl.b32 o, r, 4;
  ld.param.u32 a, [out];
  add.u32 a, a, o;
  ld.local.u32 r, [kl];
  st.global.u32 [a], r;
  ld.local.u32 r, [ml];
  st.global.u32 [a+4], r;
  call f;
  call f;
  ld.local.u32 r, [ml];
  st.global.u32 [a+8], r;
  ld.local.u32 r, [other];
  st.global.u32 [a+12], r;
  exit;
}
`;
  // the second call of f read fl[1] = 99 if its initializer were not applied again on entry
  expect(run1x(src, 1, 3, 12)).toEqual([5, 11, 4, 7, 5, 11, 4, 7, 5, 11, 4, 7]);
});

test('module-scope .local variables each have a place of their own in every thread', () => {
  // two module-scope .local words and a kernel .local: three distinct places (they all were byte 0)
  const src = `.version 1.1
.target sm_10
.local .u32 m1;
.local .u32 m2;
.entry k
{
  .param .u32 out;
  .local .u32 k1;
  .reg .u32 r, s, q, a, t;
  mov.u32 t, %tid.x;
  add.u32 q, t, 100;
  st.local.u32 [m1], 7;
  st.local.u32 [m2], 9;
  st.local.u32 [k1], q;
  ld.local.u32 r, [m1];
  ld.local.u32 s, [m2];
  ld.local.u32 q, [k1];
  shl.b32 t, t, 4;
  ld.param.u32 a, [out];
  add.u32 a, a, t;
  st.global.u32 [a], r;
  st.global.u32 [a+4], s;
  st.global.u32 [a+8], q;
  exit;
}
`;
  expect(run1x(src, 1, 2, 8)).toEqual([7, 9, 100, 0, 7, 9, 101, 0]);
});

test('from PTX 2.0 on a .shared or .local initializer is refused, module scope included', () => {
  const src = `.version 2.0
.target sm_20
.shared .u32 s = 3;
.local .u32 m = 4;
.entry k
{
  .local .u32 l[2] = {1, 2};
  ret;
}
`;
  const l = loadPtx(src, 'init.ptx');
  const where = l.diagnostics.map((d) => [src.slice(0, d.span.start).split('\n').length, d.message]);
  expect(where).toEqual([
    [3, '.shared variables cannot have an initializer'],
    [4, '.local variables cannot have an initializer'],
    [7, '.local variables cannot have an initializer'],
  ]);
});

test('the debugger prints module-scope .local variables from their own places, initialized', () => {
  // ml = 11 and m2 = 22 at module scope, kl = 5 in the kernel; the kernel stores 33 into m2
  const src = `.version 1.1
.target sm_10
.local .u32 ml = 11;
.local .u32 m2 = 22;
.entry k
{
  .local .u32 kl = 5;
  .reg .u32 r;
  ld.local.u32 r, [ml];
  st.local.u32 [m2], 33;
  ld.local.u32 r, [kl];
  exit;
}
`;
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-init-'));
  try {
    writeFileSync(join(dir, 'm.ptx'), src);
    const ex = ['stepi', 'print (unsigned int)ml', 'print (unsigned int)m2', 'print (unsigned int)kl', 'stepi 2', 'print (unsigned int)m2', 'x/2dw &ml'];
    const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'bin', 'ptxdbg.js'), 'm.ptx', '--batch', ...ex.flatMap((c) => ['--ex', c])], { encoding: 'utf8', cwd: dir, timeout: 120_000 });
    expect(r.status).toBe(0);
    const values = r.stdout.split('\n').filter((l) => /^\$\d+ = /.test(l));
    expect(values).toEqual(['$1 = 11', '$2 = 22', '$3 = 5', '$4 = 33']);
    // the two module-scope words side by side in local memory, in declaration order
    expect(r.stdout).toMatch(/^local 0x[0-9a-f]+:\s+11\s+33$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
