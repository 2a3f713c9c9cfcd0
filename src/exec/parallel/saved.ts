/**
 * Device memory kept for a rerun: a launch shared among threads that stops on a fault (or the
 * step limit) is run again on one thread from the memory it started with. Only the pages that may
 * hold non-zero bytes are copied (a page never written is zero), so a large device whose memory is
 * mostly unwritten (allocated and not yet filled, the arena's spare room) costs little; on restore,
 * the pages the threads wrote that were zero before are zeroed again.
 */
import { type Bank, PAGE_SIZE } from '../memory.js';

export interface SavedBank {
  /** [first, end) page runs copied, in order. */
  readonly runs: readonly (readonly [number, number])[];
  /** Their bytes, run after run. */
  readonly bytes: Uint8Array;
}

/** Copy the pages of `bank` that may be non-zero. */
export function saveBank(bank: Bank): SavedBank {
  const runs: [number, number][] = [];
  const pages = bank.dirty.length;
  for (let p = 0; p < pages; p++) {
    if (!bank.mayBeNonZero(p)) continue;
    const last = runs[runs.length - 1];
    if (last !== undefined && last[1] === p) last[1] = p + 1;
    else runs.push([p, p + 1]);
  }
  let n = 0;
  for (const [a, b] of runs) n += byteEnd(bank, b) - (a * PAGE_SIZE);
  const bytes = new Uint8Array(n);
  let at = 0;
  for (const [a, b] of runs) {
    const part = bank.u8.subarray(a * PAGE_SIZE, byteEnd(bank, b));
    bytes.set(part, at);
    at += part.length;
  }
  return { runs, bytes };
}

/**
 * Put `saved` back into `bank`. `written`: the pages each thread may have written since (its dirty
 * flags), or undefined when some thread's are not known (then every unsaved page that may be
 * non-zero anywhere is zeroed: all of them). The pages put back or zeroed are marked dirty.
 */
export function restoreBank(bank: Bank, saved: SavedBank, written: readonly Uint8Array[] | undefined): void {
  const pages = bank.dirty.length;
  const kept = new Uint8Array(pages);
  for (const [a, b] of saved.runs) kept.fill(1, a, b);
  for (let p = 0; p < pages; p++) {
    if (kept[p] !== 0) continue;
    const touched = written === undefined || bank.mayBeNonZero(p) || written.some((d) => d[p] === 1);
    if (!touched) continue;
    bank.u8.fill(0, p * PAGE_SIZE, byteEnd(bank, p + 1));
    bank.dirty[p] = 1;
  }
  let at = 0;
  for (const [a, b] of saved.runs) {
    const len = byteEnd(bank, b) - (a * PAGE_SIZE);
    bank.u8.set(saved.bytes.subarray(at, at + len), a * PAGE_SIZE);
    bank.dirty.fill(1, a, b);
    at += len;
  }
}

/** The byte offset where page `p` starts, or the bank's end (products, not shifts: a bank may pass 2 GiB). */
function byteEnd(bank: Bank, p: number): number {
  return Math.min(bank.u8.length, p * PAGE_SIZE);
}
