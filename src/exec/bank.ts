/**
 * A Bank: one ArrayBuffer with aliasing typed-array views (v86's habit), so an aligned access is a
 * single indexed load, and a dirty flag per page for checkpoints.
 */

/** Pages for dirty tracking: a checkpoint copies only the pages written since the last one. */
export const PAGE_SHIFT = 12;
export const PAGE_SIZE = 1 << PAGE_SHIFT;

/** A byte array with aligned views and a dirty flag per page. */

export class Bank {
  u8!: Uint8Array;
  i8!: Int8Array;
  u16!: Uint16Array;
  i16!: Int16Array;
  u32!: Uint32Array;
  i32!: Int32Array;
  f32!: Float32Array;
  f64!: Float64Array;
  /**
   * 1 for each page written since the flags were last cleared. A fresh bank is all zeros, so its
   * pages start clean: a page never marked is known to be zero (checkpoints rely on it, so every
   * write must go through translate() or touch()).
   */
  dirty: Uint8Array;
  /**
   * Pages whose dirty flags were cleared (clearDirty) since the last reset, or whose bytes were
   * set wholesale (markAllWritten): with `dirty`, every page that may be non-zero. Undefined: none.
   */
  private written: Uint8Array | undefined = undefined;

  /**
   * A zeroed bank of `size` bytes, or a view of shared bytes (see share()). Dirty flags are each
   * bank's own even then: threads writing flags of the same pages would pass their cache lines
   * back and forth at every store (a worker reports its flags when its CTAs are done).
   */
  constructor(public size: number, shared?: SharedArrayBuffer) {
    const buf = shared ?? takeRecycled(alignUp8(size)) ?? new ArrayBuffer(alignUp8(size));
    // division, not `>>>`: a bank of 4 GiB (the global arena's largest) is past uint32
    this.dirty = new Uint8Array(Math.ceil(buf.byteLength / PAGE_SIZE));
    this.setViews(buf);
  }

  private setViews(buf: ArrayBufferLike): void {
    this.u8 = new Uint8Array(buf);
    this.i8 = new Int8Array(buf);
    this.u16 = new Uint16Array(buf);
    this.i16 = new Int16Array(buf);
    this.u32 = new Uint32Array(buf);
    this.i32 = new Int32Array(buf);
    this.f32 = new Float32Array(buf);
    this.f64 = new Float64Array(buf);
  }

  /**
   * Move the bytes into shared memory, in place (the views are replaced), so that worker threads
   * can run CTAs on the same bank (src/exec/parallel/). Shared already: nothing is copied.
   */
  share(): SharedArrayBuffer {
    const cur = this.u8.buffer;
    if (cur instanceof SharedArrayBuffer) return cur;
    const bytes = new SharedArrayBuffer(cur.byteLength);
    // only the pages that may be non-zero: a device of gigabytes is mostly never touched, and
    // copying it whole would commit all of it in host memory
    const to = new Uint8Array(bytes);
    this.forWritten((from, end) => to.set(this.u8.subarray(from, end), from));
    this.setViews(bytes);
    return bytes;
  }

  /** Calls `f` for each run of pages that may be non-zero (dirty or written), as byte ranges. */
  forWritten(f: (from: number, end: number) => void): void {
    const d = this.dirty, wr = this.written;
    for (let p = 0; p < d.length;) {
      if (d[p] === 0 && (wr === undefined || wr[p] === 0)) { p++; continue; }
      const first = p;
      while (p < d.length && (d[p] !== 0 || (wr !== undefined && wr[p] !== 0))) p++;
      f(first * PAGE_SIZE, Math.min(p * PAGE_SIZE, this.u8.length));
    }
  }

  /** Page p may hold non-zero bytes: dirty, or written before the flags were last cleared. */
  mayBeNonZero(p: number): boolean {
    return this.dirty[p] !== 0 || (this.written !== undefined && this.written[p] !== 0);
  }

  /** Page p was set without a dirty mark (a checkpoint's bytes put back): it counts as written. */
  markWritten(p: number): void {
    (this.written ??= new Uint8Array(this.dirty.length))[p] = 1;
  }

  /** Mark the pages another bank over the same bytes wrote (a worker's flags, see the constructor). */
  mergeDirty(other: Uint8Array): void {
    const d = this.dirty;
    for (let p = other.indexOf(1); p >= 0 && p < d.length; p = other.indexOf(1, p + 1)) d[p] = 1;
  }

  /** Mark bytes [idx, idx+len) written. */
  touch(idx: number, len: number): void {
    // offsets of a 4 GiB bank are uint32: `>>>` keeps them unsigned (an index is below 2^32)
    const last = (idx + Math.max(len, 1) - 1) >>> PAGE_SHIFT;
    for (let p = idx >>> PAGE_SHIFT; p <= last; p++) this.dirty[p] = 1;
  }

  /** Clear the dirty flags (a checkpoint has copied the pages), remembering the written pages for reset(). */
  clearDirty(): void {
    const d = this.dirty;
    for (let p = d.indexOf(1); p >= 0; p = d.indexOf(1, p + 1)) {
      (this.written ??= new Uint8Array(d.length))[p] = 1;
      d[p] = 0;
    }
  }

