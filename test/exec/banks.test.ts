/**
 * Global memory past 4 GiB: banks of 4 GiB each, bank k at high word 0x7f00 + k, an allocation in
 * one bank (first fit, bank 0 first). The device of `ptxdbg exec` reports an A100 40GB's 40 GiB by
 * default and refuses a single allocation over 4 GiB with cudaErrorMemoryAllocation (2) and a
 * notice. Expected values by hand from the sizes (a bank is 2^32 bytes, allocations take 256-byte
 * granules plus one guard granule) and from CUDA's error codes (driver_types.h).
 */
import { BANK_BYTES, GLOBAL_HI, GlobalArena, Space, spaceOfWindow } from '../../src/exec/memory.js';
import { Device } from '../../src/host/device.js';
import { CudaError } from '../../src/host/errors.js';
import { parseDeviceMemory } from '../../src/cli/exec.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import type { Launch } from '../../src/exec/launch.js';
import { loadPtx } from '../../src/ptx/index.js';
import { restore, Snapshotter } from '../../src/trace/checkpoint.js';
import { captureImage, imageLaunch, layoutFromImage } from '../../src/exec/parallel/image.js';

const GiB = 2 ** 30, MiB = 2 ** 20;
const WINDOW = BigInt(GLOBAL_HI) << 32n;
const codeOf = (f: () => unknown): { code?: number; message?: string } => {
  try { f(); } catch (e) { if (e instanceof CudaError) return { code: e.code, message: e.message }; throw e; }
  return {};
};

test('every global bank\'s high word is the global window (isspacep.global, cvta), up to 0x7f13; 0x7f14 and shared are not', () => {
  expect(spaceOfWindow(0x7f00)).toBe(Space.Global);
  expect(spaceOfWindow(0x7f01)).toBe(Space.Global);
  expect(spaceOfWindow(0x7f13)).toBe(Space.Global);
  expect(spaceOfWindow(0x7f14)).toBe(-1);
  expect(spaceOfWindow(0x7e00)).toBe(Space.Shared);
});

test('an allocation that does not fit in bank 0 goes to bank 1 whole; the gap left in bank 0 is reused first', () => {
  const a = new GlobalArena(1 << 20);
  const limit = 40 * GiB;
  const x = a.allocateBlock(3 * GiB, 'x', 'buffer', 256, limit)!;
  expect(x.base).toBe(256); // offset 0 stays unmapped
  const y = a.allocateBlock(3 * GiB, 'y', 'buffer', 256, limit)!;
  // 256 + 3 GiB + 256 + 3 GiB would cross 4 GiB: y starts bank 1
  expect(y.base).toBe(BANK_BYTES);
  expect(a.far[1]).toBeDefined();
  expect(a.bank.size).toBeLessThanOrEqual(BANK_BYTES);
  // both ends of y are checked in bank 1, and not in bank 0 at the same low offsets' allocation
  expect(a.checkAt(y.base + 3 * GiB - 4, 4)).toBe(y.id);
  expect(a.checkAt(y.base + 3 * GiB, 4)).toBe(-1); // its guard granule
  expect(a.check(0, 4)).toBe(-1);
  // 256 MiB fits in bank 0's rest (256 + 3 GiB + 256 up to 4 GiB): placed there, not after y
  const z = a.allocateBlock(256 * MiB, 'z', 'buffer', 256, limit)!;
  expect(z.base).toBe(256 + 3 * GiB + 256);
  // bytes of z and of y are different memory
  a.bytes(z.base, 4).set([1, 2, 3, 4]);
  a.bytes(y.base + 4, 4).set([5, 6, 7, 8]);
  expect([...a.bytes(z.base, 4)]).toEqual([1, 2, 3, 4]);
  expect([...a.bytes(y.base + 4, 4)]).toEqual([5, 6, 7, 8]);
  expect([...a.far[1]!.u8.subarray(4, 8)]).toEqual([5, 6, 7, 8]);
});

test('no allocation straddles two banks, and none over 4 GiB less its guard is placed', () => {
  const a = new GlobalArena(1 << 20);
  const limit = 12 * GiB;
  for (let i = 0; i < 5; i++) {
    const b = a.allocateBlock(1.5 * GiB, `b${i}`, 'buffer', 256, limit)!;
    expect(Math.floor(b.base / BANK_BYTES)).toBe(Math.floor((b.base + b.size + 255) / BANK_BYTES));
  }
  expect(a.allocateBlock(BANK_BYTES, 'whole bank', 'buffer', 256, 80 * GiB)).toBeUndefined();
});

