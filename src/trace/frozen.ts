/**
 * A checkpoint's CTAs, warps and frames, frozen into one buffer as they are snapshotted: numbers,
 * then bytes (register files encoded, regpages.ts, and carry flags), plus by index the few objects
 * shared with other checkpoints (memory page sets, barrier arrays, function names). As objects, a
 * checkpoint's warps cost about a kilobyte of JS heap each (a snapshot object per warp and frame,
 * page arrays, a view per register page), several times the bytes they describe, and they
 * survived young-generation collections, which grew V8's young generation during a recording.
 * Thawing (at restore) makes those objects for a moment, the same values.
 */
import type { Machine } from '../exec/machine.js';
import type { Bank } from '../exec/memory.js';
import type { Cta, Frame, Warp, WarpState } from '../exec/state.js';
import type { Pages } from './pages.js';
import { encodeRegs, maxEncodedRegs } from './regpages.js';

export interface Frozen {
  /**
   * The resident CTAs' ids first (count, then ids: read without thawing), then every number, in
   * thaw's order: as int32 when every one of them is one (nearly always), else as float64.
   */
  readonly nums: Int32Array | Float64Array;
  /** Encoded register files and carry flags (of warps that have any), one after the other (every part a multiple of 4 bytes). */
  readonly bytes: Uint8Array;
  /** What the numbers name by index: page sets, barrier arrays, function names, reduction kinds (shared with other checkpoints). */
  readonly refs: readonly unknown[];
}

/** A frame as thawed: `regs` are its encoded register pages (regpages.ts). */
export interface FrameSnap {
  readonly fn: string;
  readonly regs: Uint8Array;
  /** The SIMT stack: depth entries of pc, then of reconvergence pc, then of mask. */
  readonly stack: Int32Array;
  readonly depth: number;
  readonly returned: number;
  readonly localBase: number;
  readonly callPc: number;
}

export interface WarpSnap {
  readonly id: number;
  readonly tidBase: number;
  readonly nlanes: number;
  readonly localStride: number;
  readonly local: Pages;
  readonly pc: number;
  readonly mask: number;
  readonly exited: number;
  readonly state: WarpState;
  readonly barrierId: number;
  readonly carry: Uint8Array;
  readonly sp: number;
  readonly barMask: number;
  readonly barDst: number;
  readonly barRed: Warp['barRed'];
  readonly issued: number;
  readonly spins: number;
  readonly parkedBar: number;
  readonly parkedBarId: number;
  readonly frames: readonly FrameSnap[];
  readonly pool: readonly (readonly [string, readonly FrameSnap[]])[];
}

export interface CtaSnap {
  readonly id: number;
  readonly shared: Pages;
  readonly bars: Int32Array;
  readonly liveThreads: number;
  readonly warps: readonly WarpSnap[];
}

/** The resident CTAs with their warps, and the scheduler's round over them. */
export interface Residents {
  readonly resident: readonly CtaSnap[];
  /** Warps of the current round as (resident index, warp index). */
  readonly round: readonly (readonly [number, number])[];
  readonly cur: readonly [number, number] | undefined;
}

/** What the snapshotter shares between checkpoints: a bank's page set, a CTA's barrier array. */
export interface Shared {
  pages(b: Bank): Pages;
  bars(c: Cta): Int32Array;
}

/** Carry flags of a warp that has none set (restore only reads them). */
const NO_CARRY = new Uint8Array(32);

function allZero(a: Uint8Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== 0) return false;
  return true;
}

// the numbers and bytes being written (one snapshot at a time), grown as needed and reused
const SCRATCH_KEPT = 1 << 20;
let nums = new Float64Array(1024);
let bytes = new Uint8Array(1 << 14);

/** Collects a checkpoint's numbers, bytes and references. */
class Writer {
  n = 0;
  b = 0;
  readonly refs: unknown[] = [];
  private readonly index = new Map<unknown, number>();

  num(x: number): void {
    if (this.n === nums.length) { const a = new Float64Array(2 * nums.length); a.set(nums); nums = a; }
    nums[this.n++] = x;
  }

  room(len: number): void {
    if (this.b + len <= bytes.length) return;
    let size = bytes.length;
    while (size < this.b + len) size *= 2;
    const a = new Uint8Array(size); a.set(bytes.subarray(0, this.b)); bytes = a;
  }

  ref(x: unknown): void {
    let i = this.index.get(x);
    if (i === undefined) {
      i = this.refs.length;
      this.refs.push(x);
      this.index.set(x, i);
    }
    this.num(i);
  }

  frame(f: Frame): void {
    const d = f.depth;
    this.ref(f.fn.name);
    this.num(d); this.num(f.returned); this.num(f.localBase); this.num(f.callPc);
    for (let i = 0; i < d; i++) this.num(f.spc[i]!);
    for (let i = 0; i < d; i++) this.num(f.srpc[i]!);
    for (let i = 0; i < d; i++) this.num(f.smask[i]!);
    this.room(maxEncodedRegs(f.i32));
    const end = encodeRegs(f.i32, bytes, this.b);
    this.num(end - this.b);
    this.b = end;
  }

