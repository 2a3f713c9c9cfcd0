/**
 * Banks and the global arena past 2 GiB (a device of 4 GiB): offsets are unsigned 32-bit, and the
 * host commits only the pages a program touches, so saving, restoring and loading a bank visit
 * only the pages that may be non-zero. Expected values by hand from the offsets and sizes.
 */
import { Bank, GlobalArena, PAGE_SIZE } from '../../src/exec/memory.js';
import { loadBytes, restoreSaved, savePages, setPageSet } from '../../src/exec/bank-pages.js';

const GiB = 2 ** 30;

test('an arena of 4 GiB maps, checks and frees an allocation that ends past 2^31 and near 2^32', () => {
  const a = new GlobalArena(1 << 20);
  const big = a.allocateBlock(3.2e9, 'big', 'buffer', 256, 4 * GiB)!;
  expect(big).toBeDefined();
  // grown to hold it: offset 256 (0 stays unmapped), 3.2e9 bytes (a multiple of 256), a guard granule
  expect(big.base).toBe(256);
  expect(a.bank.size).toBe(256 + 3.2e9 + 256);
  const last = big.base + 3.2e9 - 4; // > 2^31: a signed offset would be negative
  expect(last).toBeGreaterThan(2 ** 31);
  expect(a.check(last, 4)).toBe(big.id);
  expect(a.check(last + 4, 4)).toBe(-1); // the guard granule after it
  // freed and handed out again as one block (3.2 GB of granules: past 2^31 bytes, once a shift overflowed)
  const free0 = a.available(4 * GiB);
  a.release(big);
  expect(a.available(4 * GiB)).toBe(free0 + Math.ceil(3.2e9 / 256) * 256 + 256);
  const again = a.allocateBlock(3.5e9, 'again', 'buffer', 256, 4 * GiB);
  expect(again?.base).toBe(big.base);
});

test('a bank of 4 GiB has a dirty flag for each of its 2^20 pages, the last one included', () => {
  const b = new Bank(4 * GiB);
  expect(b.dirty.length).toBe(2 ** 20);
  b.touch(4 * GiB - 8, 8);
  expect(b.dirty[2 ** 20 - 1]).toBe(1);
  b.u32[(4 * GiB - 4) / 4] = 0xdeadbeef;
  expect(b.u8[4 * GiB - 1]).toBe(0xde);
});

test('savePages and restoreSaved bring back the saved pages and zero pages written since, whoever wrote them', () => {
  const b = new Bank(16 * PAGE_SIZE);
  b.u8[3 * PAGE_SIZE + 5] = 7;
  b.touch(3 * PAGE_SIZE + 5, 1);
  const saved = savePages(b);
  expect(saved.runs).toEqual([3 * PAGE_SIZE, 4 * PAGE_SIZE]); // only the page written
  expect(saved.bytes.length).toBe(PAGE_SIZE);
  b.u8[3 * PAGE_SIZE + 5] = 9;
  b.u8[10 * PAGE_SIZE] = 1; // no dirty mark (a worker thread's write over shared bytes)
  restoreSaved(b, saved);
  expect(b.u8[3 * PAGE_SIZE + 5]).toBe(7);
  expect(b.u8[10 * PAGE_SIZE]).toBe(0);
  expect(b.dirty[10]).toBe(1); // it changed
  expect(b.dirty[11]).toBe(0); // untouched pages stay unmarked
});

test('loadBytes copies only non-zero pages over clean ones, and marks what it wrote', () => {
  const b = new Bank(8 * PAGE_SIZE);
  const bytes = new Uint8Array(4 * PAGE_SIZE);
  bytes[PAGE_SIZE + 1] = 5;
  loadBytes(b, bytes, 2 * PAGE_SIZE);
  expect(b.u8[3 * PAGE_SIZE + 1]).toBe(5);
  expect([...b.dirty]).toEqual([0, 0, 0, 1, 0, 0, 0, 0]);
  // a zero page over a written one is copied: the page must become zero
  b.u8[4 * PAGE_SIZE] = 3;
  b.touch(4 * PAGE_SIZE, 1);
  loadBytes(b, new Uint8Array(PAGE_SIZE), 4 * PAGE_SIZE);
  expect(b.u8[4 * PAGE_SIZE]).toBe(0);
});

test('setPageSet writes a zero page only where the bank may hold non-zero bytes', () => {
  const zero = new Uint8Array(PAGE_SIZE);
  const b = new Bank(4 * PAGE_SIZE);
  b.u8[PAGE_SIZE] = 4;
  b.touch(PAGE_SIZE, 1);
  b.u8[2 * PAGE_SIZE] = 6; // unmarked: setPages trusts the marks (every write goes through them)
  const page = new Uint8Array(PAGE_SIZE);
  page[9] = 8;
  setPageSet(b, [zero, zero, zero, page], zero);
  expect(b.u8[PAGE_SIZE]).toBe(0);
  expect(b.u8[2 * PAGE_SIZE]).toBe(6);
  expect(b.u8[3 * PAGE_SIZE + 9]).toBe(8);
});

test('a recycled bank\'s bytes serve the next bank of its size, all zeros again, including pages a checkpoint restore set', () => {
  const size = 3 * 2 ** 20 + 256; // an arena of 3 MiB and a guard granule: worth keeping
  const a = new Bank(size);
  a.u8[5] = 1; a.touch(5, 1); // a store
  a.clearDirty(); // a checkpoint took it: now only "written"
  a.u8[PAGE_SIZE * 100 + 7] = 2; a.touch(PAGE_SIZE * 100 + 7, 1); // a store after it: dirty
  a.u8[size - 1] = 3; a.markWritten(Math.floor((size - 1) / PAGE_SIZE)); // a restored page, unmarked dirty
  const buf = a.u8.buffer;
  a.recycle();
  expect(a.size).toBe(0);
  expect(a.u8.length).toBe(0);
  const b = new Bank(size);
  expect(b.u8.buffer).toBe(buf);
  expect([b.u8[5], b.u8[PAGE_SIZE * 100 + 7], b.u8[size - 1]]).toEqual([0, 0, 0]);
  expect(b.u8.some((x) => x !== 0)).toBe(false);
  // a fresh bank's flags: every page clean (known zero)
  expect(b.dirty.some((x) => x !== 0)).toBe(false);
  // taken once: the next bank of that size is new bytes
  expect(new Bank(size).u8.buffer).not.toBe(buf);
  // a small bank is not kept (a CTA's shared memory)
  const s = new Bank(4096);
  const sb = s.u8.buffer;
  s.recycle();
  expect(s.size).toBe(4096);
  expect(new Bank(4096).u8.buffer).not.toBe(sb);
});
