/**
 * Device memory kept for a rerun of a launch shared among threads (src/exec/parallel/saved.ts):
 * only pages that may be non-zero are copied; restoring puts every page back as it was, zeroing
 * the ones the threads wrote that were zero, and leaves pages no one wrote untouched (clean).
 */
import { Bank, PAGE_SIZE } from '../../src/exec/memory.js';
import { restoreBank, saveBank } from '../../src/exec/parallel/saved.js';

/** A bank of 8 pages with bytes written in pages 1, 2 (one run) and 5, and page 6 written then its flag cleared. */
function bank(): Bank {
  const b = new Bank(8 * PAGE_SIZE);
  b.u8[1 * PAGE_SIZE + 3] = 11; b.touch(1 * PAGE_SIZE + 3, 1);
  b.u8[2 * PAGE_SIZE] = 22; b.touch(2 * PAGE_SIZE, 1);
  b.u8[5 * PAGE_SIZE + 7] = 55; b.touch(5 * PAGE_SIZE + 7, 1);
  b.u8[6 * PAGE_SIZE + 1] = 66; b.touch(6 * PAGE_SIZE + 1, 1);
  b.clearDirtyPages(6, 6);
  return b;
}

test('only the pages that may be non-zero are copied, as runs of pages', () => {
  const s = saveBank(bank());
  expect(s.runs).toEqual([[1, 3], [5, 7]]);
  expect(s.bytes.length).toBe(4 * PAGE_SIZE);
  expect(s.bytes[3]).toBe(11);
  expect(s.bytes[PAGE_SIZE]).toBe(22);
  expect(s.bytes[2 * PAGE_SIZE + 7]).toBe(55);
  expect(s.bytes[3 * PAGE_SIZE + 1]).toBe(66);
});

test('restore: saved pages come back, pages the threads wrote that were zero are zero again, untouched ones stay clean', () => {
  const b = bank();
  const want = b.u8.slice();
  const s = saveBank(b);
  // the main thread overwrites a saved page and writes the zero page 3; a worker wrote page 4 (its own flags)
  b.u8[1 * PAGE_SIZE + 3] = 99; b.touch(1 * PAGE_SIZE + 3, 1);
  b.u8[3 * PAGE_SIZE + 9] = 33; b.touch(3 * PAGE_SIZE + 9, 1);
  b.u8[4 * PAGE_SIZE + 2] = 44;
  const worker = new Uint8Array(8);
  worker[4] = 1;
  restoreBank(b, s, [worker]);
  expect([...b.u8]).toEqual([...want]);
  // pages 0 and 7 were never written: not touched by the restore either
  expect(b.dirty[0]).toBe(0);
  expect(b.dirty[7]).toBe(0);
  expect([1, 2, 3, 4, 5, 6].map((p) => b.dirty[p])).toEqual([1, 1, 1, 1, 1, 1]);
});

test('restore with a thread whose writes are unknown zeroes every page that was zero', () => {
  const b = bank();
  const want = b.u8.slice();
  const s = saveBank(b);
  b.u8[7 * PAGE_SIZE + 1] = 77; // a thread that did not report wrote it
  restoreBank(b, s, undefined);
  expect([...b.u8]).toEqual([...want]);
});
