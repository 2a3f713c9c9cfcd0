/**
 * Breakpoints and watchpoints of a session, and the search for their next hit in either
 * direction: breakpoints from the step log alone (instruction, active mask, thread condition,
 * hit count), watchpoints by replaying intervals outward from the position (watch.ts).
 */
import type { Direction } from '../trace/position.js';
import { coordsOf, type Launch } from '../exec/launch.js';
import { lowestLane } from '../exec/int64.js';
import { Access } from '../exec/probe.js';
import { ctaOfKey, tidOfKey, type Trace, type WarpKey } from '../trace/trace.js';
import { BreakpointError, conditionHolds, type Condition, hitCountHolds, type HitCondition, parseCondition, resolveSpec, siteLine } from './breakpoints.js';
import type { CodeIndex } from './code-index.js';
import { EngineError } from './errors.js';
import type { BreakpointInfo, Dim3, WatchKind, WatchpointInfo } from './types.js';
import { collectAccesses, sameBytes, type AccessEvent, type WatchTarget } from './watch.js';

export interface Bp extends BreakpointInfo {
  readonly globals: Set<number>;
  /** Changed by gdb's `condition N [EXPR]` (with `spec`, which shows the `if` part). */
  cond: Condition | undefined;
  spec: string;
  condition: BreakpointInfo['condition'];
  readonly temporary: boolean;
  readonly hitCond: HitCondition | undefined;
  /** Steps of every hit in the recording, oldest first (computed on first need, for hit counts). */
  allHits: number[] | undefined;
  /** Hits still to pass over (gdb's `ignore N COUNT`, `continue N`). */
  ignore: number;
  /** Per location: innermost inlined frames hidden when it is hit (a call site's line, breakpoints.ts). */
  readonly hide?: ReadonlyMap<number, number>;
}

export interface Wp extends WatchpointInfo {
  readonly target: WatchTarget;
  /** Renders the watched bytes in the expression's type. */
  readonly format: (b: Uint8Array) => string;
}

/**
 * A breakpoint hit: the step, the breakpoint, and the warp and lane that hit it. `error`: its
 * condition could not be evaluated there (gdb stops and says why).
 */
export interface BreakpointHit { readonly step: number; readonly bp: Bp; readonly key: WarpKey; readonly lane: number; readonly error?: string }

/** One thread (warp key and lane): stepping commands stop only at its own hits on the way. */
export interface OnlyThread { readonly key: WarpKey; readonly lane: number }

/** A watchpoint trigger: the access and the watchpoint; `also`: other watchpoints the same step triggered. */
export interface WatchHit { readonly ev: AccessEvent; readonly wp: Wp; also?: WatchHit[] }

export class StopPoints {
  readonly bps: Bp[] = [];
  readonly wps: Wp[] = [];
  private nextId = 1;
  /** Where ids come from instead of nextId (a program's launches share one numbering, program/timeline.ts). */
  idSource: (() => number) | undefined;
  /**
   * Evaluates an expression condition for one thread at a step (the session moves the machine
   * there and evaluates with the program's DWARF): whether it holds, or the message of why it
   * could not be evaluated there (gdb then stops: `Error in testing condition ...`).
   */
  conditionAt: ((expr: string, step: number, key: WarpKey, lane: number) => boolean | string) | undefined;
  /** Throws (a located message) when a condition expression does not parse: checked at `break ... if` / `condition`. */
  checkCondition: ((expr: string) => void) | undefined;

  /**
   * The program's brkpt instructions, each an implicit breakpoint (id 0, not listed or deletable):
   * continue stops where a thread executes one, as cuda-gdb does, and continue again passes it.
   * A guarded `@%p brkpt` holds for the lanes whose guard does (an expression condition).
   */
  readonly brkpts: Bp[] = [];

  constructor(private trace: Trace, private code: CodeIndex, private readonly ptxText: string, private readonly launch: Launch) {
    code.functions.forEach((prog, fi) => {
      prog.instrs.forEach((ins, pc) => {
        if (ins.opcode !== 'brkpt') return;
        const g = code.bases[fi]! + pc;
        const cond = ins.guard ? { tid: [], bid: [], expr: `${ins.guard.negate ? '!' : ''}${ins.guard.reg.name}` } : undefined;
        this.brkpts.push({
          id: 0, spec: 'brkpt', enabled: true, condition: undefined, hits: 0, globals: new Set([g]), cond, temporary: false,
          hitCond: undefined, allHits: undefined, ignore: 0,
          locations: [{ function: prog.name, pc, file: code.fileName(g), line: code.line[g]! }],
        });
      });
    });
  }

