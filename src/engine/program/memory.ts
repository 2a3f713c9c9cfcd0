/**
 * Device memory across the launches of a whole program (#25): what global memory held at any
 * place on the program timeline, and who changed a range of it — a thread of whichever launch
 * wrote it (found by re-executing that launch, recorded on demand), the host's cudaMemcpy /
 * cudaMemset that set it (named with its host line), or a launch left unrecorded (`--record`),
 * reported as a whole. `watch`, `history` and `origin` reach across launch boundaries through
 * this module; within one launch they stay the Session's (watch.ts, origin.ts).
 *
 * It sees the program's recording only through `ProgramMemorySource` (the engine cannot import
 * src/host): the launches' start/end images on a range, the host events with their writes and
 * call sites, and each launch's Engine, recorded when first asked for.
 *
 * Launches are skipped by their images: a launch whose start and end images hold the same bytes
 * on the watched range cannot have changed it, so it is not re-executed. A launch may still
 * have written the same value there; gdb's software watchpoints stop only where the value
 * changes (and ours within a launch too: StopPoints.findWatch), so comparing images is exactly
 * `watch`'s rule, not an approximation of it. `origin` follows the same rule across launches:
 * the launch that last *changed* the bytes is where their value came from.
 */
import { coordsOf } from '../../exec/launch.js';
import { Access } from '../../exec/probe.js';
import { plainName } from '../../ptx/names.js';
import { ctaOfKey, tidOfKey } from '../../trace/trace.js';
import type { Direction } from '../../trace/position.js';
import { type Engine, sessionOf } from '../api.js';
import { EngineError } from '../errors.js';
import { originText } from '../present/text.js';
import type { ValueHistory } from '../print/index.js';
import type { Dim3, OriginAnswer } from '../types.js';
import { type AccessEvent, collectAccesses, sameBytes, type WatchTarget } from '../watch.js';

// ---- the recording as this module needs it ----------------------------------------------------

/** Bytes a host call wrote to global memory (offsets are device offsets: address − the window base). */
export type HostBytes =
  | { readonly offset: number; readonly bytes: Uint8Array }
  | { readonly offset: number; readonly n: number; readonly fill: number };

/** A host CUDA call that changed device memory (cudaMemcpy*, cudaMemset*, cudaMalloc's zeros). */
export interface MemoryHostEvent {
  readonly kind: 'host';
  /** Its place in the recording's events (ProgramRecording.events). */
  readonly index: number;
  /** The API function the program called: cudaMemcpy, cudaMemset, ... */
  readonly api: string;
  /** Its host call site as the user reads it (`offbyone.cu:40 in main`), when known. */
  readonly site: string | undefined;
  /** Launches made before it. */
  readonly after: number;
  readonly writes: readonly HostBytes[];
}

export interface MemoryLaunchEvent {
  readonly kind: 'launch';
  readonly index: number;
  /** Its number in the program, from 1. */
  readonly launch: number;
  /** The kernel's (mangled) PTX name. */
  readonly kernel: string;
  /** Reopenable (its start image was kept): its threads can be re-executed. */
  readonly recorded: boolean;
}

export type MemoryEvent = MemoryHostEvent | MemoryLaunchEvent;

/** What memory across launches reads of the program's recording (the timeline's source adapts to it). */
export interface ProgramMemorySource {
  /** The host events and launches, in program order (the program's own output left out). */
  readonly events: readonly MemoryEvent[];
  /** Global bytes [offset, offset+n) of launch `launch`'s start or end image; undefined where not kept. */
  image(launch: number, which: 'start' | 'end', offset: number, n: number): Uint8Array | undefined;
  /** Global bytes just before recording event `index` (events.length: at the end); undefined after recording stopped. */
  memoryBefore(index: number, offset: number, n: number): Uint8Array | undefined;
  /** The engine of launch `launch`, recorded on first use; undefined when it was not recorded. */
  engine(launch: number): Engine | undefined;
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
    readonly warpKey: number; readonly lane: number; readonly block: Dim3; readonly thread: Dim3;
    readonly file: string | undefined; readonly line: number;
    readonly before: Uint8Array | undefined; readonly after: Uint8Array | undefined; readonly atomic: boolean;
  }
  | { readonly kind: 'host'; readonly event: MemoryHostEvent; readonly before: Uint8Array | undefined; readonly after: Uint8Array | undefined }
  /** A launch that changed the range as a whole: not recorded (`--record`), so no thread can be named. */
  | { readonly kind: 'launch'; readonly launch: number; readonly kernel: string; readonly before: Uint8Array | undefined; readonly after: Uint8Array | undefined };

