/**
 * Release/acquire through memory locations: what orders accesses of different CTAs (and, at CTA
 * scope, threads of one CTA outside barriers).
 *
 * A release by thread t is an atomic-class write with .release/.acq_rel semantics, or any
 * atomic-class write after a fence by t (the fence is then the release point). An acquire is an
 * atomic-class read with .acquire/.acq_rel, an atomic read-modify-write (the lock idiom, and the
 * `__threadfence(); atomicInc()` last-block idiom), or a fence after an atomic-class
 * read (the read's location is remembered per thread). The location keeps the join of what was
 * released there (a release sequence of RMWs accumulates), per CTA for other CTAs and as a thread
 * clock for the releasing CTA. Across CTAs the knowledge is kept per CTA, not per thread: coarse,
 * so it can only hide races, never invent them.
 */
import { Access } from '../exec/probe.js';
import * as I from './instr.js';
import type { CtaSync, SyncObject } from './sync.js';

const F_RELEASE = I.F_RELEASE, F_ACQUIRE = I.F_ACQUIRE, F_SCOPE_CTA = I.F_SCOPE_CTA;

export class ReleaseAcquire {
  /** Release locations in global memory, by word. */
  private readonly globalSync = new Map<number, SyncObject>();
  /** Locations ever released (global or shared): until one is, an acquire has nothing to look up. */
  private released = 0;

  constructor(private readonly nthreads: number, private readonly nctas: number) {}

  /** An atomic-class access of `word` in space `sp` (0 global, 1 shared) by thread `t` of `cs`. */
  atomic(cs: CtaSync, t: number, sp: number, word: number, step: number, fl: number, acc: Access): void {
    const fence = cs.lastFence !== null ? cs.lastFence[t]! : 0;
    const fenceWide = cs.lastFenceWide !== null ? cs.lastFenceWide[t]! : 0;
    if (acc !== Access.Read) {
      const own = (fl & F_RELEASE) !== 0 ? step : 0;
      const relIntra = Math.max(own, fence);
      const relCross = sp === 0 && (fl & F_SCOPE_CTA) === 0 ? Math.max(own, fenceWide) : 0;
      if (relIntra > 0 || relCross > 0) this.publish(this.location(cs, sp, word, true)!, cs, t, relIntra, relCross);
    }
    if (acc !== Access.Write) {
      // an atomic read-modify-write of a released location acquires it too, fenced or not: the
      // lock idiom (`while (atomicCAS(lock, 0, 1)) {}` ... `__threadfence(); atomicExch(lock, 0)`)
      // orders each critical section after the previous holder's, including between lanes of
      // one warp under independent thread scheduling (coarse: it can only hide races)
      if (this.released !== 0 && ((fl & F_ACQUIRE) !== 0 || acc === Access.Atomic)) {
        const o = this.location(cs, sp, word, false);
        if (o !== undefined) this.acquire(o, cs, t);
      }
      (cs.lastStrongRead ??= new Float64Array(this.nthreads))[t] = sp === 0 ? word + 1 : -(word + 1);
    }
  }

  /**
   * The strong reads of `cs`'s threads when `atomic` for an instruction with flags `fl` would do
   * nothing else (no location released yet, no fence in the CTA, no .release): the caller then
   * notes each lane's read there itself (see lastStrongRead); else null.
   */
  quietReads(cs: CtaSync, fl: number): Float64Array | null {
    if (this.released !== 0 || cs.lastFence !== null || (fl & F_RELEASE) !== 0) return null;
    return (cs.lastStrongRead ??= new Float64Array(this.nthreads));
  }

  /** A fence by thread `t` at `step`; `wide` when its scope reaches other CTAs. */
  fence(cs: CtaSync, t: number, step: number, wide: boolean): void {
    cs.ensureFences();
    cs.lastFence![t] = step;
    if (wide) cs.lastFenceWide![t] = step;
    // a fence after a strong read acquires what that read's location released
    const key = cs.lastStrongRead !== null ? cs.lastStrongRead[t]! : 0;
    if (key !== 0 && this.released !== 0) {
      const o = key > 0 ? this.globalSync.get(key - 1) : cs.syncObjs.get(-key - 1);
      if (o !== undefined) this.acquire(o, cs, t);
    }
  }

  private location(cs: CtaSync, sp: number, word: number, create: boolean): SyncObject | undefined {
    const map = sp === 0 ? this.globalSync : cs.syncObjs;
    let o = map.get(word);
    if (o === undefined && create) {
      o = { cross: null, ctaId: -1, intra: null };
      map.set(word, o);
      this.released++;
    }
    return o;
  }

  private publish(o: SyncObject, cs: CtaSync, t: number, relIntra: number, relCross: number): void {
    if (relCross > 0) {
      const c = (o.cross ??= new Float64Array(this.nctas));
      const id = cs.id;
      if (relCross > c[id]!) c[id] = relCross;
      const acq = cs.acquired; // what this CTA acquired is released onward (transitivity)
      if (acq !== null) for (let i = 0; i < c.length; i++) if (acq[i]! > c[i]!) c[i] = acq[i]!;
    }
    if (relIntra > 0) {
      if (o.ctaId !== cs.id || o.intra === null) {
        o.ctaId = cs.id;
        o.intra = new Float64Array(this.nthreads);
      }
      cs.foldInto(o.intra, t);
      if (relIntra > o.intra[t]!) o.intra[t] = relIntra;
    }
  }

  private acquire(o: SyncObject, cs: CtaSync, t: number): void {
    if (o.cross !== null) {
      const acq = (cs.acquired ??= new Float64Array(this.nctas));
      const c = o.cross;
      for (let i = 0; i < c.length; i++) if (c[i]! > acq[i]!) acq[i] = c[i]!;
    }
    if (o.intra !== null && o.ctaId === cs.id) {
      // thread clocks may be shared between threads: join into a fresh array
      const old = cs.priv[t];
      const np = old ? old.slice() : new Float64Array(this.nthreads);
      const src = o.intra;
      for (let i = 0; i < np.length; i++) if (src[i]! > np[i]!) np[i] = src[i]!;
      cs.priv[t] = np;
      cs.anyPriv = true;
    }
  }
}
