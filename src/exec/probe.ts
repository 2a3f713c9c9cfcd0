/**
 * Observation hooks for tools that watch execution without changing it: the race checker,
 * watchpoints and `history`. The interpreter calls them only when `MemoryContext.probe` is set,
 * so an unprobed run pays one field test per memory access.
 */
import type { Bank, Space } from './memory.js';
import type { Cta, Warp } from './state.js';

export const enum Access {
  Read = 0,
  Write = 1,
  /** Atomic read-modify-write (atom, red). */
  Atomic = 2,
}

export interface Probe {
  /**
   * One lane's access after translation (bounds and alignment already checked), before the data
   * moves. `space` is the resolved space (never Generic); `idx` indexes `bank` (for local memory
   * it includes the lane's stride offset); `address` is the low word of the space address.
   */
  access(w: Warp, space: Space, bank: Bank, idx: number, size: number, lane: number, acc: Access, address: number): void;
  /**
   * The accesses of lanes `mask` of one warp instruction, all to `space` (global or shared, never
   * Generic), aligned and in bounds, `idx[lane]` indexing `bank`, before any data moves. Returns
   * the lanes it took, the lowest ones of `mask`: their data then moves, and the rest come again.
   * Optional; without it the probe sees each lane through `access`, interleaved with the data.
   * The interpreter uses it for its commonest loads, stores and atomics (see memops probedWarp).
   */
  accessWarp?(w: Warp, space: Space, bank: Bank, idx: Uint32Array, mask: number, size: number, acc: Access): number;
  /** Lanes `mask` of `w` arrived at barrier `id` (bar.sync / barrier.sync / bar.red / bar.arrive). */
  barrierArrive(w: Warp, id: number, mask: number, expected: number, arriveOnly: boolean): void;
  /** Barrier `id` of `cta` completed: every waiting thread is released. */
  barrierRelease(cta: Cta, id: number): void;
  /** bar.warp.sync / __syncwarp(mask) executed by lanes `active` with member mask `members`. */
  warpSync(w: Warp, active: number, members: number): void;
  /** membar / fence executed by lanes `mask`. */
  fence(w: Warp, mask: number): void;
  /**
   * cp.async bookkeeping by lanes `mask` (the copies themselves are ordinary accesses at issue):
   * AsyncEvent.Commit closes the open group; WaitGroup lets at most `n` committed groups stay in
   * flight; WaitAll (also cp.async.mbarrier.arrive) completes every copy of the lane.
   */
  asyncCopies?(w: Warp, mask: number, ev: AsyncEvent, n: number): void;
  /**
   * The probe knows CTAs by id (Cta.id), never by object, so the machine may reuse a finished
   * CTA's objects (Cta, its warps) for a later CTA while it watches; otherwise it does not.
   */
  readonly ctasById?: boolean;
  /**
   * The state spaces whose accesses the probe observes, a bit per Space (unset: all). A load of
   * one address by every lane (a kernel parameter) then takes the one-read path when its space is
   * not observed.
   */
  readonly spaces?: number;
}

export const enum AsyncEvent {
  Commit = 0,
  WaitGroup = 1,
  WaitAll = 2,
}
