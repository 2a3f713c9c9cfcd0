/**
 * The memory itself: a Bank is one ArrayBuffer with aliasing typed-array views (v86's habit), so
 * an aligned access is a single indexed load; the GlobalArena places allocations in the global
 * bank. The state spaces and the generic address map are in spaces.ts (re-exported here).
 */

export * from './spaces.js';
import type { ImageTable } from './texture/image.js';

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

export interface ArenaState {
  readonly version: number;
  readonly allocs: readonly Allocation[];
  readonly granules: Int32Array;
  readonly top: number;
  readonly heapStart: number;
  readonly heapEnd: number;
  readonly heapTop: number;
  readonly freeList: readonly { base: number; size: number }[];
}

/** One allocation in the global arena (a launch buffer, a .global variable, a malloc block). */
export interface Allocation {
  readonly id: number;
  readonly base: number;
  readonly size: number;
  readonly name: string;
  readonly kind: 'buffer' | 'global' | 'const' | 'heap';
  freed: boolean;
  /** A freed program allocation: where it was freed, in words ("by cudaFree after launch 2"). */
  freedBy?: string;
}

const GRANULE_SHIFT = 8; // 256-byte granules, like cudaMalloc alignment
const GRANULE = 1 << GRANULE_SHIFT;
/**
 * The granule of an arena offset, by division: offsets reach 2^32 (a 4 GiB device), where `>>>`
 * wraps to 0. Only check() (the hot path, offsets of an access: below 2^32) shifts.
 */
function granuleOf(off: number): number {
  return Math.floor(off / GRANULE);
}
/** Freed program memory kept unreusable (most recent first) up to this many bytes; see GlobalArena.quarantine. */
const QUARANTINE_BYTES = 64 << 20;

/**
 * The global arena: allocations at 256-byte aligned offsets with a granule → allocation map,
 * so a bounds check is two array reads. Gaps between allocations catch overruns.
 */
export class GlobalArena {
  readonly bank: Bank;
  readonly allocs: Allocation[] = [];
  private granules: Int32Array;
  private top = 256; // offset 0 stays unmapped so small garbage pointers fault
  private heapStart = 0;
  private heapEnd = 0;
  private heapTop = 0;
  private readonly freeList: { base: number; size: number }[] = [];
  /** Reusable spans of released program allocations, by address, neighbours merged (allocateBlock reuses them). */
  private readonly released: { base: number; size: number }[] = [];
  /**
   * Released spans not yet reusable, oldest first: a stale pointer into one still faults and is
   * named as the freed allocation (compute-sanitizer quarantines freed memory likewise). Past
   * QUARANTINE_BYTES, or when an allocation finds no room, the oldest become reusable.
   */
  private readonly quarantine: { base: number; size: number; id: number }[] = [];
  private quarantined = 0;
  /** Bumped by every allocation change, so checkpoints can share an unchanged allocator state. */
  version = 0;

  /** An empty arena of `capacity` bytes, or one over shared bytes (a worker's view; loadState fills the map). */
  constructor(capacity: number, shared?: SharedArrayBuffer) {
    this.bank = new Bank(capacity, shared);
    // a worker's view gets its map from loadState: not made here (64 MiB for a 4 GiB device)
    this.granules = shared ? new Int32Array(0) : new Int32Array(granuleOf(capacity) + 1).fill(-1);
  }

  allocate(size: number, name: string, kind: Allocation['kind']): Allocation {
    const base = this.top;
    const span = Math.max(256, Math.ceil(size / 256) * 256);
    if (base + span + 256 > this.bank.size) throw new Error(`global memory exhausted allocating ${name} (${size} bytes)`);
    this.top = base + span + 256; // one guard granule after each allocation
    return this.map(base, size, name, kind);
  }

  private map(base: number, size: number, name: string, kind: Allocation['kind']): Allocation {
    this.version++;
    const a: Allocation = { id: this.allocs.length, base, size, name, kind, freed: false };
    this.allocs.push(a);
    const first = granuleOf(base);
    const last = granuleOf(base + Math.max(size, 1) - 1);
    for (let g = first; g <= last; g++) this.granules[g] = a.id;
    return a;
  }

  /**
   * Place an allocation at a chosen offset (a captured program's memory is replayed at the
   * addresses it had, so pointers stored in memory stay valid). Refused when it overlaps.
   */
  allocateAt(base: number, size: number, name: string, kind: Allocation['kind']): Allocation {
    const span = Math.max(256, Math.ceil(size / 256) * 256);
    if (base < 256 || base % 256 !== 0) throw new Error(`allocation ${name} at offset ${base}: not a 256-byte aligned device offset`);
    if (base + span + 256 > this.bank.size) this.grow(base + span + 256);
    for (let g = granuleOf(base); g < granuleOf(base + span); g++) {
      if (this.granules[g] !== -1) throw new Error(`allocation ${name} at offset ${base} overlaps ${this.allocs[this.granules[g]!]!.name}`);
    }
    this.top = Math.max(this.top, base + span + 256);
    return this.map(base, size, name, kind);
  }

