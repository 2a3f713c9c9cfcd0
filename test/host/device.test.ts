/**
 * The emulated device of `ptxdbg exec` without a program or nvcc: memory calls with their
 * errors, launches sharing memory and module variables, constant memory written between
 * launches, and a capture bundle that reruns to the same bytes. Expected values by hand.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Device, WINDOW_BASE, type LaunchRequest } from '../../src/host/device.js';
import { CudaError } from '../../src/host/errors.js';
import { snapshotLaunch, writeBundle, writeBundleOutputs } from '../../src/host/bundle.js';
import { LaunchError, parseLaunch, readLaunchFile } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { fatbin } from './wire-client.js';

const PTX = `.version 8.0
.target sm_80
.address_size 64
.global .align 4 .u32 counter = 5;
.const .align 4 .u32 bias;
.visible .entry addBias(.param .u64 p, .param .u32 n)
{
  .reg .pred %q;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %q, %r2, %r1;
  @%q bra DONE;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r3, [%rd3];
  ld.const.u32 %r4, [bias];
  add.u32 %r5, %r3, %r4;
  st.global.u32 [%rd3], %r5;
  setp.ne.u32 %q, %r2, 0;
  @%q bra DONE;
  atom.global.add.u32 %r6, [counter], 1;
DONE:
  ret;
}
`;

const u32s = (...v: number[]): Uint8Array => new Uint8Array(Uint32Array.from(v).buffer);
const words = (b: Uint8Array): number[] => [...new Uint32Array(b.slice().buffer)];
function params(ptr: bigint, n: number): Uint8Array {
  const b = new Uint8Array(12);
  new DataView(b.buffer).setBigUint64(0, ptr, true);
  new DataView(b.buffer).setUint32(8, n, true);
  return b;
}
const codeOf = (f: () => unknown): number | undefined => {
  try { f(); } catch (e) { if (e instanceof CudaError) return e.code; throw e; }
  return undefined;
};

test('memory calls: window pointers, copies both ways, and errors for what a GPU refuses', () => {
  const d = new Device();
  const a = d.malloc(40, 'device');
  const b = d.malloc(40, 'device');
  expect(a >= WINDOW_BASE && (a - WINDOW_BASE) % 256n === 0n).toBe(true);
  expect(b - a).toBeGreaterThanOrEqual(256n); // a guard gap after each allocation
  d.write(a, u32s(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
  d.copy(b + 8n, a, 12);
  d.set(b, 0xff, 4);
  expect(words(d.read(b, 20))).toEqual([0xffffffff, 0, 1, 2, 3]);
  // 8 bytes from the last 4 of `a` run past it: cudaErrorInvalidValue (1)
  expect(codeOf(() => d.read(a + 36n, 8))).toBe(1);
  expect(codeOf(() => d.free(a + 4n))).toBe(1);
  d.free(a);
  expect(codeOf(() => d.read(a, 4))).toBe(1); // freed: stale pointers fault
  const c = d.malloc(16, 'device');
  expect(c).toBe(a); // the span is reused, and zeroed
  expect(words(d.read(c, 16))).toEqual([0, 0, 0, 0]);
  expect(codeOf(() => d.malloc(2 ** 40, 'device'))).toBe(2);
});

test('launches share memory and module variables; constant memory written between launches is seen', () => {
  const d = new Device();
  const m = d.addModule(fatbin(PTX), 'test');
  const buf = d.malloc(16, 'device');
  d.write(buf, u32s(10, 20, 30, 40));
  const bias = d.symbol(m, 'bias');
  d.write(bias.address, u32s(7));
  const r: LaunchRequest = { module: m, kernel: 'addBias', grid: [1, 1, 1], block: [32, 1, 1], sharedBytes: 0, params: params(buf, 3), cooperative: false };
  expect(d.run(r, DEFAULT_RUN_OPTIONS).result.fault).toBeUndefined();
  d.write(bias.address, u32s(100));
  expect(d.run(r, DEFAULT_RUN_OPTIONS).result.fault).toBeUndefined();
  // 3 of 4 elements get 7 then 100; thread 0 bumps counter (initially 5) once per launch
  expect(words(d.read(buf, 16))).toEqual([117, 127, 137, 40]);
  expect(words(d.read(d.symbol(m, 'counter').address, 4))).toEqual([7]);
  // a launch whose parameter points past the buffer faults, located
  const bad = d.run({ ...r, params: params(buf + 8n, 3) }, DEFAULT_RUN_OPTIONS).result.fault;
  expect(bad?.kind).toBe('oob');
  expect(bad?.thread).toEqual([2, 0, 0]);
});

test('a capture bundle reruns from its files to the bytes the launch produced', () => {
  const d = new Device();
  const m = d.addModule(fatbin(PTX), 'test');
  const buf = d.malloc(8, 'device');
  d.write(buf, u32s(1, 2));
  d.write(d.symbol(m, 'bias').address, u32s(3));
  const r: LaunchRequest = { module: m, kernel: 'addBias', grid: [1, 1, 1], block: [2, 1, 1], sharedBytes: 0, params: params(buf, 2), cooperative: false };
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-bundle-'));
  try {
    const snap = snapshotLaunch(d, r);
    writeBundle(dir, snap);
    const { result } = d.run(r, DEFAULT_RUN_OPTIONS);
    writeBundleOutputs(dir, d, snap, result.stdout);
    const program = loadPtx(readFileSync(join(dir, 'kernel.ptx'), 'utf8'), 'kernel.ptx').program!;
    const again = new Machine(program, readLaunchFile(join(dir, 'launch.json'), program));
    expect(again.run().fault).toBeUndefined();
    const byName = new Map(again.buffers.map((b) => [b.name, again.arena.bank.u8.slice(b.alloc.base, b.alloc.base + b.count)]));
    // the buffer became [4, 5] and counter 6, in the device and in the rerun alike
    expect(words(byName.get('cudaMalloc_1')!)).toEqual([4, 5]);
    expect(words(byName.get('counter')!)).toEqual([6]);
    for (const [name, bytes] of byName) expect({ name, same: Buffer.from(bytes).equals(readFileSync(join(dir, 'expected', `${name}.bin`))) }).toEqual({ name, same: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a fatbinary that is not one is refused with a located error code, not a crash', () => {
  const d = new Device();
  expect(codeOf(() => d.addModule(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]), 'junk'))).toBe(200);
  expect(codeOf(() => d.symbol(0, 'x'))).toBe(400);
});

test('a captured launch file with a bad "device" section is a located launch error, never a crash', () => {
  const program = loadPtx(PTX, 'k.ptx').program!;
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-badbundle-'));
  try {
    writeFileSync(join(dir, 'a.bin'), new Uint8Array(16));
    writeFileSync(join(dir, 'c.bin'), new Uint8Array(4));
    const region = (over: object): object => ({ name: 'a', kind: 'buffer', offset: 8704, size: 16, file: 'a.bin', ...over });
    const counter = { name: 'counter', kind: 'global', offset: 9216, size: 4, file: 'c.bin' };
    const launch = (device: object): unknown => ({
      kernel: 'addBias', args: [{ name: 'p', type: 'bytes', value: [0, 0, 0, 0, 0, 0, 0, 0] }, { name: 'n', type: 'bytes', value: [0, 0, 0, 0] }], device,
    });
    const error = (device: object): string => {
      try { parseLaunch(launch(device), program, dir, 'l.json'); } catch (e) { if (e instanceof LaunchError) return e.message; throw e; }
      return 'accepted';
    };
    expect(error({ regions: [region({}), counter] })).toBe('accepted');
    expect(error({ regions: [region({ offset: 300 }), counter] })).toBe('l.json: "device".regions[0].offset: 300 is not a 256-byte aligned device offset');
    expect(error({ regions: [region({}), region({ name: 'b' }), counter] })).toBe('l.json: "device".regions[1]: allocation b at offset 8704 overlaps a');
    expect(error({ regions: [region({})] })).toBe('l.json: "device": no region for the module\'s .global variable counter');
    expect(error({ regions: [region({ file: 'nope.bin' }), counter] })).toMatch(/^l\.json: "device"\.regions\[0\]: "file": cannot read .*nope\.bin: no such file/);
    expect(error({ regions: [region({}), counter], images: [{ format: 'float', dims: 2, width: 64, height: 64, depth: 1, layers: 1, offset: 8704 }] }))
      .toBe('l.json: "device".images[0]: its 16384 bytes at offset 8704 are not inside one region');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
