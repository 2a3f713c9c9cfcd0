/**
 * Breakpoints in code the launched kernel cannot reach. A module loaded to run reads only that
 * kernel's code (resolve.ts lazy), so the other kernel's lines have no loaded instructions; a
 * breakpoint there must say so, never move on to the next line of loaded code (which would stop
 * somewhere the user did not ask for) nor call the function undefined. Lines come from the
 * module text below: `first` has code on lines 3-4 of two.cu, `second` on lines 9-10.
 */
import { engineOf } from '../../src/engine/api.js';
import { openSession, type Session } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';

const PTX = `.version 8.0
.target sm_80
.address_size 64
.file 1 "two.cu"

.visible .entry first(.param .u64 o)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  .loc 1 3 5
  mov.u32 %r1, %tid.x;
  .loc 1 4 5
  shl.b32 %r2, %r1, 1;
  ld.param.u64 %rd1, [o];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}

.visible .entry second(.param .u64 o)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  .loc 1 9 5
  mov.u32 %r1, %tid.x;
  .loc 1 10 5
  add.u32 %r2, %r1, 100;
  ld.param.u64 %rd1, [o];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
`;
const lineOf = (text: string): number => PTX.split('\n').findIndex((l) => l.includes(text)) + 1;

let s: Session;
beforeAll(() => {
  s = openSession({ ptxPath: 'two.ptx', ptxText: PTX, kernel: 'second', grid: '1', block: '4', arg: ['u32[4]'] });
});
const exec = (cmd: string): { output: string; error: boolean } => {
  const r = consoleOf(engineOf(s)).execute(cmd);
  return { output: r.output, error: r.error };
};

test('a line of the kernel not launched is refused, naming that kernel', () => {
  for (const spec of ['two.cu:3', 'two.cu:1']) {
    const r = exec(`break ${spec}`);
    expect({ spec, ...r }).toEqual({ spec, error: true, output: expect.stringContaining('line 3 of two.cu is in first, which kernel second does not reach') });
  }
});

test('a function or PTX line of the kernel not launched is refused as unreachable, not undefined', () => {
  expect(exec('break first')).toEqual({ error: true, output: expect.stringContaining('function "first" is not reachable from kernel second') });
  expect(exec(`break ptx:${lineOf('shl.b32')}`)).toEqual({ error: true, output: expect.stringContaining(`PTX line ${lineOf('shl.b32')} is in first, which kernel second does not reach`) });
  expect(exec('break nosuch')).toEqual({ error: true, output: expect.stringContaining('function "nosuch" not defined') });
});

test('a line without code before the launched kernel still moves to its next line', () => {
  // lines 5-8 have no code in either kernel: the next line with code is second's line 9
  const r = exec('break two.cu:6');
  expect(r.error).toBe(false);
  expect(r.output).toMatch(/Breakpoint \d+ at second pc 0: file two\.cu, line 9\./);
  exec('goto end');
  expect(exec('reverse-continue').output).toMatch(/Breakpoint \d+, .* at second \(two\.cu:9\)/);
});
