/**
 * Device memory across the launches of a whole program (#25): what global memory held at any
 * place on the program timeline, and who changed a range of it — a thread of whichever launch
 * wrote it (found by re-executing that launch, recorded on demand), the host's cudaMemcpy /
 * cudaMemset that set it (named with its host line), or a launch left unrecorded (`--record`),
 * reported as a whole. `watch`, `history` and `origin` reach across launch boundaries through
 * this module (the Engine's program block calls it); within one launch they stay the Session's
 * (watch.ts, origin.ts).
 *
 * It reads the program through `ProgramMemorySource`, made from the timeline's ProgramSource
 * (`memorySourceOf`): the memory just before each event (a launch's start image is the memory
 * before it, its end image the memory before the next event), the host events with the ranges
 * they wrote and their call sites, and each launch's Session, recorded when first asked for.
 *
 * Launches are skipped by their images: a launch whose start and end images hold the same bytes
 * on the watched range cannot have changed it, so it is not re-executed. A launch may still
 * have written the same value there; gdb's software watchpoints stop only where the value
 * changes (and ours within a launch too: StopPoints.findWatch), so comparing images is exactly
 * `watch`'s rule, not an approximation of it. `origin` follows the same rule across launches:
 * the launch that last *changed* the bytes is where their value came from.
 */
import { coordsOf } from '../../exec/launch.js';
import { GLOBAL_HI } from '../../exec/memory.js';
import { Access } from '../../exec/probe.js';
import { printName } from '../../ptx/names.js';
import { ctaOfKey, keyOf, tidOfKey, type WarpKey } from '../../trace/trace.js';
import type { Direction } from '../../trace/position.js';
import { EngineError } from '../errors.js';
import type { OriginHop } from '../origin.js';
import type { Session } from '../session.js';
import type { Dim3 } from '../types.js';
import { type AccessEvent, collectAccesses, sameBytes, type WatchTarget } from '../watch.js';
import type { ProgramSource } from './source.js';

// ---- the recording as this module reads it -----------------------------------------------------

/** A host CUDA call that wrote device memory (cudaMemcpy*, cudaMemset*, cudaMalloc's zeros). */
export interface MemoryHostEvent {
  readonly kind: 'host';
  /** Its place among the program's events (ProgramSource.events). */
  readonly index: number;
  /** The API function the program called: cudaMemcpy, cudaMemset, ... */
  readonly api: string;
  /** Its host call site as the user reads it (`offbyone.cu:40 in main`), when known. */
  readonly site: string | undefined;
  /** Launches made before it. */
  readonly after: number;
  /** The global ranges it wrote, by device offset (the low word of the address). */
  readonly writes: readonly { readonly offset: number; readonly size: number }[];
}

export interface MemoryLaunchEvent {
  readonly kind: 'launch';
  readonly index: number;
  /** Its number in the program, from 1. */
  readonly launch: number;
  /** The kernel's (mangled) PTX name. */
  readonly kernel: string;
  /** Reopenable: its threads can be re-executed. */
  readonly recorded: boolean;
}

export type MemoryEvent = MemoryHostEvent | MemoryLaunchEvent;

export interface ProgramMemorySource {
  /** The host events that wrote memory and the launches, in program order. */
  readonly events: readonly MemoryEvent[];
  /** Global bytes [offset, offset+n) just before event `index` (past the last: at the end); undefined where not recorded. */
  memoryBefore(index: number, offset: number, n: number): Uint8Array | undefined;
  /** Launch `launch`'s session, recorded on first use; undefined when it was not recorded. */
  session(launch: number): Session | undefined;
}

const WINDOW_BASE = BigInt(GLOBAL_HI) << 32n;

/** The memory view of a program's recording; `session` opens a launch (the timeline's LRU). */
export function memorySourceOf(source: ProgramSource, session: (launch: number) => Session | undefined): ProgramMemorySource {
  let launchesBefore = 0;
  const events: MemoryEvent[] = [];
  for (const e of source.events) {
    if (e.kind === 'launch') {
      launchesBefore = e.launch;
      const l = source.launches[e.launch - 1]!;
      events.push({ kind: 'launch', index: e.event, launch: e.launch, kernel: l.kernel, recorded: l.recorded });
    } else if (e.kind === 'host' && e.writes.length) {
      const writes = e.writes.map((w) => ({ offset: Number(w.address - WINDOW_BASE), size: w.size }));
      events.push({ kind: 'host', index: e.event, api: e.api, site: e.site, after: launchesBefore, writes });
    }
  }
  return {
    events,
    memoryBefore: (index, offset, n) => source.memoryAt(index, WINDOW_BASE + BigInt(offset), n),
    session: (n) => (source.launches[n - 1]?.recorded ? session(n) : undefined),
  };
}

