/**
 * The global arena: the device's global memory, its banks and the allocations placed in them.
 */
import { Bank } from './bank.js';
import { GLOBAL_HI } from './spaces.js';

/**
 * Global memory is banks of 4 GiB (a typed array stops at 2^32 elements): arena offsets are
 * linear, bank k holding [k * BANK_BYTES, (k+1) * BANK_BYTES), whose generic addresses have the
 * high word GLOBAL_HI + k (address = window base + offset). An allocation lies in one bank.
 */
export const BANK_BYTES = 2 ** 32;

/** The arena offset of a global address by its words (high word 0: a bare bank-0 offset). */
export function globalOffset(hi: number, lo: number): number {
  return hi === 0 ? lo : (hi - GLOBAL_HI) * BANK_BYTES + lo;
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
  /** Bank 0 (high word GLOBAL_HI): the hot path's, every launch's that is not a big program's. */
  readonly bank: Bank;
  /**
   * The banks past the first (far[k], high word GLOBAL_HI + k, k ≥ 1), made when an allocation
   * first lands in one (only a program's cudaMalloc reaches them); their bytes, like bank 0's,
   * are committed in host memory only where written.
   */
  readonly far: (Bank | undefined)[] = [];
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
    if (Math.floor(base / BANK_BYTES) !== Math.floor((base + span + 255) / BANK_BYTES)) throw new Error(`allocation ${name} at offset ${base}: it would straddle two 4 GiB banks`);
    this.room(base + span + 256, Infinity);
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
      const base = placeIn(f.base, f.base + f.size, span, align);
      if (base >= 0) {
        const rest = f.base + f.size - (base + span + 256);
        const pieces = [...(base > f.base ? [{ base: f.base, size: base - f.base }] : []), ...(rest >= 256 ? [{ base: base + span + 256, size: rest }] : [])];
        this.released.splice(i, 1, ...pieces);
        // a span may lie past its bank's bytes so far (the gap left where an allocation went on to the next bank)
        this.room(base + span + 256, limit);
        return this.map(base, size, name, kind);
      }
    }
    const base = placeIn(this.top, limit, span, align);
    if (base < 0) return undefined;
    const end = base + span + 256;
    this.room(end, limit);
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

  /** Grow bank 0 (between launches only: views are replaced). */
  grow(capacity: number): void {
    if (capacity <= this.bank.size) return;
    this.bank.grow(Math.min(capacity, BANK_BYTES), true);
    this.mapTo(this.bank.size);
  }

  /** The granule map covers offsets below `end`. */
  private mapTo(end: number): void {
    if (granuleOf(end) < this.granules.length) return;
    const g = new Int32Array(granuleOf(end) + 1).fill(-1);
    g.set(this.granules);
    this.granules = g;
  }

  /**
   * Room for an allocation ending (guard included) at linear offset `end`, in one bank: its bank
   * made or grown (doubling, up to the bank's 4 GiB or `limit`), the map extended.
   */
  private room(end: number, limit: number): void {
    const k = Math.floor((end - 1) / BANK_BYTES);
    const from = k * BANK_BYTES;
    const cap = Math.min(BANK_BYTES, limit - from);
    const b = k === 0 ? this.bank : this.far[k];
    const want = Math.min(cap, Math.max(end - from, (b?.size ?? 1 << 19) * 2));
    if (k === 0) this.grow(want);
    else if (!b) this.far[k] = new Bank(want);
    else if (end - from > b.size) b.grow(want, true);
    this.mapTo(end);
  }

  /** The bank of linear offset `off` (undefined where none is made) and the index in it. */
  bankAt(off: number): { bank: Bank | undefined; at: number } {
    const k = Math.floor(off / BANK_BYTES);
    return { bank: k === 0 ? this.bank : this.far[k], at: off - k * BANK_BYTES };
  }

  /** Every bank made, with its number (bank 0 first). */
  banks(): { k: number; bank: Bank }[] {
    const out = [{ k: 0, bank: this.bank }];
    this.far.forEach((b, k) => { if (b) out.push({ k, bank: b }); });
    return out;
  }

  /** The bytes [off, off+n) of one bank (an allocation's: never across banks). */
  bytes(off: number, n: number): Uint8Array {
    const { bank, at } = this.bankAt(off);
    if (!bank || at + n > bank.size) throw new RangeError(`device offset ${off} (${n} bytes) is in no bank`);
    return bank.u8.subarray(at, at + n);
  }

  /** Mark [off, off+n) written, in its bank. */
  touch(off: number, n: number): void {
    const { bank, at } = this.bankAt(off);
    bank?.touch(at, n);
  }

  /** Zero [off, off+n) (Bank.zero: only pages ever written), in its bank. */
  zero(off: number, n: number): void {
    const { bank, at } = this.bankAt(off);
    bank?.zero(at, n);
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

  /** The allocation containing [off, off+size) at a linear offset, any bank (check() is bank 0's, the hot path), or -1. */
  checkAt(off: number, size: number): number {
    const id = this.granules[granuleOf(off)];
    if (id === undefined || id < 0) return -1;
    const a = this.allocs[id]!;
    return off + size <= a.base + a.size && off >= a.base ? id : -1;
  }

  /** The allocation containing [off, off+size) of bank 0, or -1. */
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
 * Where in [from, end) an allocation of `span` bytes and its guard granule fit, `align`-aligned
 * and inside one bank (the first bank it fits in), or -1.
 */
function placeIn(from: number, end: number, span: number, align: number): number {
  if (span + 256 > BANK_BYTES) return -1;
  let base = Math.ceil(from / align) * align;
  const bankEnd = (Math.floor(base / BANK_BYTES) + 1) * BANK_BYTES;
  if (base + span + 256 > bankEnd) base = bankEnd;
  return base + span + 256 <= end ? base : -1;
}
