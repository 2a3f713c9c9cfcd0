/** Launch files: every mistake is a clear error naming the field; defaults are usable. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultLaunch, LaunchError, parseLaunch, readLaunchFile } from '../../src/exec/launch.js';
import { Machine, DEFAULT_RUN_OPTIONS } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { tempDir } from '../helpers.js';

const PTX = `.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out]; ld.param.u32 %r2, [n];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, %r2;
  @%p1 bra $L_end;
  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
$L_end:
  ret;
}`;
const program = loadPtx(PTX, 'k.ptx').program!;

function bad(json: unknown): string {
  try {
    parseLaunch(json, program, '/nonexistent', 'L');
  } catch (e) {
    if (e instanceof LaunchError) return e.message;
    throw e;
  }
  return 'no error';
}

test('launch mistakes name the field', () => {
  expect(bad({ kernel: 'nope', grid: [1, 1, 1], block: [1, 1, 1], args: [] })).toContain(`"kernel": no .entry named 'nope' (entries: k)`);
  expect(bad({ kernel: 'k', grid: [1, 1], block: [1, 1, 1], args: [] })).toContain('"grid" must be three positive integers');
  expect(bad({ kernel: 'k', args: [] })).toContain('takes 2 parameter(s), the launch gives 0');
  expect(bad({ kernel: 'k', args: [{ name: 'out', type: 'f32', count: 4, file: 'missing.bin' }, { name: 'n', type: 'u32', value: 4 }] })).toContain('args[0] (out): input file missing.bin not found');
  expect(bad({ kernel: 'k', args: [{ name: 'out', type: 'f32', count: 4 }, { name: 'n', type: 'u64', value: 4 }] })).toContain('args[1] (n): type u64 is 8 bytes, parameter n is 4 bytes');
  expect(bad({ kernel: 'k', args: [{ name: 'out', type: 'q7', count: 4 }, { name: 'n', type: 'u32', value: 4 }] })).toContain('args[0] (out): "type" must be one of');
});

test('a wrong-sized input file is rejected with both sizes', () => {
  const dir = tempDir('ptxdbg-launch-test-');
  writeFileSync(join(dir, 'a.bin'), new Uint8Array(10));
  writeFileSync(join(dir, 'l.json'), JSON.stringify({ kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], args: [{ name: 'out', type: 'u32', count: 4, file: 'a.bin' }, { name: 'n', type: 'u32', value: 4 }] }));
  expect(() => readLaunchFile(join(dir, 'l.json'), program)).toThrow('a.bin is 10 bytes, expected count*size = 16');
});

test('the default launch runs and the bounds check holds', () => {
  const l = defaultLaunch(program);
  expect(l.block).toEqual([32, 1, 1]);
  const m = new Machine(program, l, DEFAULT_RUN_OPTIONS);
  const r = m.run();
  expect(r.ok).toBe(true);
  const out = new Uint32Array(m.arena.bank.u8.slice(m.buffers[0]!.alloc.base, m.buffers[0]!.alloc.base + 4 * 40).buffer);
  // n = thread count (32): threads 0..31 write their id, the rest stays zero
  expect(Array.from(out.slice(0, 33))).toEqual([...Array.from({ length: 32 }, (_, i) => i), 0]);
});

test('an out-of-bounds store is a located fault naming thread, space and address', () => {
  const l = parseLaunch({ kernel: 'k', grid: [1, 1, 1], block: [64, 1, 1], args: [{ name: 'out', type: 'u32', count: 40 }, { name: 'n', type: 'u32', value: 64 }] }, program, '.', 'L');
  const r = new Machine(program, l, DEFAULT_RUN_OPTIONS).run();
  expect(r.ok).toBe(false);
  expect(r.fault?.kind).toBe('oob');
  expect(r.fault?.thread).toEqual([40, 0, 0]);
  expect(r.fault?.space).toBe('global');
  // thread 40 stores out[40]; out has 40 u32 elements = 160 bytes
  expect(r.fault?.message).toMatch(/^out-of-bounds global write of 4 bytes at out\[40\] \(0x7f00[0-9a-f]+\); `out` has 40 elements \(160 bytes\)$/);
  expect(r.fault?.ptx).toBe('st.global.u32 [%rd3], %r1;');
});

test('a scalar of the wrong kind or out of range names the field instead of being reinterpreted', () => {
  const out = { name: 'out', type: 'u32', count: 4 };
  // n is .u32: 96.5 is no integer; an f32 value would arrive as its bit pattern 0x42c10000
  expect(bad({ kernel: 'k', args: [out, { name: 'n', type: 's32', value: 96.5 }] })).toContain('args[1] (n): 96.5 is not an integer, and parameter n is .u32');
  expect(bad({ kernel: 'k', args: [out, { name: 'n', type: 'f32', value: 96.5 }] })).toContain('args[1] (n): a f32 value is given for parameter n of type .u32');
  expect(bad({ kernel: 'k', args: [out, { name: 'n', type: 'u32', value: -1 }] })).toContain('args[1] (n): -1 does not fit in u32 (0..4294967295)');
  expect(bad({ kernel: 'k', args: [out, { name: 'n', type: 's32', value: 2 ** 31 }] })).toContain('2147483648 does not fit in s32');
  expect(bad({ kernel: 'k', args: [out, { name: 'n', type: 's32', value: -(2 ** 31) }] })).toBe('no error');
});