  /**
   * Search another recording of the same program and launch from now on (a what-if timeline,
   * src/engine/whatif): hits cached from the previous one are dropped.
   */
  rebind(trace: Trace, code: CodeIndex, conditionAt: StopPoints['conditionAt']): void {
    this.trace = trace;
    this.code = code;
    this.conditionAt = conditionAt;
    for (const b of this.bps) b.allHits = undefined;
  }

  /** The next breakpoint/watchpoint number (shared with the session's value watchpoints). */
  newId(): number {
    return this.idSource ? this.idSource() : this.nextId++;
  }

  /** gdb's `ignore N COUNT`: pass over the next COUNT hits of breakpoint N. */
  ignoreBreakpoint(id: number, count: number): void {
    const b = this.bps.find((x) => x.id === id);
    if (!b) throw new EngineError(`No breakpoint number ${id}.`, 'no-such-breakpoint');
    if (!Number.isInteger(count) || count < 0) throw new EngineError('ignore: the count must be a non-negative integer', 'bad-request');
    b.ignore = count;
  }

  /** Remove a breakpoint (a temporary one after its hit). */
  remove(bp: Bp): void {
    const i = this.bps.indexOf(bp);
    if (i >= 0) this.bps.splice(i, 1);
  }

  addBreakpoint(text: string, current: { file: string | undefined; fn: string }, temporary = false, hitCondition?: HitCondition): BreakpointInfo {
    let r;
    try {
      r = resolveSpec(text, this.code, this.ptxText, current);
    } catch (e) {
      if (e instanceof BreakpointError) throw new EngineError(e.message, 'bad-breakpoint');
      throw e;
    }
    if (r.condition?.expr !== undefined) this.checkExpr(r.condition.expr);
    const locations = r.globals.map((g) => ({ function: this.code.fnName(g), pc: this.code.pc[g]!, ...siteLine(this.code, g, r.hide.get(g) ?? 0) }));
    const bp: Bp = {
      id: this.newId(), spec: r.spec, enabled: true, condition: r.condition ? { block: r.condition.block, thread: r.condition.thread } : undefined,
      locations, hits: 0, globals: new Set(r.globals), cond: r.condition, temporary, hitCond: hitCondition, allHits: undefined, ignore: 0, hide: r.hide,
    };
    this.bps.push(bp);
    return bp;
  }

  private checkExpr(expr: string): void {
    try {
      this.checkCondition?.(expr);
    } catch (e) {
      if (e instanceof EngineError) throw new EngineError(e.message, 'bad-breakpoint');
      throw e;
    }
  }

  /**
   * gdb's `condition N EXPR` (replaces the condition; one that does not parse changes nothing)
   * and `condition N` (removes it). Returns gdb's reply ('' when it prints nothing).
   */
  setCondition(id: number, text: string | undefined): string {
    const b = this.bps.find((x) => x.id === id);
    if (!b) {
      if (this.wps.some((w) => w.id === id)) throw new EngineError(`Conditions on watchpoints are not supported: watchpoint ${id} stops on every change.`, 'bad-breakpoint');
      throw new EngineError(`No breakpoint number ${id}.`, 'no-such-breakpoint');
    }
    const location = b.spec.replace(/\s+if(\s.*|$)/s, '');
    if (text === undefined || !text.trim()) {
      b.cond = undefined;
      b.condition = undefined;
      b.spec = location;
      b.allHits = undefined;
      return `Breakpoint ${id} now unconditional.`;
    }
    let c: Condition;
    try {
      c = parseCondition(text);
    } catch (e) {
      if (e instanceof BreakpointError) throw new EngineError(e.message, 'bad-breakpoint');
      throw e;
    }
    if (c.expr !== undefined) this.checkExpr(c.expr);
    b.cond = c;
    b.condition = { block: c.block, thread: c.thread };
    b.spec = `${location} if ${text.trim()}`;
    b.allHits = undefined;
    return '';
  }

  /** gdb's `clear`: delete the breakpoints at any of `globals`; gdb's reply names them. */
  clear(globals: readonly number[], spec: string): string {
    const gone = this.bps.filter((b) => globals.some((g) => b.globals.has(g)));
    if (!gone.length) throw new EngineError(`No breakpoint at ${spec}.`, 'no-such-breakpoint');
    for (const b of gone) this.remove(b);
    return `Deleted breakpoint${gone.length === 1 ? '' : 's'} ${gone.map((b) => b.id).join(' ')}`;
  }

