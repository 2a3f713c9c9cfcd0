/**
 * Older checkpoints' CTAs, warps and frames frozen into one buffer. As objects (checkpoint.ts) a
 * checkpoint's warps cost about a kilobyte of JS heap each — a snapshot object per warp and per
 * frame, page arrays, a view object per encoded register page — several times the bytes they
 * describe, and every one of them survives a young-generation collection, which is what makes V8
 * grow its young generation to the maximum during a recording. Frozen, they are numbers and
 * register bytes in a single ArrayBuffer, plus the few objects they share with other checkpoints
 * (memory page sets, barrier arrays, function names) by reference. Only the newest checkpoint stays
 * as objects: the next snapshot shares what did not change with it. Thawing (at restore) makes the
 * objects again, the same values.
 */
import type { CtaSnap, FrameSnap, Residents, WarpSnap } from './checkpoint.js';
import type { Pages } from './pages.js';
import { encodedPageLength } from './regpages.js';
import type { Warp } from '../exec/state.js';

export interface Frozen {
  /** The resident CTAs' ids first (count, then ids: watch.ts reads them without thawing), then every number, in thaw's order. */
  readonly nums: Float64Array;
  /** Every frame's encoded register pages, one after the other (each page a multiple of 4 bytes). */
  readonly regs: Uint8Array;
  /** What the numbers name by index: page sets, barrier arrays, carry bytes, function names, reduction kinds (shared with other checkpoints). */
  readonly refs: readonly unknown[];
}

/** Collects a checkpoint's numbers, register bytes and references. */
class Writer {
  nums: number[] = [];
  regs: Uint8Array[] = [];
  regBytes = 0;
  refs: unknown[] = [];
  private readonly index = new Map<unknown, number>();

  ref(x: unknown): void {
    let i = this.index.get(x);
    if (i === undefined) {
      i = this.refs.length;
      this.refs.push(x);
      this.index.set(x, i);
    }
    this.nums.push(i);
  }

  frame(f: FrameSnap): void {
    this.ref(f.fn);
    this.nums.push(f.depth, f.returned, f.localBase, f.callPc, f.regs.length);
    for (let i = 0; i < f.stack.length; i++) this.nums.push(f.stack[i]!);
    for (const p of f.regs) { this.regs.push(p); this.regBytes += p.byteLength; }
  }

  warp(w: WarpSnap): void {
    this.nums.push(w.id, w.tidBase, w.nlanes, w.localStride, w.pc, w.mask, w.exited, w.state, w.barrierId, w.sp, w.barMask, w.barDst, w.issued, w.spins, w.parkedBar, w.parkedBarId);
    this.ref(w.local);
    this.ref(w.carry);
    this.ref(w.barRed);
    this.nums.push(w.frames.length);
    for (const f of w.frames) this.frame(f);
    this.nums.push(w.pool.length);
    for (const [name, fs] of w.pool) {
      this.ref(name);
      this.nums.push(fs.length);
      for (const f of fs) this.frame(f);
    }
  }
}

export function freeze(r: Residents): Frozen {
  const out = new Writer();
  out.nums.push(r.resident.length);
  for (const c of r.resident) out.nums.push(c.id);
  for (const c of r.resident) {
    out.nums.push(c.liveThreads, c.warps.length);
    out.ref(c.shared);
    out.ref(c.bars);
    for (const w of c.warps) out.warp(w);
  }
  out.nums.push(r.round.length);
  for (const [a, b] of r.round) out.nums.push(a, b);
  if (r.cur) out.nums.push(1, r.cur[0], r.cur[1]); else out.nums.push(0);
  // one buffer: the numbers, then the register bytes (8-byte aligned after the numbers)
  const buf = new ArrayBuffer(out.nums.length * 8 + out.regBytes);
  const nums = new Float64Array(buf, 0, out.nums.length);
  nums.set(out.nums);
  const regs = new Uint8Array(buf, nums.byteLength, out.regBytes);
  let o = 0;
  for (const p of out.regs) { regs.set(p, o); o += p.byteLength; }
  return { nums, regs, refs: out.refs };
}

/** The resident CTAs' ids of a frozen checkpoint. */
export function frozenCtaIds(f: Frozen): number[] {
  const n = f.nums[0]!;
  return Array.from(f.nums.subarray(1, 1 + n));
}

/** Reads a frozen checkpoint back in freeze's order. */
class Reader {
  private i = 0;
  private r = 0;
  constructor(private readonly f: Frozen) {}

  num(): number { return this.f.nums[this.i++]!; }
  ref<T>(): T { return this.f.refs[this.num()] as T; }

  frame(): FrameSnap {
    const fn = this.ref<string>();
    const depth = this.num(), returned = this.num(), localBase = this.num(), callPc = this.num(), npages = this.num();
    const stack = new Int32Array(3 * depth);
    for (let k = 0; k < stack.length; k++) stack[k] = this.num();
    const regs: Uint8Array[] = [];
    for (let k = 0; k < npages; k++) {
      const len = encodedPageLength(this.f.regs, this.r);
      regs.push(this.f.regs.subarray(this.r, this.r + len));
      this.r += len;
    }
    return { fn, regs, stack, depth, returned, localBase, callPc };
  }

  warp(): WarpSnap {
    const id = this.num(), tidBase = this.num(), nlanes = this.num(), localStride = this.num(), pc = this.num(), mask = this.num(), exited = this.num();
    const state = this.num() as WarpSnap['state'];
    const barrierId = this.num(), sp = this.num(), barMask = this.num(), barDst = this.num(), issued = this.num(), spins = this.num(), parkedBar = this.num(), parkedBarId = this.num();
    const local = this.ref<Pages>(), carry = this.ref<Uint8Array>(), barRed = this.ref<Warp['barRed']>();
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
    const n = this.num();
    const ids: number[] = [];
    for (let k = 0; k < n; k++) ids.push(this.num());
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

/** The CTAs, warps and round of a frozen checkpoint as objects again. */
export function thaw(f: Frozen): Residents {
  return new Reader(f).all();
}
