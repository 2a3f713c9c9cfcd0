/**
 * Whole-bank copies that visit only the pages a bank may hold non-zero bytes in (its dirty and
 * written flags, see Bank): a program's device memory of gigabytes is mostly never touched, and a
 * whole copy, or a zero written over an untouched page, would commit all of it in host memory.
 */
import { type Bank, PAGE_SIZE } from './memory.js';

/** Pages of a bank (savePages): byte ranges [runs[2i], runs[2i+1]) and their bytes, in order. */
export interface SavedPages {
  /** The bank's size then. */
  readonly size: number;
  readonly runs: readonly number[];
  readonly bytes: Uint8Array;
}

/** A copy of the pages of `bank` that may be non-zero, for restoreSaved. */
export function savePages(bank: Bank): SavedPages {
  const runs: number[] = [];
  let n = 0;
  bank.forWritten((from, end) => { runs.push(from, end); n += end - from; });
  const bytes = new Uint8Array(n);
  for (let i = 0, at = 0; i < runs.length; i += 2) {
    bytes.set(bank.u8.subarray(runs[i]!, runs[i + 1]!), at);
    at += runs[i + 1]! - runs[i]!;
  }
  return { size: bank.u8.length, runs, bytes };
}

/**
 * The bytes of `bank` as savePages found them (a bank of the same size), whoever wrote since
 * (threads with dirty flags of their own included): the saved pages copied back, any other
 * non-zero page zeroed; the pages written are marked dirty.
 */
export function restoreSaved(bank: Bank, saved: SavedPages): void {
  const u8 = bank.u8, u32 = bank.u32;
  let from = 0;
  // (runs and the bank's size are multiples of 4: page bounds, or the size aligned to 8)
  const zeroTo = (end: number): void => {
    for (let p = from; p < end; p += PAGE_SIZE) {
      const q = Math.min(end, p + PAGE_SIZE);
      // reading an untouched page commits nothing; only a non-zero one is written
      for (let i = p / 4; i < q / 4; i++) if (u32[i] !== 0) { u8.fill(0, p, q); bank.touch(p, q - p); break; }
    }
  };
  for (let i = 0, at = 0; i < saved.runs.length; i += 2) {
    const a = saved.runs[i]!, b = saved.runs[i + 1]!;
    zeroTo(a);
    u8.set(saved.bytes.subarray(at, at + b - a), a);
    bank.touch(a, b - a);
    at += b - a;
    from = b;
  }
  zeroTo(u8.length);
}

/**
 * Put a page set into `bank` (a checkpoint's, one page per PAGE_SIZE; `zero` stands for an
 * all-zero page): an all-zero page is written only where the bank may hold non-zero bytes. The
 * pages set count as written.
 */
export function setPageSet(bank: Bank, pages: readonly Uint8Array[], zero: Uint8Array): void {
  const u8 = bank.u8;
  for (let p = 0; p < pages.length && p < bank.dirty.length; p++) {
    const page = pages[p]!;
    const start = p * PAGE_SIZE;
    if (page !== zero) { u8.set(page.subarray(0, Math.min(PAGE_SIZE, u8.length - start)), start); bank.markWritten(p); }
    else if (bank.mayBeNonZero(p)) u8.fill(0, start, Math.min(start + PAGE_SIZE, u8.length));
  }
}

/**
 * Copy `bytes` into `bank` at `offset`, marking what it writes: an all-zero page of them over a
 * page that is zero already is skipped, so loading a large, mostly untouched allocation (a
 * recorded program's launch image) commits no host memory for it.
 */
export function loadBytes(bank: Bank, bytes: Uint8Array, offset: number): void {
  for (let from = 0; from < bytes.length;) {
    const at = offset + from;
    const end = Math.min(bytes.length, from + PAGE_SIZE - (at % PAGE_SIZE)); // to the page's end
    const p = Math.floor(at / PAGE_SIZE);
    if (bank.mayBeNonZero(p) || !allZero(bytes, from, end)) {
      bank.u8.set(bytes.subarray(from, end), at);
      bank.dirty[p] = 1;
    }
    from = end;
  }
}

/** Bytes [from, end) are all zero (read by words where aligned). */
function allZero(u8: Uint8Array, from: number, end: number): boolean {
  const off = u8.byteOffset + from;
  if (off % 4 === 0 && (end - from) % 4 === 0) {
    const w = new Int32Array(u8.buffer, off, (end - from) / 4);
    for (let i = 0; i < w.length; i++) if (w[i] !== 0) return false;
    return true;
  }
  for (let i = from; i < end; i++) if (u8[i] !== 0) return false;
  return true;
}