  delete(id: number | undefined): string {
    if (id === undefined) {
      const n = this.bps.length, k = this.wps.length;
      this.bps.length = 0; this.wps.length = 0;
      return `Deleted ${n} breakpoint${n === 1 ? '' : 's'} and ${k} watchpoint${k === 1 ? '' : 's'}.`;
    }
    const i = this.bps.findIndex((b) => b.id === id);
    if (i >= 0) { this.bps.splice(i, 1); return `Deleted breakpoint ${id}.`; }
    const j = this.wps.findIndex((w) => w.id === id);
    if (j >= 0) { this.wps.splice(j, 1); return `Deleted watchpoint ${id}.`; }
    throw new EngineError(`No breakpoint number ${id}.`, 'no-such-breakpoint');
  }

  enable(id: number, on: boolean): void {
    const b = this.bps.find((x) => x.id === id) ?? this.wps.find((x) => x.id === id);
    if (!b) throw new EngineError(`No breakpoint number ${id}.`, 'no-such-breakpoint');
    b.enabled = on;
  }

  /** Watch `target` (its block and thread named for shared and local memory). */
  addWatchpoint(expr: string, kind: WatchKind, target: WatchTarget, block: Dim3 | undefined, thread: Dim3 | undefined, format: (b: Uint8Array) => string): WatchpointInfo {
    const { space, address, size } = target;
    if (size <= 0 || size > 4096) throw new EngineError(`cannot watch ${size} bytes (1..4096)`, 'bad-watch');
    const wp: Wp = {
      id: this.newId(), expr, kind, space, address, size, block, thread, target, format,
      enabled: true, hits: 0,
    };
    this.wps.push(wp);
    return wp;
  }

  /**
   * Does step `s` of warp `key` with active `mask` hit breakpoint bp? Returns the lane (lowest),
   * or -1. Coordinate conditions are answered from the log; an expression condition is evaluated
   * for each remaining lane at that step.
   */
  private hitLane(bp: Bp, s: number, key: WarpKey, mask: number): number {
    return this.hitLaneOrError(bp, s, key, mask).lane;
  }

  /** hitLane, with the message of a condition that could not be evaluated for the lane it names. */
  private hitLaneOrError(bp: Bp, s: number, key: WarpKey, mask: number): { lane: number; error?: string } {
    if (!bp.cond) return { lane: lowestLane(mask) };
    const block = coordsOf(ctaOfKey(key), this.launch.grid);
    let lanes = 0;
    for (let l = 0; l < 32; l++) {
      if (!((mask >>> l) & 1)) continue;
      if (conditionHolds(bp.cond, block, coordsOf(tidOfKey(key, l), this.launch.block))) lanes |= 1 << l;
    }
    if (lanes === 0) return { lane: -1 };
    const expr = bp.cond.expr;
    if (expr === undefined) return { lane: lowestLane(lanes) };
    for (let l = 0; l < 32; l++) {
      if (!((lanes >>> l) & 1)) continue;
      const r = this.conditionAt?.(expr, s, key, l);
      if (typeof r === 'string') return { lane: l, error: r };
      if (r) return { lane: l };
    }
    return { lane: -1 };
  }

  /** First (forward) or last (reverse) breakpoint hit strictly after / before position p. */
  findBreakpoint(p: number, dir: Direction, limit: number, inclusive = false, only?: OnlyThread): BreakpointHit | undefined {
    const reverse = dir === 'backward';
    const active = this.bps.filter((b) => b.enabled).concat(this.brkpts);
    if (!active.length) return undefined;
    const log = this.trace.log;
    const any = new Uint8Array(this.code.line.length);
    for (const b of active) for (const g of b.globals) any[g] = 1;
    const end = this.trace.logged;
    const scan = (from: number, to: number, last: boolean): BreakpointHit | undefined => {
      let found: BreakpointHit | undefined;
      if (from >= to) return undefined;
      let seg = log.segmentOf(from);
      for (let s = from; s < to; s++) {
        while (seg + 1 < log.nseg && log.segStep[seg + 1]! <= s) seg++;
        if (!any[log.loc(s)]) continue;
        const r = this.matchAt(active, s, log.warpOfSegment(seg), only);
        if (r) { found = r; if (!last) return r; }
      }
      return found;
    };
    if (!reverse) return scan(inclusive ? p : p + 1, Math.min(end, limit), false);
    const lo = Math.max(0, limit);
    const hi = Math.min(p, end);
    if (!active.some((b) => b.cond?.expr !== undefined)) {
      // from the log alone: walk backward
      let seg = log.segmentOf(Math.max(0, hi - 1));
      for (let s = hi - 1; s >= lo; s--) {
        while (seg > 0 && log.segStep[seg]! > s) seg--;
        if (!any[log.loc(s)]) continue;
        const r = this.matchAt(active, s, log.warpOfSegment(seg), only);
        if (r) return r;
      }
      return undefined;
    }
    // expression conditions need the machine at each candidate: re-execute interval by interval,
    // backward, scanning each forward once and keeping its last hit
    const K = this.trace.interval;
    for (let i = Math.floor(Math.max(0, hi - 1) / K); i >= 0 && (i + 1) * K > lo; i--) {
      const r = scan(Math.max(lo, i * K), Math.min(hi, (i + 1) * K), true);
      if (r) return r;
    }
    return undefined;
  }