// ---- reading ------------------------------------------------------------------------------------

const target = (r: GlobalRange): WatchTarget => ({ space: 'global', address: r.offset, size: r.size, ctaId: 0, warpKey: 0, lane: 0 });

/**
 * Global memory [offset, offset+n) at a point: in a launch, its Session's memory then (the start
 * and end images where the point is one of them, without recording the launch); at a host event,
 * the recording's. Undefined where the recording holds no memory (after it stopped, inside an
 * unrecorded launch).
 */
export function readGlobal(src: ProgramMemorySource, at: ProgramPoint, offset: number, n: number): Uint8Array | undefined {
  if (at.kind === 'host') return src.memoryBefore(at.index, offset, n);
  if (at.step === 0) {
    const ev = launchEvent(src, at.launch);
    return src.image(at.launch, 'start', offset, n) ?? src.memoryBefore(ev.index, offset, n);
  }
  const e = src.engine(at.launch);
  if (!e) return undefined;
  const s = sessionOf(e);
  if (at.step >= s.total) return src.image(at.launch, 'end', offset, n) ?? s.trace.machine.arena.bank.u8.slice(offset, offset + n);
  const p = s.position();
  try {
    s.trace.goto(at.step);
    return s.trace.machine.arena.bank.u8.slice(offset, offset + n);
  } finally {
    s.trace.goto(p);
  }
}

function launchEvent(src: ProgramMemorySource, launch: number): MemoryLaunchEvent {
  const ev = src.events.find((e): e is MemoryLaunchEvent => e.kind === 'launch' && e.launch === launch);
  if (!ev) throw new EngineError(`launch ${launch} does not exist`, 'out-of-range');
  return ev;
}

// ---- who changed it -------------------------------------------------------------------------------

/**
 * The value-changing writes to `r` in steps [from, to) of a launch, oldest first: several lanes
 * writing in one step keep the last lane's value (the rule of StopPoints.findWatch), and a write
 * that leaves the bytes as they were is no change (gdb's watch).
 */
function changesIn(e: Engine, launch: number, kernel: string, r: GlobalRange, from: number, to: number): ProgramWriter[] {
  const s = sessionOf(e);
  const p = s.position();
  let evs: AccessEvent[];
  try {
    evs = collectAccesses(s.trace, target(r), 'write', from, to);
  } finally {
    s.trace.goto(p);
  }
  const merged: AccessEvent[] = [];
  for (const ev of evs) {
    const prev = merged[merged.length - 1];
    if (prev && prev.step === ev.step) merged[merged.length - 1] = { ...ev, before: prev.before };
    else merged.push(ev);
  }
  return merged.filter((ev) => !sameBytes(ev.before, ev.after)).map((ev) => {
    const g = s.trace.log.loc(ev.step);
    return {
      kind: 'device', launch, kernel, step: ev.step, warpKey: ev.warpKey, lane: ev.lane,
      block: coordsOf(ctaOfKey(ev.warpKey), s.launch.grid), thread: coordsOf(tidOfKey(ev.warpKey, ev.lane), s.launch.block),
      file: s.code.fileName(g), line: s.code.line[g] ?? 0, before: ev.before, after: ev.after, atomic: ev.acc === Access.Atomic,
    };
  });
}

const overlaps = (w: HostBytes, r: GlobalRange): boolean => {
  const len = 'bytes' in w ? w.bytes.length : w.n;
  return w.offset < r.offset + r.size && r.offset < w.offset + len;
};