/** A place on the program timeline: after `step` warp-steps of a launch, or just before a host event. */
export type ProgramPoint =
  | { readonly kind: 'launch'; readonly launch: number; readonly step: number }
  | { readonly kind: 'host'; readonly index: number };

/** A range of global memory by device offset (the low word of a global address). */
export interface GlobalRange {
  readonly offset: number;
  readonly size: number;
}

/** Who changed a range of global memory. */
export type ProgramWriter =
  | {
    readonly kind: 'device'; readonly launch: number; readonly kernel: string; readonly step: number;
    readonly warpKey: WarpKey; readonly lane: number; readonly block: Dim3; readonly thread: Dim3;
    readonly file: string | undefined; readonly line: number;
    readonly before: Uint8Array | undefined; readonly after: Uint8Array | undefined; readonly atomic: boolean;
  }
  | { readonly kind: 'host'; readonly event: MemoryHostEvent; readonly before: Uint8Array | undefined; readonly after: Uint8Array | undefined }
  /** A launch that changed the range as a whole: not recorded (`--record`), so no thread can be named. */
  | { readonly kind: 'launch'; readonly event: MemoryLaunchEvent; readonly before: Uint8Array | undefined; readonly after: Uint8Array | undefined };

// ---- reading ------------------------------------------------------------------------------------

const target = (r: GlobalRange): WatchTarget => ({ space: 'global', address: r.offset, size: r.size, ctaId: 0, warpKey: keyOf(0, 0), lane: 0 });

/** The index in src.events of launch `launch`'s event. */
export function launchIndex(src: ProgramMemorySource, launch: number): number {
  const i = src.events.findIndex((e) => e.kind === 'launch' && e.launch === launch);
  if (i < 0) throw new EngineError(`launch ${launch} does not exist`, 'out-of-range');
  return i;
}

/**
 * Global memory [offset, offset+n) at a point: in a launch, its Session's memory then (its start
 * and end images where the point is one of them, without recording the launch); at a host event,
 * the recording's. Undefined where the recording holds no memory.
 */
export function readGlobal(src: ProgramMemorySource, at: ProgramPoint, offset: number, n: number): Uint8Array | undefined {
  if (at.kind === 'host') return src.memoryBefore(at.index, offset, n);
  const ev = src.events[launchIndex(src, at.launch)]!;
  if (at.step === 0) return src.memoryBefore(ev.index, offset, n);
  const s = src.session(at.launch);
  if (!s) return undefined;
  if (at.step >= s.total) return src.memoryBefore(ev.index + 1, offset, n);
  const p = s.position();
  try {
    s.trace.goto(at.step);
    return s.machine.arena.bank.u8.slice(offset, offset + n);
  } finally {
    s.trace.goto(p);
  }
}

// ---- who changed it -------------------------------------------------------------------------------

/**
 * The value-changing writes to `r` in steps [from, to) of a launch, oldest first: several lanes
 * writing in one step keep the last lane's value (StopPoints.findWatch's rule), and a write that
 * leaves the bytes as they were is no change (gdb's watch).
 */
function changesIn(s: Session, ev: MemoryLaunchEvent, r: GlobalRange, from: number, to: number): ProgramWriter[] {
  if (from >= to) return [];
  const p = s.position();
  let evs: AccessEvent[];
  try {
    evs = collectAccesses(s.trace, target(r), 'write', from, to);
  } finally {
    s.trace.goto(p);
  }
  const merged: AccessEvent[] = [];
  for (const e of evs) {
    const prev = merged[merged.length - 1];
    if (prev && prev.step === e.step) merged[merged.length - 1] = { ...e, before: prev.before };
    else merged.push(e);
  }
  return merged.filter((e) => !sameBytes(e.before, e.after)).map((e) => {
    const g = s.trace.log.loc(e.step);
    return {
      kind: 'device', launch: ev.launch, kernel: ev.kernel, step: e.step, warpKey: e.warpKey, lane: e.lane,
      block: coordsOf(ctaOfKey(e.warpKey), s.launch.grid), thread: coordsOf(tidOfKey(e.warpKey, e.lane), s.launch.block),
      file: s.code.fileName(g), line: s.code.line[g] ?? 0, before: e.before, after: e.after, atomic: e.acc === Access.Atomic,
    };
  });
}