  /**
   * A program's allocation (cudaMalloc): first fit among released spans, else bump; `align` is
   * a power of two ≥ 256 (host-visible memory is page-aligned so the program can map it).
   * The arena grows as needed, up to `limit` bytes; with no room the quarantine is emptied
   * into the reusable spans first, so freed memory is always reusable before an allocation fails.
   */
  allocateBlock(size: number, name: string, kind: Allocation['kind'], align: number, limit: number): Allocation | undefined {
    const a = this.fit(size, name, kind, align, limit);
    if (a || this.quarantine.length === 0) return a;
    while (this.quarantine.length > 0) this.unquarantine();
    return this.fit(size, name, kind, align, limit);
  }

  private fit(size: number, name: string, kind: Allocation['kind'], align: number, limit: number): Allocation | undefined {
    const span = Math.ceil(Math.max(size, 1) / align) * align;
    for (let i = 0; i < this.released.length; i++) {
      const f = this.released[i]!;
      const base = Math.ceil(f.base / align) * align;
      if (base + span + 256 <= f.base + f.size) {
        const rest = f.base + f.size - (base + span + 256);
        const pieces = [...(base > f.base ? [{ base: f.base, size: base - f.base }] : []), ...(rest >= 256 ? [{ base: base + span + 256, size: rest }] : [])];
        this.released.splice(i, 1, ...pieces);
        return this.map(base, size, name, kind);
      }
    }
    const base = Math.ceil(this.top / align) * align;
    const end = base + span + 256;
    if (end > limit) return undefined;
    if (end > this.bank.size) this.grow(Math.min(limit, Math.max(end, this.bank.size * 2)));
    // the alignment gap below base stays reusable
    if (base - this.top >= 256) this.reuse({ base: this.top, size: base - this.top });
    this.top = end;
    return this.map(base, size, name, kind);
  }

  /** Release a program's allocation (cudaFree): stale pointers to it fault; its span is reused after the quarantine. */
  release(a: Allocation): void {
    if (a.freed) return;
    const span = this.unmap(a) + 256;
    this.quarantine.push({ base: a.base, size: span, id: a.id });
    this.quarantined += span;
    while (this.quarantined > QUARANTINE_BYTES && this.quarantine.length > 1) this.unquarantine();
  }

  /** Bytes of device memory allocations can still get (quarantined spans count: they are handed out before an allocation fails). */
  available(limit: number): number {
    let n = Math.max(0, limit - this.top);
    for (const f of this.released) n += f.size;
    return n + this.quarantined;
  }

  /**
   * The freed allocation whose quarantined span holds offset `off` (no live allocation can be
   * there): what a stale pointer points into.
   */
  freedAt(off: number): Allocation | undefined {
    for (let i = this.quarantine.length - 1; i >= 0; i--) {
      const q = this.quarantine[i]!;
      if (off >= q.base && off < q.base + q.size) return this.allocs[q.id];
    }
    return undefined;
  }

  private unquarantine(): void {
    const q = this.quarantine.shift()!;
    this.quarantined -= q.size;
    this.reuse(q);
  }

  /** Make a span reusable: merged with its neighbours, or given back to the bump top when it ends there. */
  private reuse(span: { base: number; size: number }): void {
    const r = this.released;
    let i = 0;
    while (i < r.length && r[i]!.base < span.base) i++;
    let { base, size } = span;
    if (i > 0 && r[i - 1]!.base + r[i - 1]!.size === base) { i--; base = r[i]!.base; size += r[i]!.size; r.splice(i, 1); }
    if (i < r.length && base + size === r[i]!.base) { size += r[i]!.size; r.splice(i, 1); }
    if (base + size === this.top) this.top = base;
    else r.splice(i, 0, { base, size });
  }

  /** Mark `a` freed and clear its granules; returns the bytes of granules it covered. */
  private unmap(a: Allocation): number {
    a.freed = true;
    this.version++;
    const first = granuleOf(a.base);
    const last = granuleOf(a.base + Math.max(a.size, 1) - 1);
    for (let g = first; g <= last; g++) this.granules[g] = -1;
    return (last - first + 1) * GRANULE;
  }

  /** Grow the backing store (between launches only: views are replaced). */
  grow(capacity: number): void {
    if (capacity <= this.bank.size) return;
    this.bank.grow(capacity, true);
    const g = new Int32Array(granuleOf(this.bank.size) + 1).fill(-1);
    g.set(this.granules.subarray(0, Math.min(this.granules.length, g.length)));
    this.granules = g;
  }

  /** End of the highest allocation (what a capture must hold). */
  get extent(): number { return this.top; }

