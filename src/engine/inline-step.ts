/**
 * step / next / finish through inlined frames, by gdb's rules (gdb manual, "Inline Functions";
 * infrun's "stepped into inlined function"): an inlined call is a frame although no call
 * instruction makes it. `next` runs through inlined code called from the line it steps; reaching
 * an inlined call on another line stops at that call site (the inlined frames hidden); `step`
 * there enters the inlined function without executing anything; `finish` runs until the inlined
 * frame is left. Only the forward direction; the timeline's real call depth still rules calls.
 */
import type { CodeIndex } from './code-index.js';
import { inlineChain, outerKeys, type InlineChain } from './inlined.js';
import type { ThreadTimeline } from './timeline.js';

/** Where a move lands: the timeline entry and the inlined frames hidden there. */
export interface InlineLanding { readonly index: number; readonly hidden: number }

interface At { readonly depth: number; readonly chain: InlineChain | undefined; readonly g: number }

function at(tl: ThreadTimeline, code: CodeIndex, i: number): At {
  const g = tl.locs[i]!;
  return { depth: tl.depth[i]!, g, chain: inlineChain(code.machine.program, code.functions[code.fnIndex[g]!]!, code.pc[g]!) };
}

const keys = outerKeys;

/** The line of the frame `level` levels inside the real function (0 = the real function). */
function lineAtLevel(code: CodeIndex, a: At, level: number): number {
  const n = a.chain?.frames.length ?? 0;
  if (level === 0) return n ? a.chain!.outer.line : code.line[a.g]!;
  return a.chain!.frames[n - level]!.line;
}

/** Does the function at entry i0 have inlined code there or anywhere near (a cheap test for the old rules)? */
export function involvesInlining(tl: ThreadTimeline, code: CodeIndex, i0: number, hidden: number): boolean {
  if (hidden > 0) return true;
  const a = at(tl, code, i0);
  if (a.chain) return true;
  const fn = code.functions[code.fnIndex[a.g]!]!;
  for (let pc = 0; pc < fn.instrs.length; pc++) if (inlineChain(code.machine.program, fn, pc)) return true;
  return false;
}

/**
 * step (`into`) / next forward from entry i0 whose innermost `hidden` inlined frames are hidden.
 * undefined: the thread ends first.
 */
export function inlineNextLine(tl: ThreadTimeline, code: CodeIndex, i0: number, hidden: number, into: boolean): InlineLanding | undefined {
  const a0 = at(tl, code, i0);
  const n0 = a0.chain?.frames.length ?? 0;
  // `step` at a hidden inlined call enters it, executing nothing
  if (into && hidden > 0) return { index: i0, hidden: hidden - 1 };
  const level = n0 - hidden;
  const k0 = keys(a0.chain).slice(0, level);
  const line0 = lineAtLevel(code, a0, level);
  let prevG = a0.g;
  for (let i = i0 + 1; i < tl.length; i++) {
    const a = at(tl, code, i);
    const g = a.g;
    if (a.depth < a0.depth) return { index: i, hidden: 0 };
    if (a.depth > a0.depth) {
      // a real call: `step` stops at the callee's first line after its declaration line
      if (into && a.depth === a0.depth + 1 && code.pc[g] !== 0 && code.lineStart[g] && code.line[g] !== 0) return { index: i, hidden: 0 };
      continue;
    }
    const k = keys(a.chain);
    const n = k.length;
    // left the current inlined frame: back in its caller
    if (n < level || k0.some((key, j) => k[j] !== key)) return { index: i, hidden: fresh(k, k0) };
    const line = lineAtLevel(code, a, level);
    if (n > level) {
      // inside an inlined call made from this frame: from another line, stop at the call site;
      // from this line, `next` runs through it and `step` enters it
      if (line !== line0 && line !== 0) return { index: i, hidden: n - level };
      if (into) return { index: i, hidden: n - level - 1 };
      continue;
    }
    if (line === 0) continue;
    if (line !== line0 || (n === 0 && code.lineStart[g] && g <= prevG)) return { index: i, hidden: 0 };
    prevG = g;
  }
  return undefined;
}

/** Frames of `k` beyond what it shares with `k0`: inlined calls that begin there, hidden at a stop (gdb). */
export function fresh(k: readonly string[], k0: readonly string[]): number {
  let same = 0;
  while (same < k.length && same < k0.length && k[same] === k0[same]) same++;
  return k.length - same;
}

/**
 * finish out of an inlined frame: the first entry after it is left, with the inlined calls that
 * begin there hidden; index tl.length: the thread ends first. undefined: not in an inlined frame.
 */
export function inlineFinish(tl: ThreadTimeline, code: CodeIndex, i0: number, hidden: number, selected = 0): InlineLanding | undefined {
  const a0 = at(tl, code, i0);
  // the selected frame (`up` then `finish` leaves the caller), as gdb finishes the selected frame
  const level = (a0.chain?.frames.length ?? 0) - hidden - selected;
  if (level <= 0) return undefined;
  const k0 = keys(a0.chain).slice(0, level);
  for (let i = i0 + 1; i < tl.length; i++) {
    const a = at(tl, code, i);
    if (a.depth < a0.depth) return { index: i, hidden: 0 };
    if (a.depth > a0.depth) continue;
    const k = keys(a.chain);
    if (k.length < level || k0.some((key, j) => k[j] !== key)) return { index: i, hidden: fresh(k, k0) };
  }
  return { index: tl.length, hidden: 0 };
}