test('the device reports 40 GiB by default (an A100 40GB); --device-memory takes up to 80G and refuses 81G', () => {
  const d = new Device();
  expect(d.memInfo().total).toBe(40 * GiB);
  expect(parseDeviceMemory('80G')).toBe(80 * GiB);
  expect(() => parseDeviceMemory('81G')).toThrow('--device-memory 81G: more than the 80 GiB ptxdbg can emulate');
});

test('6 GiB in two 3 GiB allocations: host copies reach the start and end of each, committing little host memory', () => {
  const rss0 = process.memoryUsage().rss;
  const d = new Device();
  const a = d.malloc(3 * GiB, 'device'), b = d.malloc(3 * GiB, 'device');
  expect(b >> 32n).toBe(BigInt(GLOBAL_HI + 1)); // bank 1
  const n = BigInt(3 * GiB);
  d.write(a, new Uint8Array([11])); d.write(a + n - 1n, new Uint8Array([12]));
  d.write(b, new Uint8Array([21])); d.write(b + n - 1n, new Uint8Array([22]));
  expect([...d.read(a, 1), ...d.read(a + n - 1n, 1), ...d.read(b, 1), ...d.read(b + n - 1n, 1)]).toEqual([11, 12, 21, 22]);
  // a device-to-device copy across banks, and a set
  d.copy(a + 8n, b, 1);
  d.set(b + 8n, 0x5a, 2);
  expect([...d.read(a + 8n, 1), ...d.read(b + 8n, 2)]).toEqual([21, 0x5a, 0x5a]);
  // one past the end of b is in no allocation
  expect(codeOf(() => d.read(b + n, 1)).code).toBe(1);
  // the allocator's granule map (4 bytes per 256) is most of what it costs; 6 GiB of bytes are not committed
  expect(process.memoryUsage().rss - rss0).toBeLessThan(1 * GiB);
  d.free(a); d.free(b);
});

test('a single 5 GiB cudaMalloc is cudaErrorMemoryAllocation with a notice; later calls work', () => {
  const d = new Device();
  const r = codeOf(() => d.malloc(5 * GiB, 'device'));
  expect(r.code).toBe(2);
  expect(r.message).toContain('ptxdbg cannot emulate a single allocation over 4 GiB');
  const p = d.malloc(MiB, 'device');
  expect(p).toBeGreaterThan(WINDOW);
  d.free(p);
});

test('a recorded program keeps its device memory in the first 4 GiB: past it, cudaMalloc is refused saying why', () => {
  const d = new Device();
  d.firstBankOnly = 'recording the program';
  d.malloc(3 * GiB, 'device');
  const r = codeOf(() => d.malloc(3 * GiB, 'device'));
  expect(r.code).toBe(2);
  expect(r.message).toContain('recording the program keeps device memory in its first 4 GiB');
});

// thread i (ctaid * 32 + tid) adds i to word i of the buffer it is given (ld/st .global after
// cvta.to.global, so the fused block path's check sends bank 1 to the slow path), then stores
// isspacep.global of the pointer through a generic store to word 1024 + i
const PTX = `.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p) {
  .reg .b64 %rd<5>; .reg .b32 %r<5>; .reg .pred %q<2>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r4, %ctaid.x;
  shl.b32 %r4, %r4, 5;
  add.s32 %r1, %r1, %r4;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  ld.global.u32 %r2, [%rd2];
  add.s32 %r2, %r2, %r1;
  st.global.u32 [%rd2], %r2;
  isspacep.global %q1, %rd1;
  selp.u32 %r3, 1, 0, %q1;
  add.s64 %rd4, %rd1, %rd3;
  st.u32 [%rd4+4096], %r3;
  ret;
}
`;