  warp(w: Warp, shared: Shared): void {
    this.num(w.id); this.num(w.tidBase); this.num(w.nlanes); this.num(w.localStride); this.num(w.pc); this.num(w.mask); this.num(w.exited); this.num(w.state);
    this.num(w.barrierId); this.num(w.sp); this.num(w.barMask); this.num(w.barDst); this.num(w.issued); this.num(w.spins); this.num(w.parkedBar); this.num(w.parkedBarId);
    this.ref(shared.pages(w.local));
    this.ref(w.barRed);
    if (allZero(w.carry)) this.num(0);
    else {
      this.num(1);
      this.room(32);
      bytes.set(w.carry, this.b);
      this.b += 32;
    }
    this.num(w.frames.length);
    for (const f of w.frames) this.frame(f);
    this.num(w.pool.size);
    for (const [fn, fs] of w.pool) {
      this.ref(fn.name);
      this.num(fs.length);
      for (const f of fs) this.frame(f);
    }
  }

  done(): Frozen {
    // one buffer: the numbers, then the bytes (4-aligned either way)
    let int32 = true;
    for (let i = 0; i < this.n && int32; i++) { const x = nums[i]!; int32 = (x | 0) === x && !Object.is(x, -0); }
    const buf = new ArrayBuffer(this.n * (int32 ? 4 : 8) + this.b);
    const out = int32 ? new Int32Array(buf, 0, this.n) : new Float64Array(buf, 0, this.n);
    out.set(nums.subarray(0, this.n));
    const b = new Uint8Array(buf, out.byteLength, this.b);
    b.set(bytes.subarray(0, this.b));
    // a big machine's scratch is not kept for the rest of the process
    if (bytes.length > SCRATCH_KEPT) bytes = new Uint8Array(1 << 14);
    if (nums.length * 8 > SCRATCH_KEPT) nums = new Float64Array(1024);
    return { nums: out, bytes: b, refs: this.refs };
  }
}

/** The machine's resident CTAs, their warps and frames, and the scheduler's round, frozen. */
export function freeze(m: Machine, shared: Shared): Frozen {
  const out = new Writer();
  out.num(m.resident.length);
  for (const c of m.resident) out.num(c.id);
  for (const c of m.resident) {
    out.num(c.liveThreads); out.num(c.warps.length);
    out.ref(shared.pages(c.shared));
    out.ref(shared.bars(c));
    for (const w of c.warps) out.warp(w, shared);
  }
  out.num(m.round.length);
  for (const w of m.round) { out.num(m.resident.indexOf(w.cta)); out.num(w.cta.warps.indexOf(w)); }
  const cur = m.cur;
  if (cur) { out.num(1); out.num(m.resident.indexOf(cur.cta)); out.num(cur.cta.warps.indexOf(cur)); } else out.num(0);
  return out.done();
}

/** The resident CTAs' ids of a frozen checkpoint. */
export function frozenCtaIds(f: Frozen): number[] {
  const n = f.nums[0]!;
  return Array.from(f.nums.subarray(1, 1 + n));
}

/** Reads a frozen checkpoint back in freeze's order. */
class Reader {
  private i = 0;
  private b = 0;
  constructor(private readonly f: Frozen) {}

  num(): number { return this.f.nums[this.i++]!; }
  ref<T>(): T { return this.f.refs[this.num()] as T; }
  bytes(len: number): Uint8Array {
    const out = this.f.bytes.subarray(this.b, this.b + len);
    this.b += len;
    return out;
  }

  frame(): FrameSnap {
    const fn = this.ref<string>();
    const depth = this.num(), returned = this.num(), localBase = this.num(), callPc = this.num();
    const stack = new Int32Array(3 * depth);
    for (let k = 0; k < stack.length; k++) stack[k] = this.num();
    const regs = this.bytes(this.num());
    return { fn, regs, stack, depth, returned, localBase, callPc };
  }

  warp(): WarpSnap {
    const id = this.num(), tidBase = this.num(), nlanes = this.num(), localStride = this.num(), pc = this.num(), mask = this.num(), exited = this.num();
    const state = this.num() as WarpState;
    const barrierId = this.num(), sp = this.num(), barMask = this.num(), barDst = this.num(), issued = this.num(), spins = this.num(), parkedBar = this.num(), parkedBarId = this.num();
    const local = this.ref<Pages>(), barRed = this.ref<Warp['barRed']>();
    const carry = this.num() ? this.bytes(32) : NO_CARRY;
    const frames: FrameSnap[] = [];
    for (let n = this.num(); n > 0; n--) frames.push(this.frame());
    const pool: (readonly [string, readonly FrameSnap[]])[] = [];
    for (let n = this.num(); n > 0; n--) {
      const name = this.ref<string>();
      const fs: FrameSnap[] = [];
      for (let k = this.num(); k > 0; k--) fs.push(this.frame());
      pool.push([name, fs]);
    }
    return { id, tidBase, nlanes, localStride, local, pc, mask, exited, state, barrierId, carry, sp, barMask, barDst, barRed, issued, spins, parkedBar, parkedBarId, frames, pool };
  }

  all(): Residents {
    const ids: number[] = [];
    for (let n = this.num(); n > 0; n--) ids.push(this.num());
    const resident: CtaSnap[] = [];
    for (const id of ids) {
      const liveThreads = this.num(), nw = this.num();
      const shared = this.ref<Pages>(), bars = this.ref<Int32Array>();
      const warps: WarpSnap[] = [];
      for (let k = 0; k < nw; k++) warps.push(this.warp());
      resident.push({ id, shared, bars, liveThreads, warps });
    }
    const round: (readonly [number, number])[] = [];
    for (let k = this.num(); k > 0; k--) round.push([this.num(), this.num()]);
    const cur: readonly [number, number] | undefined = this.num() ? [this.num(), this.num()] : undefined;
    return { resident, round, cur };
  }
}

/** The CTAs, warps and round of a frozen checkpoint as objects. */
export function thaw(f: Frozen): Residents {
  return new Reader(f).all();
}
