/**
 * cp.async copies in flight, for the race checker. The machine performs a copy when it is issued
 * (a legal completion time), but the ISA only promises it complete at the issuing thread's
 * cp.async.wait_group / wait_all (or when an mbarrier tracking it completes). So until then the
 * destination bytes are written "at some unknown time": any access to them by any thread, the
 * issuing one included, is a race with the copy. When the wait retires a copy, the shadow's
 * write record is moved to the wait's step, so other threads must be ordered after the wait
 * (wait, then __syncthreads()) rather than after the issue.
 */
import type { Shadow } from './shadow.js';
import { REC, STEP } from './shadow.js';

export interface InFlight {
  /** Issuing thread (global id + 1, the shadow's encoding). */
  readonly me: number;
  readonly step: number;
  readonly gpc: number;
  /** Shared-memory word and the bytes of it the copy writes (4-bit mask). */
  readonly word: number;
  readonly mask: number;
  /** The commit group the copy belongs to (the thread's committed-group count at issue). */
  readonly group: number;
  readonly shadow: Shadow;
  readonly key: number;
}

export class AsyncCopies {
  /** In-flight copies by CTA and shared word (key: ctaId * 2^16 + word). */
  private readonly byWord = new Map<number, InFlight>();
  private readonly byThread = new Map<number, InFlight[]>();
  private readonly committed = new Map<number, number>();

  get size(): number {
    return this.byWord.size;
  }

  static key(ctaId: number, word: number): number {
    return ctaId * 65536 + word;
  }

  lookup(ctaId: number, word: number): InFlight | undefined {
    return this.byWord.get(AsyncCopies.key(ctaId, word));
  }

  issue(me: number, ctaId: number, word: number, mask: number, step: number, gpc: number, shadow: Shadow): void {
    const key = AsyncCopies.key(ctaId, word);
    const f: InFlight = { me, step, gpc, word, mask, group: this.committed.get(me) ?? 0, shadow, key };
    this.byWord.set(key, f);
    let list = this.byThread.get(me);
    if (list === undefined) this.byThread.set(me, (list = []));
    list.push(f);
  }

  commit(me: number): void {
    this.committed.set(me, (this.committed.get(me) ?? 0) + 1);
  }

  /**
   * Completes the copies of thread `me` in groups older than the newest `keep` committed ones
   * (keep < 0: every copy, committed or not) at `step`.
   */
  complete(me: number, keep: number, step: number): void {
    const list = this.byThread.get(me);
    if (list === undefined) return;
    const limit = keep < 0 ? Infinity : (this.committed.get(me) ?? 0) - keep;
    const stay: InFlight[] = [];
    for (const f of list) {
      if (f.group >= limit) { stay.push(f); continue; }
      if (this.byWord.get(f.key) === f) this.byWord.delete(f.key);
      const b = f.word * REC;
      const writes = f.shadow.writes;
      // still the last write there: it takes effect (for ordering) at the wait
      if (writes[b] === f.me) writes[b + STEP] = step;
    }
    if (stay.length === 0) this.byThread.delete(me);
    else this.byThread.set(me, stay);
  }
}