function launchIn(arena: GlobalArena, ptr: bigint, ctas = 1): { m: Machine } {
  const program = loadPtx(PTX, 'banks.ptx').program!;
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, ptr, true);
  const launch: Launch = {
    kernel: 'k', grid: [ctas, 1, 1], block: [32, 1, 1], sharedBytes: 0, args: [{ kind: 'bytes', name: 'p', bytes }],
    resident: { arena, globals: new Map(), constBank: undefined },
  };
  return { m: new Machine(program, launch, DEFAULT_RUN_OPTIONS) };
}

test('a kernel loads and stores in bank 1 at high word 0x7f01, and isspacep.global holds there', () => {
  const arena = new GlobalArena(1 << 20);
  arena.allocateBlock(3 * GiB, 'x', 'buffer', 256, 40 * GiB);
  // 1.5 GiB does not fit in bank 0's last GiB: it starts bank 1
  const far = arena.allocateBlock(1.5 * GiB, 'far', 'buffer', 256, 40 * GiB)!;
  expect(far.base).toBe(BANK_BYTES);
  const words = new Uint32Array(arena.bytes(far.base, 8192).buffer, arena.bytes(far.base, 8192).byteOffset, 2048);
  for (let i = 0; i < 32; i++) words[i] = 1000 * i;
  const { m } = launchIn(arena, WINDOW + BigInt(far.base));
  const r = m.run();
  expect(r.ok).toBe(true);
  for (let i = 0; i < 32; i++) expect(words[i]).toBe(1000 * i + i);
  for (let i = 0; i < 32; i++) expect(words[1024 + i]).toBe(1);
  // past the allocation's end: a located out-of-bounds fault naming the 0x7f01 address
  const { m: past } = launchIn(arena, WINDOW + BigInt(far.base + 1.5 * GiB - 64));
  const bad = past.run();
  expect(bad.ok).toBe(false);
  // lane 16 reads the first word after `far` (0x7f01_6000_0000): named as past `far`, not in bank 0's `x`
  expect(bad.fault!.message).toBe('out-of-bounds global read of 4 bytes at 1610612736 bytes past the start of `far` (1610612736 bytes)');
});

test('a checkpoint holds the pages of bank 1 and a restore puts them back', () => {
  const arena = new GlobalArena(1 << 20);
  arena.allocateAt(BANK_BYTES, 8192, 'bank 1', 'buffer');
  const word = (i: number): number => new DataView(arena.bytes(BANK_BYTES + 4 * i, 4).slice().buffer).getUint32(0, true);
  const { m } = launchIn(arena, WINDOW + BigInt(BANK_BYTES));
  const c = new Snapshotter().take(m);
  expect(m.run().ok).toBe(true);
  // thread 1 added 1 to word 1; thread 1's flag (word 1025) is set
  expect([word(1), word(1025)]).toEqual([1, 1]);
  restore(m, c, '');
  expect([word(1), word(1025)]).toEqual([0, 0]);
});

test('worker threads share bank 1: two machines over one launch image each write their CTAs\' words there', () => {
  const arena = new GlobalArena(1 << 20);
  arena.allocateAt(BANK_BYTES, 8192, 'bank 1', 'buffer');
  const { m: a } = launchIn(arena, WINDOW + BigInt(BANK_BYTES), 16);
  const image = captureImage(a);
  const b = new Machine(a.program, imageLaunch(image), image.opts, layoutFromImage(image, a.program));
  const claims = new Int32Array(new SharedArrayBuffer(8));
  a.ctaClaims = claims;
  b.ctaClaims = claims;
  while (!a.finished || !b.finished) {
    if (!a.finished) a.advance(a.warpSteps + 40);
    if (!b.finished) b.advance(b.warpSteps + 40);
  }
  expect(a.fault).toBeUndefined();
  expect(b.fault).toBeUndefined();
  expect(a.ctasClaimed).toBeGreaterThan(0);
  expect(b.ctasClaimed).toBeGreaterThan(0);
  // every thread i of the 16 CTAs: word i = 0 + i, word 1024 + i = 1, in the arena's own bank 1
  const words = new Uint32Array(arena.bytes(BANK_BYTES, 8192).slice().buffer);
  for (let i = 0; i < 512; i++) expect([words[i], words[1024 + i]]).toEqual([i, 1]);
  // b's writes are flagged in its own view's dirty pages, for the pool to merge
  b.arena.far.forEach((bank) => { if (bank) expect(bank.dirty.indexOf(1)).toBeGreaterThanOrEqual(0); });
});
