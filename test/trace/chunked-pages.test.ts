/**
 * Chunked page sets (src/trace/pages.ts, the whole-program recording's memory images): a
 * snapshot copies the references of only the chunks that hold dirty pages, shares the others
 * with the previous snapshot, and reads back the bytes written. Page and chunk numbers by hand:
 * PAGE_SIZE-byte pages, CHUNK_PAGES pages a chunk.
 */
import { PAGE_SIZE } from '../../src/exec/memory.js';
import { CHUNK_PAGES, chunkedPage, isZeroPage, snapDirtyChunked } from '../../src/trace/pages.js';

const PAGES = 2 * CHUNK_PAGES + 5; // three chunks, the last one short

function write(u8: Uint8Array, dirty: Uint8Array, page: number, value: number): void {
  u8[page * PAGE_SIZE + 7] = value;
  dirty[page] = 1;
}

test('a snapshot shares the chunks it did not change and reads back each page written', () => {
  const u8 = new Uint8Array(PAGES * PAGE_SIZE);
  const dirty = new Uint8Array(PAGES);
  const tally = { bytes: 0 };
  const a = snapDirtyChunked(u8, dirty, undefined, tally);
  expect(a.length).toBe(3);
  // nothing written: every page is the shared zero page, and only the outer references count
  expect(isZeroPage(chunkedPage(a, 0)) && isZeroPage(chunkedPage(a, PAGES - 1))).toBe(true);
  expect(tally.bytes).toBe(3 * 8);

  // page CHUNK_PAGES + 3 is in chunk 1: chunks 0 and 2 stay the same objects
  write(u8, dirty, CHUNK_PAGES + 3, 42);
  const b = snapDirtyChunked(u8, dirty, a);
  dirty.fill(0);
  expect([b[0] === a[0], b[1] === a[1], b[2] === a[2]]).toEqual([true, false, true]);
  expect(chunkedPage(b, CHUNK_PAGES + 3)[7]).toBe(42);
  expect(chunkedPage(a, CHUNK_PAGES + 3)[7]).toBe(0); // the earlier snapshot keeps its bytes

  // no page dirty: the previous snapshot itself
  expect(snapDirtyChunked(u8, dirty, b)).toBe(b);

  // a page of the short last chunk; chunk 1 is shared with b now
  write(u8, dirty, PAGES - 1, 9);
  const c = snapDirtyChunked(u8, dirty, b);
  expect([c[0] === b[0], c[1] === b[1], c[2] === b[2]]).toEqual([true, true, false]);
  expect([chunkedPage(c, PAGES - 1)[7], chunkedPage(c, CHUNK_PAGES + 3)[7]]).toEqual([9, 42]);
  // past the end: the zero page
  expect(isZeroPage(chunkedPage(c, PAGES + 100))).toBe(true);
});