  /** Reserve the device heap at a chosen offset (a captured program's heap), its blocks up to `top`. */
  reserveHeapAt(base: number, size: number, top: number): void {
    this.heapStart = base;
    this.heapEnd = base + size;
    this.heapTop = Math.max(base, top);
    if (this.heapEnd + 256 > this.bank.size) this.grow(this.heapEnd + 256);
    this.top = Math.max(this.top, this.heapEnd + 256);
  }

  /** The device heap: where it is and how far it has been used. */
  get heap(): { start: number; end: number; top: number } {
    return { start: this.heapStart, end: this.heapEnd, top: this.heapTop };
  }

  /** Reserve the device heap region for malloc. */
  reserveHeap(size: number): void {
    this.heapStart = this.top;
    this.heapTop = this.top;
    this.heapEnd = this.top + size;
    this.top = this.heapEnd + 256;
    if (this.top > this.bank.size) throw new Error('device heap does not fit in global memory');
  }

  /** Device malloc: first fit from the free list, else bump. Returns arena offset or 0. */
  malloc(size: number): number {
    const span = Math.max(16, Math.ceil(size / 16) * 16);
    for (let i = 0; i < this.freeList.length; i++) {
      const f = this.freeList[i]!;
      if (f.size >= span) {
        this.freeList.splice(i, 1);
        return this.map(f.base, size, 'malloc', 'heap').base;
      }
    }
    const base = Math.ceil(this.heapTop / 256) * 256;
    if (base + span > this.heapEnd) return 0;
    this.heapTop = base + Math.max(span, 256);
    return this.map(base, size, 'malloc', 'heap').base;
  }

  /** Device free: returns false for a pointer that is not a live heap block. */
  free(offset: number): boolean {
    const id = this.granules[granuleOf(offset)] ?? -1;
    const a = id >= 0 ? this.allocs[id] : undefined;
    if (!a || a.kind !== 'heap' || a.base !== offset || a.freed) return false;
    this.freeList.push({ base: a.base, size: this.unmap(a) });
    return true;
  }

  /**
   * The allocator's state (not the bytes), for checkpoints. `shared`: its granule map in shared
   * memory, for worker threads to read one copy (64 MiB for a 4 GiB device) instead of one each.
   */
  saveState(shared = false): ArenaState {
    const granules = shared ? new Int32Array(new SharedArrayBuffer(this.granules.byteLength)) : this.granules.slice();
    if (shared) granules.set(this.granules);
    return {
      version: this.version,
      allocs: this.allocs.map((a) => ({ ...a })),
      granules,
      top: this.top, heapStart: this.heapStart, heapEnd: this.heapEnd, heapTop: this.heapTop,
      freeList: this.freeList.map((f) => ({ ...f })),
    };
  }

  /**
   * `own`: the state is this arena's to keep (a worker's, posted to it), so its map is taken, not
   * copied (shared with the other workers, which only read it: a launch that allocates runs on one).
   */
  loadState(s: ArenaState, own = false): void {
    this.version = s.version;
    this.allocs.length = 0;
    for (const a of s.allocs) this.allocs.push({ ...a });
    this.granules = own ? s.granules : s.granules.slice();
    this.top = s.top; this.heapStart = s.heapStart; this.heapEnd = s.heapEnd; this.heapTop = s.heapTop;
    this.freeList.length = 0;
    for (const f of s.freeList) this.freeList.push({ ...f });
  }

  /** The allocation containing [off, off+size), or -1. */
  check(off: number, size: number): number {
    const id = this.granules[off >>> GRANULE_SHIFT];
    if (id === undefined || id < 0) return -1;
    const a = this.allocs[id]!;
    return off + size <= a.base + a.size && off >= a.base ? id : -1;
  }

  allocationNear(off: number): Allocation | undefined {
    let best: Allocation | undefined;
    for (const a of this.allocs) {
      if (a.freed) continue;
      if (a.base <= off && (!best || a.base > best.base)) best = a;
    }
    return best;
  }
}

/**
 * Device memory that outlives one launch: a whole program's (`ptxdbg exec`) or a captured
 * bundle's. A launch that names one runs in its arena: the module's .global variables are placed
 * there once (initialized at their first launch) and keep their values from launch to launch,
 * and its .const bank is the module's, written by the program between launches.
 */
export interface ResidentMemory {
  readonly arena: GlobalArena;
  /** Arena offset of each .global variable of the module, by name. */
  readonly globals: Map<string, number>;
  /** The module's constant bank, made at its first launch. */
  constBank: Bank | undefined;
  /** Texture and surface objects the program created (their handles outlive launches). */
  readonly images?: ImageTable;
  /** The grid-barrier workspace of its cooperative launches, made at the first. */
  gridSync?: Allocation;
  /** Regions a run reports as its outputs (`run --out`): a captured bundle's. */
  readonly outputs?: readonly Allocation[];
}