/** The changes an event made to `r` (a launch's: each thread's write, or the launch as a whole), oldest first. */
function changesOf(src: ProgramMemorySource, ev: MemoryEvent, r: GlobalRange): ProgramWriter[] {
  if (ev.kind === 'host') {
    if (!ev.writes.some((w) => overlaps(w, r))) return [];
    const before = src.memoryBefore(ev.index, r.offset, r.size);
    const after = src.memoryBefore(ev.index + 1, r.offset, r.size);
    // bytes unknown (past a stopped recording): the call wrote them, so it counts
    return before && after && sameBytes(before, after) ? [] : [{ kind: 'host', event: ev, before, after }];
  }
  const before = src.image(ev.launch, 'start', r.offset, r.size) ?? src.memoryBefore(ev.index, r.offset, r.size);
  const after = src.image(ev.launch, 'end', r.offset, r.size);
  if (before && after && sameBytes(before, after)) return []; // it did not change the bytes: not re-executed
  const e = ev.recorded ? src.engine(ev.launch) : undefined;
  if (e) {
    const found = changesIn(e, ev.launch, ev.kernel, r, 0, sessionOf(e).total);
    if (found.length) return found;
  }
  return [{ kind: 'launch', launch: ev.launch, kernel: ev.kernel, before, after }];
}

/** The index in src.events of the first event at or after a point (a launch point: its launch). */
function eventAt(src: ProgramMemorySource, at: ProgramPoint): number {
  if (at.kind === 'launch') return src.events.indexOf(launchEvent(src, at.launch));
  const i = src.events.findIndex((e) => e.index >= at.index);
  return i < 0 ? src.events.length : i;
}

/**
 * The nearest change to `r` from a point, going `dir`: backward, the last change before it (in
 * its own launch first, then the events before); forward, the first at or after it. Undefined:
 * none before the program's start / after its end.
 */
export function findWriter(src: ProgramMemorySource, r: GlobalRange, from: ProgramPoint, dir: Direction): ProgramWriter | undefined {
  let i = eventAt(src, from);
  if (from.kind === 'launch') {
    const ev = src.events[i] as MemoryLaunchEvent;
    const e = src.engine(from.launch);
    if (e) {
      const total = sessionOf(e).total;
      const found = dir === 'backward' ? changesIn(e, ev.launch, ev.kernel, r, 0, from.step) : changesIn(e, ev.launch, ev.kernel, r, from.step, total);
      const hit = dir === 'backward' ? found.pop() : found[0];
      if (hit) return hit;
    }
    i += dir === 'backward' ? -1 : 1;
  } else if (dir === 'backward') i--;
  for (; i >= 0 && i < src.events.length; i += dir === 'backward' ? -1 : 1) {
    const found = changesOf(src, src.events[i]!, r);
    const hit = dir === 'backward' ? found.pop() : found[0];
    if (hit) return hit;
  }
  return undefined;
}

/** `history` across launches: every change to `r` over the whole program, oldest first (at most `limit`, the latest). */
export function programHistory(src: ProgramMemorySource, r: GlobalRange, limit = 1000): ProgramWriter[] {
  const out = src.events.flatMap((ev) => changesOf(src, ev, r));
  return out.slice(-limit);
}

/** Where a device writer's thread sits, `launch 2 scale, block (1,0,0) thread (1,0,0) at offbyone.cu:21 (step 40)`. */
export function writerText(w: ProgramWriter): string {
  switch (w.kind) {
    case 'device': {
      const at = w.file ? `${w.file.replace(/^.*[\\/]/, '')}:${w.line}` : 'an instruction without a source line';
      return `launch ${w.launch} ${plainName(w.kernel)}, block (${w.block.join(',')}) thread (${w.thread.join(',')}) at ${at} (step ${w.step})`;
    }
    case 'host': return `${w.event.api} at ${w.event.site ?? 'an unknown host call site'} (host, ${w.event.after === 0 ? 'before launch 1' : `after launch ${w.event.after}`})`;
    case 'launch': return `launch ${w.launch} ${plainName(w.kernel)}, not recorded (its threads were not kept: record it to see which one)`;
  }
}

/**
 * A watchpoint's stop message across launches, as gdb words one (`Hardware watchpoint 2: out[5]`,
 * old and new value, then who wrote it).
 */
export function watchStopText(id: number, expr: string, w: ProgramWriter, dir: Direction, format: (b: Uint8Array) => string): string {
  const fmt = (b: Uint8Array | undefined): string => (b ? format(b) : '<unavailable>');
  return `Hardware watchpoint ${id}: ${expr}\n\nOld value = ${fmt(w.before)}\nNew value = ${fmt(w.after)}\n${dir === 'backward' ? 'written by' : 'after the write by'} ${writerText(w)}`;
}

/**
 * Travel a launch's engine to a device writer with its thread in focus: backward at the writing
 * step, forward just after it (as a watchpoint stops within a launch).
 */