  /**
   * Pages [first, last] are saved elsewhere (ptxdbg exec's shared host memory, src/host/mapped.ts):
   * clear their dirty flags, remembering them as written, as clearDirty does for all pages.
   */
  clearDirtyPages(first: number, last: number): void {
    const d = this.dirty;
    for (let p = first; p <= last && p < d.length; p++) {
      if (d[p] === 0) continue;
      (this.written ??= new Uint8Array(d.length))[p] = 1;
      d[p] = 0;
    }
  }

  /** The bytes were set without dirty marks (a checkpoint restore): any page may be non-zero. */
  markAllWritten(): void {
    this.written = new Uint8Array(this.dirty.length).fill(1);
  }

  /**
   * Give the bytes back for a later bank of the same size (an evicted launch of the program
   * timeline, src/engine/program/timeline.ts): each visit would otherwise allocate a fresh
   * device arena of megabytes, and V8 answers that external memory with full collections of
   * the whole heap. The pages that may be non-zero are zeroed first, so a bank made from them
   * starts all zeros as a new one does. The bank is unusable afterwards (empty views).
   */
  recycle(): void {
    const buf = this.u8.buffer;
    if (!(buf instanceof ArrayBuffer) || buf.byteLength < RECYCLE_MIN) return;
    this.forWritten((from, end) => this.u8.fill(0, from, end));
    giveRecycled(buf);
    this.setViews(new ArrayBuffer(0));
    this.dirty = new Uint8Array(0);
    this.written = undefined;
    this.size = 0;
  }

  /**
   * Zero the bank for reuse (a pooled CTA's shared or local memory), as cheaply as the written
   * pages allow. A zeroed page is marked dirty: a checkpoint of this bank must not reuse its
   * previous copy of the page (see dirty).
   */
  reset(): void {
    const d = this.dirty;
    const wr = this.written;
    for (let p = 0; p < d.length; p++) {
      if (d[p] === 0 && (wr === undefined || wr[p] === 0)) continue;
      this.u8.fill(0, p * PAGE_SIZE, Math.min((p + 1) * PAGE_SIZE, this.u8.length));
      d[p] = 1;
    }
    this.written = undefined;
  }

  /**
   * Zero bytes [idx, idx+len), writing only the pages that may hold non-zero bytes: a page never
   * written is not touched, so it costs no host memory (a large allocation is committed lazily).
   */
  zero(idx: number, len: number): void {
    const wr = this.written;
    const last = Math.floor((idx + len - 1) / PAGE_SIZE);
    for (let p = Math.floor(idx / PAGE_SIZE); p <= last && len > 0; p++) {
      if (this.dirty[p] === 0 && (wr === undefined || wr[p] === 0)) continue;
      this.u8.fill(0, Math.max(idx, p * PAGE_SIZE), Math.min(idx + len, (p + 1) * PAGE_SIZE));
      this.dirty[p] = 1;
    }
  }

  /**
   * Grows in place (views replaced); contents kept, and every page counts as written, since the
   * caller may move bytes into new pages without marks (Warp.ensureLocal re-strides lanes).
   * `exact`: only the pages copied count as written (the global arena: nothing moves there, and
   * an allocation later zeroes only pages ever written, so untouched ones are never committed).
   */
  grow(newSize: number, exact = false): void {
    if (newSize <= this.size) return;
    const old = this.u8;
    const b = new Bank(newSize);
    if (!exact) b.u8.set(old);
    else {
      // only the pages that may be non-zero are copied (and count as written: their contents
      // moved); the others stay untouched in the new buffer, costing no host memory
      const wr = this.written;
      for (let p = 0; p < this.dirty.length; p++) {
        if (this.dirty[p] === 0 && (wr === undefined || wr[p] === 0)) continue;
        b.u8.set(old.subarray(p * PAGE_SIZE, Math.min(old.length, (p + 1) * PAGE_SIZE)), p * PAGE_SIZE);
        b.dirty[p] = 1;
      }
    }
    this.u8 = b.u8; this.i8 = b.i8; this.u16 = b.u16; this.i16 = b.i16;
    this.u32 = b.u32; this.i32 = b.i32; this.f32 = b.f32; this.f64 = b.f64;
    this.dirty = exact ? b.dirty : b.dirty.fill(1);
    this.written = undefined; // covered by the dirty flags
    this.size = newSize;
  }
}

/** Banks smaller than this are not worth keeping for reuse. */
const RECYCLE_MIN = 1 << 15;
/** Zeroed buffers kept for reuse (Bank.recycle), by byte length; at most RECYCLE_BYTES in all. */
const recycled = new Map<number, ArrayBuffer[]>();
const RECYCLE_BYTES = 64 * 2 ** 20;
let recycledBytes = 0;

function giveRecycled(buf: ArrayBuffer): void {
  if (recycledBytes + buf.byteLength > RECYCLE_BYTES) return;
  const list = recycled.get(buf.byteLength) ?? [];
  list.push(buf);
  recycled.set(buf.byteLength, list);
  recycledBytes += buf.byteLength;
}

function takeRecycled(bytes: number): ArrayBuffer | undefined {
  const buf = recycled.get(bytes)?.pop();
  if (buf) recycledBytes -= bytes;
  return buf;
}

function alignUp8(n: number): number {
  // arithmetic, not `& ~7`: a device of 2 GiB is past int32
  return Math.max(8, Math.ceil(n / 8) * 8);
}

