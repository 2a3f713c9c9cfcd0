/**
 * step / next / finish through inlined frames, by gdb's rules (gdb manual, "Inline Functions";
 * infrun's "stepped into inlined function"): an inlined call is a frame although no call
 * instruction makes it. `next` runs through inlined code called from the line it steps; reaching
 * an inlined call on another line stops at that call site (the inlined frames hidden); `step`
 * there enters the inlined function without executing anything; `finish` runs until the inlined
 * frame is left; reverse-next passes back over an inlined call, reverse-step enters it at its
 * last line. The timeline's real call depth still rules real calls.
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

/**
 * reverse-step (`into`) / reverse-next from entry i0 (> 0) through inlined frames: to the start
 * of the current line of the current frame if inside it, else of the line before, an inlined call
 * made from that line being part of it (reverse-next) or entered at its last line (reverse-step);
 * before the frame's first line, the caller's line of the call.
 */
export function inlinePreviousLine(tl: ThreadTimeline, code: CodeIndex, i0: number, hidden: number, into: boolean): InlineLanding {
  const atEnd = i0 >= tl.length;
  const a0 = at(tl, code, atEnd ? tl.length - 1 : i0);
  const d0 = a0.depth;
  const level0 = atEnd ? 0 : (a0.chain?.frames.length ?? 0) - hidden;
  const k0 = atEnd ? [] : keys(a0.chain).slice(0, level0);
  /** The frame line at `level` of entry i when it is inside the frame with keys `k` (undefined: outside it). */
  const lineIn = (i: number, k: readonly string[], level: number): number | undefined => {
    const a = at(tl, code, i);
    if (a.depth !== d0) return undefined;
    const ki = keys(a.chain);
    if (ki.length < level || k.some((key, j) => ki[j] !== key)) return undefined;
    // reverse-step does not pass over an inlined call: it is entered at its last line
    if (into && ki.length > level) return undefined;
    return lineAtLevel(code, a, level);
  };
  /** Back from entry j to the first entry of its run of `line` at `level` (real calls inside it passed over). */
  const runStart = (j: number, k: readonly string[], level: number, line: number): number => {
    let s = j;
    for (let p = j - 1; p >= 0; p--) {
      if (tl.depth[p]! > d0) continue;
      const l = lineIn(p, k, level);
      if (l === undefined || (l !== line && l !== 0)) break;
      s = p;
    }
    return s;
  };
  const land = (s: number, level: number): InlineLanding => ({ index: s, hidden: Math.max(0, (at(tl, code, s).chain?.frames.length ?? 0) - level) });
  if (!atEnd) {
    const line0 = lineAtLevel(code, a0, level0);
    const s = runStart(i0, k0, level0, line0);
    if (s < i0) return land(s, level0);
  }
  // the entry before, in this frame or (before its first line) in its caller
  let j = i0 - 1;
  while (j > 0 && tl.depth[j]! > d0) j--;
  const aj = at(tl, code, j);
  if (aj.depth < d0) return { index: j, hidden: 0 };
  const kj = keys(aj.chain);
  let level = 0;
  while (level < kj.length && level < k0.length && kj[level] === k0[level]) level++;
  // reverse-step enters an inlined call made from that line, at its last line
  if (into && level === k0.length) level = kj.length;
  const line = lineAtLevel(code, aj, level);
  return land(runStart(j, kj.slice(0, level), level, line), level);
}
