/**
 * Happens-before state of one CTA, as vector clocks whose entries are warp-step indices.
 *
 * Steps are a global clock: an access at step s by thread A happens before a synchronisation
 * event of A at step e iff s < e. So "thread B knows A up to step v" means every access of A
 * before step v is ordered before B's next access, and a conflict (A at s, B now) is a race
 * unless B's clock entry for A exceeds s.
 *
 * B's clock for A is the maximum of three sources, cheapest first:
 *  - `fullStep`: the step of the last barrier that every thread of the CTA passed (the common
 *    `__syncthreads()`); one number for the whole CTA, so a full barrier costs O(1);
 *  - `warpVC`: 32 entries per thread for the lanes of its own warp (`__syncwarp`);
 *  - `priv`: a dense per-thread clock, only after partial barriers (named barriers with a thread
 *    count, bar.arrive producers) or CTA-scope release/acquire. Arrays are shared between the
 *    threads of one barrier and never mutated once shared (a join builds a new one).
 *
 * The methods at the end apply barrier and __syncwarp events to these clocks.
 */
import { popc32 } from '../exec/int64.js';
import type { Cta } from '../exec/state.js';
import { Shadow } from './shadow.js';

/** One instance (between releases) of a hardware barrier of a CTA. */
export class BarrierInstance {
  active = false;
  /** Thread count given by the instruction (0 = all threads of the CTA). */
  expected = 0;
  /** Threads that arrived without waiting (bar.arrive), and the join of their clocks at arrival. */
  readonly arrivers: number[] = [];
  pend: Float64Array | null = null;
  /** Distinct global pcs the threads arrived from. */
  readonly locs: number[] = [];

  reset(): void {
    this.active = false;
    this.expected = 0;
    this.arrivers.length = 0;
    this.pend = null;
    this.locs.length = 0;
  }
}

/** What a release published at one location, for a later acquire of it. */
export interface SyncObject {
  /** Per CTA linear id: that CTA's accesses before this step are released (global memory only). */
  cross: Float64Array | null;
  /** The CTA whose thread-level clock `intra` is (a location is released by one CTA at a time). */
  ctaId: number;
  intra: Float64Array | null;
}

export class CtaSync {
  fullStep = 0;
  warpVC: Float64Array | null = null;
  readonly priv: (Float64Array | null)[];
  anyPriv = false;
  readonly bars: BarrierInstance[] = [];
  readonly shared: Shadow;
  /** Per CTA linear id: steps up to which this CTA has acquired that CTA's accesses. */
  acquired: Float64Array | null = null;
  /** Per thread: step of its last fence of any scope / of gpu-or-wider scope (0 = none). */
  lastFence: Float64Array | null = null;
  lastFenceWide: Float64Array | null = null;
  /** Per thread: the location of its last strong read (a later fence makes it an acquire); 0 = none. */
  lastStrongRead: Float64Array | null = null;
  /** Release/acquire locations in this CTA's shared memory, by word. */
  readonly syncObjs = new Map<number, SyncObject>();

  /** The CTA's linear id (the Cta object is reused for a later CTA once this one finishes). */
  readonly id: number;

  constructor(readonly cta: Cta, readonly nthreads: number, sharedBytes: number) {
    this.id = cta.id;
    this.priv = new Array<Float64Array | null>(nthreads).fill(null);
    this.shared = new Shadow(sharedBytes);
    for (let i = 0; i < 16; i++) this.bars.push(new BarrierInstance());
  }

  /** Does thread `me` (index in the CTA) know thread `other`'s access at `step`? */
  knows(me: number, other: number, step: number): boolean {
    if (this.fullStep > step) return true;
    if (this.anyPriv) {
      const p = this.priv[me];
      if (p !== null && p !== undefined && p[other]! > step) return true;
    }
    const wv = this.warpVC;
    return wv !== null && (me >>> 5) === (other >>> 5) && wv[me * 32 + (other & 31)]! > step;
  }

  /** J = max(J, clock of thread t) (the CTA-wide fullStep is common to all and left out). */
  foldInto(J: Float64Array, t: number): void {
    const p = this.priv[t];
    if (p !== null && p !== undefined) for (let i = 0; i < J.length; i++) if (p[i]! > J[i]!) J[i] = p[i]!;
    const wv = this.warpVC;
    if (wv !== null) {
      const base = (t >>> 5) * 32;
      const row = t * 32;
      for (let l = 0; l < 32 && base + l < J.length; l++) if (wv[row + l]! > J[base + l]!) J[base + l] = wv[row + l]!;
    }
  }

