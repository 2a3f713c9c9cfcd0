/**
 * A thread's own timeline: the logged steps at which one thread (warp key + lane) was active,
 * with the call depth of each, derived from the step log alone. Line stepping, finish and their
 * reverse twins are searches over this array, so they cost no re-execution.
 *
 * Depth rule: after a `call`, the thread's next step at instruction 0 of a function means it
 * entered the callee; after a `ret` at depth > 1, a next step anywhere but the following
 * instruction means it returned. (A guarded-off call or ret falls through to pc + 1.)
 */
import type { StepLog, WarpKey } from '../trace/trace.js';
import { type CodeIndex, Kind } from './code-index.js';

export class ThreadTimeline {
  steps: Uint32Array;
  locs: Uint32Array;
  depth: Uint16Array;
  length = 0;

  constructor(log: StepLog, logged: number, key: WarpKey, lane: number, code: CodeIndex) {
    let cap = 1024;
    let steps = new Uint32Array(cap);
    let locs = new Uint32Array(cap);
    let n = 0;
    const bit = 1 << lane;
    for (let si = 0; si < log.nseg; si++) {
      if (log.segWarp[si] !== key) continue;
      const from = log.segStep[si]!;
      const to = si + 1 < log.nseg ? log.segStep[si + 1]! : logged;
      for (let s = from; s < to; s++) {
        if ((log.mask(s) & bit) === 0) continue;
        if (n === cap) {
          cap *= 2;
          const a = new Uint32Array(cap); a.set(steps); steps = a;
          const b = new Uint32Array(cap); b.set(locs); locs = b;
        }
        steps[n] = s;
        locs[n] = log.loc(s);
        n++;
      }
    }
    this.steps = steps;
    this.locs = locs;
    this.length = n;
    const depth = new Uint16Array(Math.max(1, n));
    let d = 1;
    for (let i = 0; i < n; i++) {
      depth[i] = d;
      if (i + 1 >= n) break;
      const g = locs[i]!;
      const next = locs[i + 1]!;
      const k = code.kind[g]!;
      if (k === Kind.Call && code.pc[next] === 0 && next !== g) d++;
      else if (k === Kind.Ret && d > 1 && next !== g + 1) d--;
    }
    this.depth = depth;
  }

  /** First index whose step is >= s (length when none). */
  indexAtOrAfter(s: number): number {
    let lo = 0, hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.steps[mid]! < s) lo = mid + 1; else hi = mid;
    }
    return lo;
  }
}