export function gotoWriter(src: ProgramMemorySource, w: ProgramWriter & { kind: 'device' }, dir: Direction): Engine {
  const e = src.engine(w.launch)!;
  e.setFocus({ block: w.block, thread: w.thread });
  e.goto(e.at(dir === 'backward' ? w.step : w.step + 1));
  return e;
}

// ---- origin across launches ---------------------------------------------------------------------

/** Where a value came from, anywhere in the program. */
export type ProgramOrigin =
  | { readonly kind: 'device'; readonly launch: number; readonly engine: Engine; readonly answer: OriginAnswer }
  | { readonly kind: 'host' | 'launch'; readonly writer: ProgramWriter; readonly what: string };

/** The global range an origin question names, when it names one (`^N` of a global input, an lvalue, `@global ADDR LEN`). */
function globalRangeOf(e: Engine, expr: string): GlobalRange | undefined {
  const x = expr.trim();
  const follow = /^\^(\d+)$/.exec(x);
  if (follow) {
    const t = sessionOf(e).lastOrigin?.inputs[Number(follow[1]) - 1]?.follow;
    return t?.kind === 'memory' && t.target.space === 'global' ? { offset: t.target.address, size: t.target.size } : undefined;
  }
  const raw = /^@global\s+(0x[0-9a-f]+|\d+)(?:\s+(\d+))?$/i.exec(x);
  if (raw) return { offset: Number(BigInt(raw[1]!) & 0xffffffffn), size: raw[2] ? Number(raw[2]) : 4 };
  if (/^[$%][a-z]+\d*$/i.test(x)) return undefined;
  try {
    const v = e.evaluate(x);
    return v.lvalue?.space === 'global' ? { offset: v.lvalue.address, size: v.lvalue.size } : undefined;
  } catch (err) {
    if (err instanceof EngineError) return undefined; // Engine.origin says why
    throw err;
  }
}

/**
 * `origin EXPR` in launch `launch` at its engine's position, continued across launches: when no
 * thread of this launch wrote the value before here and it is global memory, the last change
 * before the launch answers — a thread of an earlier launch (its engine moved there, with the
 * writing thread in focus, and the hop's inputs to follow with `^N` from that launch), the host
 * call that set it, or an unrecorded launch as a whole.
 */
export function programOrigin(src: ProgramMemorySource, launch: number, expr: string, history?: ValueHistory): ProgramOrigin {
  const e = src.engine(launch);
  if (!e) throw new EngineError(`launch ${launch} was not recorded: its values have no thread to trace`, 'bad-request');
  const r = globalRangeOf(e, expr);
  try {
    return { kind: 'device', launch, engine: e, answer: e.origin(expr, history) };
  } catch (err) {
    // only "no write before here in this launch" crosses the boundary; every other refusal stands
    if (!(err instanceof EngineError) || !r || !/^No write to /.test(err.message)) throw err;
  }
  const s = sessionOf(e);
  const what = `${s.memoryName(target(r))}, ${r.size} bytes,`;
  const w = findWriter(src, r, { kind: 'launch', launch, step: 0 }, 'backward');
  if (!w) throw new EngineError(`No write to ${s.memoryName(target(r))} in the program before launch ${launch}: it holds what its allocation started with.`);
  if (w.kind !== 'device') return { kind: w.kind, writer: w, what };
  const we = src.engine(w.launch)!;
  we.setFocus({ block: w.block, thread: w.thread });
  we.goto(we.at(w.step + 1));
  return { kind: 'device', launch: w.launch, engine: we, answer: we.origin(`@global 0x${r.offset.toString(16)} ${r.size}`) };
}

/** What the user reads for a program origin: `launch 1 prefix:` and the in-launch answer, or the host call. */
export function programOriginText(o: ProgramOrigin, format?: (b: Uint8Array) => string): string {
  if (o.kind === 'device') return `In launch ${o.launch} ${plainName(sessionOf(o.engine).launch.kernel)}: ${originText(o.engine, o.answer)}`;
  const fmt = (b: Uint8Array | undefined): string => (!b ? '<unavailable>' : format ? format(b) : [...b].map((x) => x.toString(16).padStart(2, '0')).join(' '));
  return `${o.what} was last written by ${writerText(o.writer)}: ${fmt(o.writer.before)} -> ${fmt(o.writer.after)}`;
}