  ensureWarpVC(): Float64Array {
    return (this.warpVC ??= new Float64Array(Math.ceil(this.nthreads / 32) * 32 * 32));
  }

  ensureFences(): void {
    this.lastFence ??= new Float64Array(this.nthreads);
    this.lastFenceWide ??= new Float64Array(this.nthreads);
  }

  // ---- synchronisation events ------------------------------------------------------------------

  /** Lanes `mask` of the warp at `tidBase` arrive at barrier `id` from global pc `gpc`. */
  arrive(tidBase: number, mask: number, id: number, expected: number, arriveOnly: boolean, step: number, gpc: number): void {
    const bi = this.bars[id]!;
    if (!bi.active) { bi.active = true; bi.expected = expected; }
    if (!bi.locs.includes(gpc)) bi.locs.push(gpc);
    if (!arriveOnly) return; // waiting threads' clocks are taken at the release
    // producers go on running: their clocks are taken now
    const J = (bi.pend ??= new Float64Array(this.nthreads));
    for (let l = 0; l < 32; l++) {
      if (((mask >>> l) & 1) === 0) continue;
      const t = tidBase + l;
      bi.arrivers.push(t);
      this.foldInto(J, t);
      if (step > J[t]!) J[t] = step;
    }
  }

  /**
   * Barrier `id` completes at `step` (the machine calls this before releasing the waiting warps).
   * Returns the global pcs the threads waited at when that is suspicious: several distinct ones
   * for a barrier of the whole CTA (__syncthreads at different places), else an empty list.
   */
  release(id: number, step: number): number[] {
    const bi = this.bars[id]!;
    const cta = this.cta;
    let nsync = 0;
    for (const w of cta.warps) nsync += popc32(w.arrivedAt(id));
    const exited = cta.nthreads - cta.liveThreads;
    if (bi.arrivers.length === 0 && nsync + exited >= this.nthreads) {
      // every thread passed: one number orders everything before against everything after
      this.fullStep = step;
      if (this.anyPriv) { this.priv.fill(null); this.anyPriv = false; }
    } else {
      const J = bi.pend ?? new Float64Array(this.nthreads);
      const waiting: number[] = [];
      for (const w of cta.warps) {
        const arrived = w.arrivedAt(id);
        if (arrived === 0) continue;
        for (let l = 0; l < 32; l++) {
          if (((arrived >>> l) & 1) === 0) continue;
          const t = w.tidBase + l;
          waiting.push(t);
          this.foldInto(J, t);
          if (step > J[t]!) J[t] = step;
        }
      }
      for (const t of waiting) this.priv[t] = J;
      if (waiting.length) this.anyPriv = true;
    }
    const suspicious = bi.expected === 0 && bi.arrivers.length === 0 && bi.locs.length > 1 ? [...bi.locs] : [];
    bi.reset();
    return suspicious;
  }

  /** Lanes `L` (two or more) of the warp at `tidBase` execute __syncwarp together at `step`. */
  warpSync(tidBase: number, L: number, step: number): void {
    const wv = this.ensureWarpVC();
    const J = WARP_TMP;
    J.fill(0);
    let anyPriv = false;
    for (let l = 0; l < 32; l++) {
      if (((L >>> l) & 1) === 0) continue;
      const row = (tidBase + l) * 32;
      for (let k = 0; k < 32; k++) if (wv[row + k]! > J[k]!) J[k] = wv[row + k]!;
      if (this.anyPriv && this.priv[tidBase + l]) anyPriv = true;
    }
    for (let l = 0; l < 32; l++) if ((L >>> l) & 1) J[l] = step;
    for (let l = 0; l < 32; l++) if ((L >>> l) & 1) wv.set(J, (tidBase + l) * 32);
    if (anyPriv) {
      // lanes that learnt of other threads through partial barriers share that knowledge too
      const D = new Float64Array(this.nthreads);
      for (let l = 0; l < 32; l++) if ((L >>> l) & 1) this.foldInto(D, tidBase + l);
      for (let l = 0; l < 32; l++) if ((L >>> l) & 1) this.priv[tidBase + l] = D;
    }
  }
}

const WARP_TMP = new Float64Array(32);