/** The changes an event made to `r` within steps [from, to) (a launch's: each thread's, or the launch as a whole), oldest first. */
function changesOf(src: ProgramMemorySource, ev: MemoryEvent, r: GlobalRange, from = 0, to = Infinity, reexecute = true): ProgramWriter[] {
  if (ev.kind === 'host') {
    if (!ev.writes.some((w) => w.offset < r.offset + r.size && r.offset < w.offset + w.size)) return [];
    const before = src.memoryBefore(ev.index, r.offset, r.size);
    const after = src.memoryBefore(ev.index + 1, r.offset, r.size);
    // bytes unknown (past a stopped recording): the call wrote them, so it counts
    return before && after && sameBytes(before, after) ? [] : [{ kind: 'host', event: ev, before, after }];
  }
  const before = src.memoryBefore(ev.index, r.offset, r.size);
  const after = src.memoryBefore(ev.index + 1, r.offset, r.size);
  if (before && after && sameBytes(before, after)) return []; // it did not change the bytes: not re-executed
  const s = ev.recorded && reexecute ? src.session(ev.launch) : undefined;
  if (!s) return [{ kind: 'launch', event: ev, before, after }];
  return changesIn(s, ev, r, from, Math.min(to, s.total));
}

/** Where a search stops: an event (index into src.events) and, in a launch, a step. */
export interface SearchLimit { readonly event: number; readonly step: number }

/**
 * The nearest change to `r` from a point, going `dir`: backward, the last change before it (in
 * its own launch first, then the events before); forward, the first at or after it. `limit`:
 * look no further than that place (a breakpoint stop already found there). Undefined: none
 * before the program's start / after its end (or the limit).
 */
export function findWriter(src: ProgramMemorySource, r: GlobalRange, from: ProgramPoint, dir: Direction, limit?: SearchLimit): ProgramWriter | undefined {
  const back = dir === 'backward';
  let i: number, step: number | undefined;
  if (from.kind === 'launch') { i = launchIndex(src, from.launch); step = from.step; }
  else {
    i = src.events.findIndex((e) => e.index >= from.index);
    if (i < 0) i = src.events.length;
    if (back) i--;
  }
  for (; i >= 0 && i < src.events.length; i += back ? -1 : 1) {
    if (limit && (back ? i < limit.event : i > limit.event)) return undefined;
    const ev = src.events[i]!;
    // the part of this launch the search covers: from the start point, up to the limit
    let lo = 0, hi = Infinity;
    if (step !== undefined) { if (back) hi = step; else lo = step; }
    if (limit && i === limit.event) { if (back) lo = Math.max(lo, limit.step); else hi = Math.min(hi, limit.step); }
    step = undefined;
    if (ev.kind === 'host' && limit && i === limit.event) return undefined;
    const found = changesOf(src, ev, r, lo, hi);
    const hit = back ? found.pop() : found[0];
    if (hit) return hit;
  }
  return undefined;
}

/** A writer's place on the timeline, for choosing the nearest of several: its event (index into src.events) and step. */
export function writerPlace(src: ProgramMemorySource, w: ProgramWriter): readonly [number, number] {
  if (w.kind === 'device') return [launchIndex(src, w.launch), w.step];
  return [src.events.indexOf(w.event), 0];
}

