/**
 * Where a source-line step lands, on a thread's timeline (its steps, their call depth and
 * instruction): the stepping rules alone, with no machine and no position, so they can be read
 * and tested by themselves. Session moves the trace to the step these return.
 */
import type { CodeIndex } from './code-index.js';
import type { ThreadTimeline } from './timeline.js';

/**
 * step/next forward from timeline entry i0: the first entry at a different source line (or the
 * start of the same line again, as in a loop) at the same call depth; `into` also stops in a
 * callee (after its prologue); leaving the function stops in the caller. undefined: the thread
 * has no such entry (it ends first).
 */
export function nextLineIndex(tl: ThreadTimeline, code: CodeIndex, i0: number, into: boolean): number | undefined {
  const d0 = tl.depth[i0]!;
  const line0 = code.line[tl.locs[i0]!]!;
  let entryLine = -1;
  for (let i = i0 + 1; i < tl.length; i++) {
    const d = tl.depth[i]!;
    const g = tl.locs[i]!;
    const line = code.line[g]!;
    if (d < d0) return i;
    if (d > d0) {
      // stepping into a callee stops after its prologue: the first line that is not the
      // function's own declaration line (gdb's prologue skip)
      if (!into || d !== d0 + 1) continue;
      if (code.pc[g] === 0) {
        entryLine = line;
        if (!code.hasBodyLine[code.fnIndex[g]!]) return i;
      }
      if (line !== 0 && code.lineStart[g] && line !== entryLine) return i;
      continue;
    }
    if (line === 0) continue;
    if (line !== line0 || (code.lineStart[g] && g <= tl.locs[i - 1]! && code.fnIndex[g] === code.fnIndex[tl.locs[i - 1]!])) {
      return i;
    }
  }
  return undefined;
}

/**
 * reverse-step/next from timeline entry i0 (> 0): to the beginning of the current line if we are
 * inside it, else of the previous one; a callee that ran within that line is passed over
 * (reverse-next) or entered at its last line (reverse-step).
 */
export function previousLineIndex(tl: ThreadTimeline, code: CodeIndex, i0: number, into: boolean): number {
  const atEnd = i0 >= tl.length;
  const d0 = atEnd ? tl.depth[tl.length - 1]! : tl.depth[i0]!;
  // the entry just before the current one (skipping callees for reverse-next)
  let j = i0 - 1;
  if (!into) while (j > 0 && tl.depth[j]! > d0) j--;
  // walk back to the first instruction of that run of lineJ; deeper entries are a callee that
  // ran within the line: reverse-next passes over it, reverse-step enters it (its last line)
  let start = j;
  let dj = tl.depth[j]!;
  let lineJ = code.line[tl.locs[j]!]!;
  while (!code.lineStart[tl.locs[start]!]) {
    let k = start - 1;
    if (k >= 0 && into && tl.depth[k]! > dj) { start = k; dj = tl.depth[k]!; lineJ = code.line[tl.locs[k]!]!; continue; }
    while (k >= 0 && tl.depth[k]! > dj) k--;
    if (k < 0 || tl.depth[k]! < dj || code.line[tl.locs[k]!] !== lineJ) break;
    start = k;
  }
  // a function's prologue (its declaration line at entry) is not a place to stop: go on to
  // the caller's line
  const g0 = tl.locs[start]!;
  if (code.pc[g0] === 0 && code.hasBodyLine[code.fnIndex[g0]!] && dj > 1) {
    let k = start - 1;
    while (k >= 0 && tl.depth[k]! >= dj) k--;
    if (k >= 0) {
      const dk = tl.depth[k]!;
      const lk = code.line[tl.locs[k]!]!;
      let st = k;
      while (!code.lineStart[tl.locs[st]!]) {
        let q = st - 1;
        while (q >= 0 && tl.depth[q]! > dk) q--;
        if (q < 0 || tl.depth[q]! < dk || code.line[tl.locs[q]!] !== lk) break;
        st = q;
      }
      start = st;
    }
  }
  return start;
}