  private matchAt(active: Bp[], s: number, key: WarpKey, only: OnlyThread | undefined): BreakpointHit | undefined {
    const g = this.trace.log.loc(s);
    let mask = this.trace.log.mask(s);
    if (only) {
      if (key !== only.key) return undefined;
      mask &= 1 << only.lane;
      if (!mask) return undefined;
    }
    for (const b of active) {
      if (!b.globals.has(g)) continue;
      const { lane, error } = this.hitLaneOrError(b, s, key, mask);
      if (lane >= 0 && (!b.hitCond || hitCountHolds(b.hitCond, this.hitOrdinal(b, s)))) return error === undefined ? { step: s, bp: b, key, lane } : { step: s, bp: b, key, lane, error };
    }
    return undefined;
  }

  /** 1-based ordinal of the hit of `b` at step s among all its hits in the recording. */
  private hitOrdinal(b: Bp, s: number): number {
    if (!b.allHits) {
      const hits: number[] = [];
      const log = this.trace.log;
      let seg = 0;
      for (let t = 0; t < this.trace.logged; t++) {
        while (seg + 1 < log.nseg && log.segStep[seg + 1]! <= t) seg++;
        if (b.globals.has(log.loc(t)) && this.hitLane(b, t, log.warpOfSegment(seg), log.mask(t)) >= 0) hits.push(t);
      }
      b.allHits = hits;
    }
    let lo = 0, hi = b.allHits.length;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (b.allHits[mid]! < s) lo = mid + 1; else hi = mid; }
    return lo + 1;
  }

  /**
   * The nearest watch trigger from position p toward `bound`: a value-changing write (watch) or an
   * access (rwatch/awatch). Intervals are replayed outward from p, so the search stops at the
   * first interval that has one.
   */
  findWatch(p: number, dir: Direction, bound: number, only?: OnlyThread): WatchHit | undefined {
    const reverse = dir === 'backward';
    const active = this.wps.filter((w) => w.enabled);
    const K = this.trace.interval;
    // several lanes writing in one step: lanes go in order, so the last one's value is what stays
    const lastPerStep = (evs: AccessEvent[]): AccessEvent[] => {
      const out: AccessEvent[] = [];
      for (const e of evs) {
        const prev = out[out.length - 1];
        if (prev && prev.step === e.step && prev.acc !== Access.Read && e.acc !== Access.Read) out[out.length - 1] = { ...e, before: prev.before };
        else out.push(e);
      }
      return out;
    };
    const qualifying = (wp: Wp, from: number, to: number): AccessEvent[] =>
      lastPerStep(collectAccesses(this.trace, wp.target, wp.kind, from, to)).filter((e) => (wp.kind !== 'write' || !sameBytes(e.before, e.after)) && (!only || (e.warpKey === only.key && e.lane === only.lane)));
    if (!reverse) {
      for (let i = Math.floor(p / K); i * K < bound; i++) {
        let best: WatchHit | undefined;
        const found: WatchHit[] = [];
        for (const wp of active) {
          const ev = qualifying(wp, Math.max(p, i * K), Math.min(bound, (i + 1) * K)).find((e) => e.step >= p);
          if (ev) found.push({ ev, wp });
          if (ev && (!best || ev.step < best.ev.step)) best = { ev, wp };
        }
        if (best) return withOthers(best, found);
      }
      return undefined;
    }
    for (let i = Math.floor(Math.max(0, p - 1) / K); i >= 0 && (i + 1) * K > bound; i--) {
      let best: WatchHit | undefined;
      const found: WatchHit[] = [];
      for (const wp of active) {
        const ev = qualifying(wp, Math.max(bound, i * K), Math.min(p, (i + 1) * K)).filter((e) => e.step < p).pop();
        if (ev) found.push({ ev, wp });
        if (ev && (!best || ev.step > best.ev.step)) best = { ev, wp };
      }
      if (best) return withOthers(best, found);
    }
    return undefined;
  }
}

/** The first trigger, with the other watchpoints that the same step triggered (gdb reports them all). */
function withOthers(best: WatchHit, found: readonly WatchHit[]): WatchHit {
  const also = found.filter((h) => h !== best && h.wp !== best.wp && h.ev.step === best.ev.step);
  return also.length ? { ...best, also } : best;
}