/** Negative, 0 or positive as place a is before, at or after b. */
export function comparePlaces(a: readonly [number, number], b: readonly [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

/**
 * `history` across launches: the changes to `r` over the whole program, oldest first (the last
 * `limit`). Which launches changed it comes from their images (no re-execution); the threads
 * are named for the last `threadsFor` of them, each re-executed (about a tenth of a second for
 * a launch of a thousand threads: naming every writer of a value that a thousand launches
 * change would take minutes); the earlier ones are listed as launches (`launch N` then `history`
 * there names their threads).
 */
export function programHistory(src: ProgramMemorySource, r: GlobalRange, limit = 1000, threadsFor = 16): ProgramWriter[] {
  const out: ProgramWriter[] = [];
  let resolved = 0;
  for (let i = src.events.length - 1; i >= 0 && out.length < limit; i--) {
    const ev = src.events[i]!;
    const found = changesOf(src, ev, r, 0, Infinity, resolved < threadsFor);
    if (ev.kind === 'launch' && found.length && found[0]!.kind === 'device') resolved++;
    out.push(...found.reverse());
  }
  return out.slice(0, limit).reverse();
}

/** Who wrote, as the user reads it: `launch 2 scale, block (1,0,0) thread (1,0,0) at offbyone.cu:21 (step 40)`, `cudaMemcpy at offbyone.cu:39 in main (host, before launch 1)`. */
export function writerText(w: ProgramWriter): string {
  switch (w.kind) {
    case 'device': {
      const at = w.file ? `${w.file.replace(/^.*[\\/]/, '')}:${w.line}` : 'an instruction without a source line';
      return `launch ${w.launch} ${printName(w.kernel)}, block (${w.block.join(',')}) thread (${w.thread.join(',')}) at ${at} (step ${w.step})`;
    }
    case 'host': return `${w.event.api} at ${w.event.site ?? 'an unknown host call site'} (host, ${w.event.after === 0 ? 'before launch 1' : `after launch ${w.event.after}`})`;
    case 'launch': return w.event.recorded
      ? `launch ${w.event.launch} ${printName(w.event.kernel)} (threads not searched)`
      : w.after === undefined
      ? `launch ${w.event.launch} ${printName(w.event.kernel)}, not recorded (the recording had stopped: what it did to memory is not known)`
      : `launch ${w.event.launch} ${printName(w.event.kernel)}, not recorded (its threads were not kept: record it to see which one)`;
  }
}

/** A watchpoint's stop across launches as gdb words it: `Hardware watchpoint 2: out[5]`, old and new value, who wrote it. */
export function watchStopText(id: number, expr: string, w: ProgramWriter, dir: Direction, format: (b: Uint8Array) => string): string {
  const fmt = (b: Uint8Array | undefined): string => (b ? format(b) : '<unavailable>');
  return `Hardware watchpoint ${id}: ${expr}\n\nOld value = ${fmt(w.before)}\nNew value = ${fmt(w.after)}\n${dir === 'backward' ? 'written by' : 'after the write by'} ${writerText(w)}`;
}

/** `history EXPR` over a program, as the user reads it. */
export function programHistoryText(expr: string, r: GlobalRange, writes: readonly ProgramWriter[], format: (b: Uint8Array) => string): string {
  const where = `global 0x${((BigInt(GLOBAL_HI) << 32n) | BigInt(r.offset)).toString(16)}`;
  if (!writes.length) return `No writes to ${expr} (${where}) in the program's recording.`;
  const fmt = (b: Uint8Array | undefined): string => (b ? format(b) : '?');
  return [`Writes to ${expr} (${where}, ${r.size} bytes) over the program:`,
    ...writes.map((w) => `  ${writerText(w)}: ${fmt(w.before)} -> ${fmt(w.after)}${w.kind === 'device' && w.atomic ? ' (atomic)' : ''}`),
    ...(writes.some((w) => w.kind === 'launch' && w.event.recorded)
      ? ['Threads are named for the last launches that changed it; `launch N` then `history` names those of an earlier one.'] : [])].join('\n');
}

// ---- origin across launches ---------------------------------------------------------------------

/**
 * `origin` of global memory `r` asked in launch `launch`, where no thread of it wrote the value
 * before the position: the last change before the launch. A device writer's session is moved to
 * the writing step with the writing thread in focus, and its hop (instruction, inputs) answers;
 * a host call or an unrecorded launch answers by itself.
 */
export function originBefore(src: ProgramMemorySource, from: ProgramPoint, r: GlobalRange): { writer: ProgramWriter; session: Session | undefined; hop: OriginHop | undefined } | undefined {
  const w = findWriter(src, r, from, 'backward');
  if (!w) return undefined;
  if (w.kind !== 'device') return { writer: w, session: undefined, hop: undefined };
  const s = src.session(w.launch)!;
  s.setFocus(w.block, w.thread);
  s.goto(w.step + 1);
  const { hop } = s.origin({ kind: 'memory', target: s.memoryTarget('global', r.offset, r.size) });
  return { writer: w, session: s, hop };
}
