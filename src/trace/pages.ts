/**
 * Copy-on-write page sets: a snapshot of a byte array is an array of page references, and a page
 * unchanged since the previous snapshot of the same array is shared, not copied. All-zero pages
 * share one buffer. This is what keeps checkpoints to a few bytes per warp-step.
 */
import { PAGE_SIZE } from '../exec/memory.js';

export type Pages = readonly Uint8Array[];

const ZERO = new Uint8Array(PAGE_SIZE);
/** The shared all-zero page of every page set (Bank.setPages takes it). */
export const ZERO_PAGE = ZERO;

/** Word view of bytes [start, end) when aligned (all banks and pages are 8-byte aligned). */
function words(u8: Uint8Array, start: number, end: number): Int32Array | undefined {
  const off = u8.byteOffset + start;
  return (off & 3) === 0 && ((end - start) & 3) === 0 ? new Int32Array(u8.buffer, off, (end - start) >>> 2) : undefined;
}

function isZero(u8: Uint8Array, start: number, end: number): boolean {
  const w = words(u8, start, end);
  if (w) {
    for (let i = 0; i < w.length; i++) if (w[i] !== 0) return false;
    return true;
  }
  for (let i = start; i < end; i++) if (u8[i] !== 0) return false;
  return true;
}

function copyPage(u8: Uint8Array, start: number, end: number): Uint8Array {
  return isZero(u8, start, end) ? ZERO : u8.slice(start, end);
}

/**
 * Snapshot `u8` in pages of PAGE_SIZE, trusting `dirty` flags (the caller clears them then,
 * Bank.clearDirty): a clean page reuses `prev`'s copy, or is the zero page when there is no
 * previous snapshot (see Bank.dirty). `tally` counts the bytes it adds: the new page set's
 * references and the pages copied (nothing when it returns `prev`).
 */
export function snapDirty(u8: Uint8Array, dirty: Uint8Array, prev: Pages | undefined, tally?: { bytes: number }): Pages {
  const n = Math.ceil(u8.length / PAGE_SIZE); // a 4 GiB bank's length is past uint32
  const first = dirty.indexOf(1);
  // nothing written since `prev`: the same page set (no copy of its references either; a big
  // arena has thousands of pages and most intervals write none of them)
  if (prev !== undefined && prev.length === n && (first < 0 || first >= n)) return prev;
  // a clean page is unchanged since `prev`, or (first snapshot of this bank) never written: zero;
  // only the dirty pages are visited (found by the native indexOf: a big arena has few of them)
  const out = prev !== undefined && prev.length === n ? prev.slice() : new Array<Uint8Array>(n).fill(ZERO);
  let bytes = n * 8; // the page references
  for (let i = first; i >= 0 && i < n; i = dirty.indexOf(1, i + 1)) {
    const start = i * PAGE_SIZE;
    const p = copyPage(u8, start, Math.min(start + PAGE_SIZE, u8.length));
    out[i] = p;
    if (p !== ZERO) bytes += p.byteLength;
  }
  if (tally) tally.bytes += bytes;
  return out;
}

/** Write a page set back into `u8` (page size taken from the first page). */
export function restorePages(u8: Uint8Array, pages: Pages, size: number): void {
  for (let i = 0; i < pages.length; i++) {
    const p = pages[i]!;
    const start = i * size;
    const end = Math.min(start + size, u8.length);
    if (p === ZERO) u8.fill(0, start, end);
    else u8.set(p.subarray(0, end - start), start);
  }
}

/** The shared all-zero page (stored for free). */
export function isZeroPage(p: Uint8Array): boolean {
  return p === ZERO;
}

/** Pages per chunk of a ChunkedPages. */
export const CHUNK_PAGES = 64;
/** A page set in chunks of CHUNK_PAGES page references: snapshots share the chunks they did not change. */
export type ChunkedPages = readonly Pages[];
const ZERO_CHUNK: Pages = new Array<Uint8Array>(CHUNK_PAGES).fill(ZERO);

/** Page p of a chunked page set (the zero page past its end). */
export function chunkedPage(c: ChunkedPages, p: number): Uint8Array {
  return c[Math.floor(p / CHUNK_PAGES)]?.[p % CHUNK_PAGES] ?? ZERO;
}

/**
 * snapDirty in chunks: a snapshot copies the references of only the chunks holding dirty pages.
 * A whole program's recording takes an image at each launch's start and end; with flat page sets
 * each one copied every reference of an 8 MiB arena (16 KiB), 36 MB of JS heap for the
 * 1,000-launch bench, all of it marked by every full collection during a goto.
 */
export function snapDirtyChunked(u8: Uint8Array, dirty: Uint8Array, prev: ChunkedPages | undefined, tally?: { bytes: number }): ChunkedPages {
  const n = Math.ceil(u8.length / PAGE_SIZE);
  const chunks = Math.ceil(n / CHUNK_PAGES);
  const first = dirty.indexOf(1);
  if (prev !== undefined && prev.length === chunks && (first < 0 || first >= n)) return prev;
  const same = prev !== undefined && prev.length === chunks;
  const out: Pages[] = same ? prev.slice() : new Array<Pages>(chunks).fill(ZERO_CHUNK);
  let bytes = chunks * 8;
  for (let i = first; i >= 0 && i < n; i = dirty.indexOf(1, i + 1)) {
    const c = Math.floor(i / CHUNK_PAGES);
    let chunk = out[c]!;
    if (chunk === ZERO_CHUNK || (same && chunk === prev[c])) {
      chunk = out[c] = chunk.slice();
      bytes += CHUNK_PAGES * 8;
    }
    const start = i * PAGE_SIZE;
    const p = copyPage(u8, start, Math.min(start + PAGE_SIZE, u8.length));
    (chunk as Uint8Array[])[i % CHUNK_PAGES] = p;
    if (p !== ZERO) bytes += p.byteLength;
  }
  if (tally) tally.bytes += bytes;
  return out;
}
