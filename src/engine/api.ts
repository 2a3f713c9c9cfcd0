/**
 * The engine's typed API: what every front end (the gdb language, the TUI, DAP) asks of a
 * recorded run, with typed requests and results: no command text, no replies to re-parse.
 *
 *   const e = Engine.open({ ptxPath: 'samples/saxpy/kernel.G.ptx' });
 *   e.setBreakpoints('kernel.cu', [{ line: 12 }]);
 *   const stop = e.continue({ direction: 'forward' });      // Stop { reason, position, thread, frame, hit }
 *   e.step({ granularity: 'line', direction: 'backward' });
 *   const [locals] = e.scopes(0); e.variables(locals.containerId);
 *
 * Container ids (scopes, structs, arrays) are valid until the next move or focus change, like
 * DAP's variablesReference: children are built when first asked for.
 */
import { LineMap } from '../ptx/diagnostics.js';
import { ptxText as instructionText } from '../exec/machine.js';
import { coordsOf, linearOf } from '../exec/launch.js';
import { Access } from '../exec/probe.js';
import { ctaOfKey, tidOfKey } from '../trace/trace.js';
import type { RaceReport } from '../races/index.js';
import { BreakpointError, parseHitCondition } from './breakpoints.js';
import { EngineError } from './errors.js';
import { DebugInfo, evaluateExpression, infoArgs, infoLocals, PrintError, printExpression, type ValueHistory, variableTree, type VarNode } from './print/index.js';
import type { OriginHop, OriginSource } from './origin.js';
import { gotoRace, sessionRaces } from './races.js';
import { openSession, Session, type SessionOptions } from './session.js';
import type {
  AddedWatch, BreakpointInfo, BreakpointRequest, ContinueRequest, RegisterValue, TimelineMark, WarpInfo, BreakpointResult, Dim3, Direction, Evaluation, FrameInfo, Instruction, LaneValue, OriginAnswer,
  Scope, SpaceName, StepRequest, Stop, StopEvent, ThreadInfo, ThreadRef, Variable, WatchKind, WatchpointInfo, WatchRequest, Where, Write,
} from './types.js';
// the API's types live in types.ts; re-exported for the modules that still import them from here
export type {
  AddedWatch, BreakpointRequest, BreakpointResult, Direction, Evaluation, Instruction, LaneValue, OriginAnswer, Scope, StepRequest, StopEvent,
  ThreadInfo, ThreadRef, Variable, WatchRequest, Write,
} from './types.js';
import { formatterFor, registerValue } from './values.js';
import { Containers, frameScopes } from './scopes.js';
import { comparePositions, type Position, positionOf } from '../trace/position.js';
import { type TimelineInfo, Timelines } from './whatif/timelines.js';
import type { LaunchInfo, ProgramEvent } from './types.js';
import { type ProgramStop, ProgramTimeline } from './program/timeline.js';
import { programBreak, programDelete } from './program/breakpoints.js';
import { plainName } from '../ptx/names.js';
import {
  comparePlaces, findWriter, launchIndex, type MemoryLaunchEvent, memorySourceOf, originBefore, programHistory, type ProgramMemorySource, type ProgramPoint,
  type ProgramWriter, watchStopText, writerPlace, writerText,
} from './program/memory.js';
import { collectAccesses, type WatchTarget } from './watch.js';


const WRITABLE: readonly string[] = ['global', 'shared', 'local'];
/** A raw memory range: `@global 0x7f0000000010 4`, `@shared 0x40` (4 bytes). */
const RAW_RANGE = /^@(global|shared|local)\s+(0x[0-9a-f]+|\d+)(?:\s+(\d+))?$/i;

/** A single-kernel session records one launch: its positions are in launch 0 (a program's launches count from 1). */
const LAUNCH = 0;

const engines = new WeakMap<Session, Engine>();
const sessions = new WeakMap<Engine, Session>();

/** The session behind an engine: for the engine's own modules (presenters), never re-exported by index.ts. */
export function sessionOf(e: Engine): Session {
  return sessions.get(e)!;
}

/** The session's engine (one per session, shared by its front ends: breakpoint groups, containers). */
export function engineOf(s: Session): Engine {
  return Engine.of(s);
}

export class Engine {
  private readonly containers = new Containers();
  /** Breakpoint ids per group (a source file, 'function', 'instruction', 'data'). */
  private readonly groups = new Map<string, number[]>();
  private ptxLines: LineMap | undefined;
  private ptxTextLines: readonly string[] | undefined;

  /** The launch in focus's session (a program's changes as the position moves across launches). */
  private get session(): Session { return sessions.get(this)!; }
  /** The whole program's timeline, when the engine debugs a program (issue #25). */
  private program: ProgramTimeline | undefined;

  /** Engines are made by `Engine.open`, `openEngine*` and `engineOf` (one per session). */
  private constructor(s: Session) {
    sessions.set(this, s);
    engines.set(s, this);
  }

  /** @internal an engine over a whole program's launches (openProgramEngine), in its first recorded launch. */
  static ofProgram(p: ProgramTimeline): Engine {
    const e = new Engine(p.session(p.current));
    e.program = p;
    return e;
  }

  /** The launch in focus: 0 in a single-kernel session, from 1 in a program. */
  private get launchNo(): number { return this.program?.current ?? LAUNCH; }

  /** @internal the engine of a session (engineOf). */
  static of(s: Session): Engine {
    return engines.get(s) ?? new Engine(s);
  }

  static open(o: SessionOptions): Engine {
    return Engine.of(openSession(o));
  }

  get total(): number { return this.session.total; }
  /** The current position on the program timeline. */
  position(): Position { return positionOf(this.launchNo, this.session.position()); }
  /** The position `step` warp-steps into the current launch (range-checked when travelled to). */
  at(step: number): Position { return positionOf(this.position().launch, step); }
  /** The first and last positions of the current launch's recording. */
  start(): Position { return this.at(0); }
  end(): Position { return this.at(this.total); }
  where(): Where { return this.session.where(); }
  /** printf output up to the current position. */
  output(): string { return this.session.output(); }

  // ---- moving ---------------------------------------------------------------------------------

  /** Travel to a position (EngineError 'out-of-range' outside the recording). */
  goto(to: Position): StopEvent {
    if (this.program) {
      if (to.step < 0) throw new EngineError(`position ${to.launch}:${to.step} is a host call before launch ${to.launch}: the debugger stops in launches`, 'out-of-range');
      this.enter(to.launch);
    } else if (to.launch !== LAUNCH) throw new EngineError(`launch ${to.launch} does not exist: this session records one launch (0)`, 'out-of-range');
    return this.stopped(this.session.goto(to.step));
  }

  step(r: StepRequest): StopEvent {
    const from = this.session.position();
    const move = (): Stop => r.granularity === 'line' ? this.session.stepLine(r.into ?? false, r.direction) : this.session.stepInstruction(r.direction, !(r.into ?? false));
    if (this.program) return this.crossing(r.direction, move);
    // a line step stops at a breakpoint or watchpoint the thread meets on the way (gdb's next)
    return this.stopped(r.granularity === 'line' ? this.session.onTheWay(from, move(), r.direction) : move());
  }

  /**
   * To the next (previous) breakpoint, watchpoint or end. `races`: stop first at a race access on
   * the way (DAP's "Data races" exception filter).
   */
  continue(r: ContinueRequest): StopEvent {
    const from = this.position().step;
    if (this.program) return this.programContinue(r.direction);
    const landed = this.stopped(this.session.cont(r.direction));
    return r.races ? this.raceOnTheWay(from, landed, r.direction) : landed;
  }

  /** gdb's `run`: from step 0 to the first breakpoint or watchpoint (a hit at step 0 counts). */
  run(r: { readonly races?: boolean } = {}): StopEvent {
    if (this.program) return this.programStop(this.program.run());
    this.session.goto(0);
    const landed = this.stopped(this.session.cont('forward', true));
    return r.races ? this.raceOnTheWay(0, landed, 'forward') : landed;
  }

  /** The race access nearest `from` between it and where a continue landed, travelled to; else the landing. */
  private raceOnTheWay(from: number, landed: StopEvent, direction: Direction): StopEvent {
    let best: { n: number; second: boolean; step: number } | undefined;
    this.races().races.forEach((r, i) => r.accesses.forEach((a, k) => {
      const between = direction === 'forward' ? a.step >= from && a.step < landed.position.step : a.step < from && a.step > landed.position.step;
      if (!between) return;
      if (!best || (direction === 'forward' ? a.step < best.step : a.step > best.step)) best = { n: i + 1, second: k === 1, step: a.step };
    }));
    return best ? this.gotoRace(best.n, best.second) : landed;
  }

  /** Run until the current function returns (forward: its value is then `returnValueText`). */
  finish(r: { readonly direction: Direction }): StopEvent {
    this.session.lastReturn = undefined;
    if (this.program) return this.crossing(r.direction, () => this.session.finish(r.direction));
    const from = this.session.position();
    return this.stopped(this.session.onTheWay(from, this.session.finish(r.direction), r.direction));
  }

  /** gdb's `until` without an argument: the next line, not going back round a loop. */
  until(): StopEvent {
    const from = this.session.position();
    return this.stopped(this.session.onTheWay(from, this.session.until(), 'forward'));
  }

  /** gdb's `until LOCATION` / `advance LOCATION`: run to a location (or the current function's return). */
  runTo(location: string): StopEvent {
    const from = this.session.position();
    return this.stopped(this.session.onTheWay(from, this.session.runTo(location), 'forward'));
  }

  /** Travel to an access of race n (1-based), with its thread in focus. */
  gotoRace(n: number, second = false): StopEvent {
    this.racesChecked();
    return this.stopped(gotoRace(this.session, n, second));
  }

  races(): RaceReport {
    this.racesChecked();
    return sessionRaces(this.session);
  }

  private stopped(s: Stop): StopEvent {
    this.containers.clear();
    this.eventStop = undefined;
    const w = this.session.where();
    return { reason: s.reason, position: positionOf(this.launchNo, s.step), total: this.total, thread: this.focus(), frame: w.frames[0], hit: s.hit, message: s.message };
  }

  // ---- threads and frames -----------------------------------------------------------------------

  private get threadsPerBlock(): number {
    const b = this.session.launch.block;
    return b[0] * b[1] * b[2];
  }

  private threadRef(cta: number, tid: number): ThreadRef {
    return { id: cta * this.threadsPerBlock + tid + 1, block: coordsOf(cta, this.session.launch.grid), thread: coordsOf(tid, this.session.launch.block) };
  }

  focus(): ThreadRef {
    const s = this.session;
    return this.threadRef(s.focusBlockId(), linearOf(s.focusThread(), s.launch.block));
  }

  /** Focus a thread by id (as `threads()` gives) or by coordinates (a block alone keeps the thread, a thread alone the block). */
  setFocus(t: number | { readonly block?: Dim3 | undefined; readonly thread?: Dim3 | undefined }): void {
    let block: Dim3 | undefined, thread: Dim3 | undefined;
    if (typeof t === 'number') {
      const n = this.threadsPerBlock;
      const g = this.session.launch.grid;
      if (!Number.isInteger(t) || t < 1 || t > n * g[0] * g[1] * g[2]) throw new EngineError(`no thread ${t}`, 'out-of-range');
      block = coordsOf(Math.floor((t - 1) / n), g);
      thread = coordsOf((t - 1) % n, this.session.launch.block);
    } else ({ block, thread } = t);
    const before = this.focus().id;
    const err = this.session.setFocus(block, thread);
    if (err) throw new EngineError(err, 'out-of-range');
    if (this.focus().id !== before) this.containers.clear();
  }

  /** The threads of the focused warp (the unit that executes together). */
  threads(): ThreadInfo[] {
    const s = this.session;
    const cta = s.focusBlockId();
    const base = linearOf(s.focusThread(), s.launch.block) & ~31;
    const out: ThreadInfo[] = [];
    for (let tid = base; tid < Math.min(base + 32, this.threadsPerBlock); tid++) {
      const r = this.threadRef(cta, tid);
      out.push({ ...r, name: `block (${r.block.join(',')}) thread (${r.thread.join(',')})` });
    }
    return out;
  }

  /** The focused thread's call stack, innermost first. */
  stack(): readonly FrameInfo[] {
    return this.session.where().frames;
  }

  selectFrame(level: number): void {
    if (level === this.session.selectedFrame) return;
    const err = this.session.selectFrame(level);
    if (err) throw new EngineError(err, 'out-of-range');
  }

  // ---- breakpoints and watchpoints --------------------------------------------------------------

  private replaceGroup(group: string, add: () => BreakpointResult[]): BreakpointResult[] {
    for (const id of this.groups.get(group) ?? []) {
      try { this.deleteBreakpoint(id); } catch (e) { if (!(e instanceof EngineError)) throw e; }
    }
    const out = add();
    this.groups.set(group, out.flatMap((r) => (r.id === undefined ? [] : [r.id])));
    return out;
  }

  private addSpec(spec: string, condition: string | undefined, hitCondition: string | undefined): BreakpointResult {
    try {
      const hc = hitCondition?.trim() ? parseHitCondition(hitCondition) : undefined;
      const text = condition?.trim() ? `${spec} if ${condition.trim()}` : spec;
      const b = this.program ? programBreak(this.program, this.session, text, false, hc) : this.session.addBreakpoint(text, false, hc);
      // a program's breakpoint not in the launch in focus is pending: not verified (yet), but kept
      if (b.pending) return { verified: false, id: b.id, line: undefined, message: b.note ?? 'pending: not in the code of the launch in focus' };
      return { verified: true, id: b.id, line: b.locations[0]?.line, message: undefined };
    } catch (e) {
      if (e instanceof EngineError || e instanceof BreakpointError) return { verified: false, id: undefined, line: undefined, message: e.message };
      throw e;
    }
  }

  /** Replace the breakpoints of one source file (a CUDA file, or the PTX file: PTX lines). */
  setBreakpoints(file: string, lines: readonly BreakpointRequest[]): BreakpointResult[] {
    const isPtx = file === this.session.ptxPath || file.endsWith('.ptx');
    return this.replaceGroup(`source:${file}`, () => lines.map((l) => {
      const r = this.addSpec(isPtx ? `ptx:${l.line}` : `${file}:${l.line}`, l.condition, l.hitCondition);
      return isPtx && r.verified ? { ...r, line: l.line } : r;
    }));
  }

  setFunctionBreakpoints(fns: readonly { readonly name: string; readonly condition?: string | undefined; readonly hitCondition?: string | undefined }[]): BreakpointResult[] {
    return this.replaceGroup('function', () => fns.map((f) => this.addSpec(f.name, f.condition, f.hitCondition)));
  }

  /** Breakpoints on instructions by global address (see `instructions()`). */
  setInstructionBreakpoints(addrs: readonly { readonly address: number; readonly condition?: string | undefined; readonly hitCondition?: string | undefined }[]): BreakpointResult[] {
    return this.replaceGroup('instruction', () => addrs.map((a) => {
      const ins = this.instruction(a.address);
      if (!ins) return { verified: false, id: undefined, line: undefined, message: `no instruction at ${a.address}` };
      return { ...this.addSpec(`ptx:${ins.ptxLine}`, a.condition, a.hitCondition), line: ins.ptxLine };
    }));
  }

  /** One breakpoint at a source line (`file` by base name) or a line of the PTX file. */
  addBreakpoint(at: { readonly file: string; readonly line: number } | { readonly ptxLine: number }): BreakpointInfo {
    return this.breakAt('ptxLine' in at ? `ptx:${at.ptxLine}` : `${at.file.replace(/^.*[\\/]/, '')}:${at.line}`);
  }

  /** Delete breakpoints or watchpoints by id; returns the engine's confirmation per id. */
  deleteBreakpoints(ids: readonly number[]): string[] {
    return ids.map((id) => this.deleteBreakpoint(id));
  }

  /**
   * Watch an lvalue of the focused thread, or a raw range written `@space ADDR [LEN]`: `write`
   * stops where the value changes, `read`/`access` where it is read / accessed (both directions).
   * `history` lets the expression name gdb's `$1, $2...` values.
   */
  addWatch(expr: string, kind: WatchKind, history?: ValueHistory, label = expr): AddedWatch {
    const s = this.session;
    const raw = /^@(global|shared|local)\s+(0x[0-9a-f]+|\d+)(?:\s+(\d+))?$/i.exec(expr);
    if (raw) {
      const space = raw[1]!.toLowerCase() as 'global' | 'shared' | 'local';
      const address = BigInt(raw[2]!);
      const size = raw[3] ? Number(raw[3]) : 4;
      if (!s.threadView().readMemory(space, address, size)) throw new EngineError(`Cannot watch ${space} 0x${address.toString(16)} (${size} bytes): not accessible from the focused thread.`, 'bad-watch');
      const across = this.programWatch(expr, kind, space, Number(address & 0xffffffffn), size, formatterFor('int', size));
      return { wp: across ?? s.addWatchpoint(expr, kind, space, Number(address & 0xffffffffn), size, formatterFor('int', size)), raw: true };
    }
    let v;
    try {
      v = evaluateExpression(s.debugInfo(), s.threadView(), expr, history);
    } catch (e) {
      if (e instanceof PrintError) throw new EngineError(e.message, 'bad-expression');
      throw e;
    }
    if (v.address === undefined || v.space === undefined) throw new EngineError(`Cannot watch constant value \`${expr}' (it is not in memory).`, 'bad-watch');
    if (!WRITABLE.includes(v.space)) throw new EngineError(`cannot watch ${v.space} memory (read-only)`, 'bad-watch');
    const addr = Number(v.address & 0xffffffffn);
    if (!s.threadView().readMemory(v.space as SpaceName, v.address, Math.max(1, v.size))) throw new EngineError(`Cannot watch ${expr}: ${v.space} address 0x${addr.toString(16)} is not accessible.`, 'bad-watch');
    const across = this.programWatch(label, kind, v.space, addr, Math.max(1, v.size), formatterFor(v.type, v.size));
    return { wp: across ?? s.addWatchpoint(label, kind, v.space as 'global' | 'shared' | 'local', addr, Math.max(1, v.size), formatterFor(v.type, v.size)), raw: false };
  }

  breakpoints(): readonly BreakpointInfo[] {
    const p = this.program;
    if (!p) return this.session.breakpoints();
    // the program's: as set in the launch in focus, else pending (not in this launch's code)
    const here = this.session.breakpoints();
    return p.bps.map((b) => here.find((x) => x.id === b.id) ?? { id: b.id, spec: b.location, enabled: b.enabled, condition: undefined, locations: [], hits: 0, pending: true });
  }
  watchpoints(): readonly WatchpointInfo[] { return this.pwatches.length ? [...this.session.watchpoints(), ...this.pwatches] : this.session.watchpoints(); }

  /** Replace the watchpoints (DAP's data breakpoints): each expression is resolved now. */
  setWatchpoints(reqs: readonly WatchRequest[]): { verified: boolean; id: number | undefined; message: string | undefined }[] {
    const out: { verified: boolean; id: number | undefined; message: string | undefined }[] = [];
    for (const id of this.groups.get('data') ?? []) {
      const pw = this.pwatches.findIndex((w) => w.id === id);
      if (pw >= 0) { this.pwatches.splice(pw, 1); continue; }
      try { this.deleteBreakpoint(id); } catch (e) { if (!(e instanceof EngineError)) throw e; }
    }
    for (const r of reqs) {
      try {
        const ev = this.evaluate(r.expression);
        if (!ev.lvalue) throw new EngineError(`${r.expression} is not writable memory of the focused thread`, 'bad-watch');
        const wp = this.programWatch(r.expression, r.kind, ev.lvalue.space, ev.lvalue.address, ev.lvalue.size, formatterFor(ev.type, ev.lvalue.size)) ?? this.session.addWatchpoint(r.expression, r.kind, ev.lvalue.space, ev.lvalue.address, ev.lvalue.size, formatterFor(ev.type, ev.lvalue.size));
        out.push({ verified: true, id: wp.id, message: undefined });
      } catch (e) {
        if (!(e instanceof EngineError)) throw e;
        out.push({ verified: false, id: undefined, message: e.message });
      }
    }
    this.groups.set('data', out.flatMap((r) => (r.id === undefined ? [] : [r.id])));
    return out;
  }

  // ---- values ----------------------------------------------------------------------------------

  /** Evaluate a C expression in the focused thread's selected frame (`frame` selects another). */
  evaluate(expr: string, frame?: number): Evaluation {
    if (frame !== undefined) this.selectFrame(frame);
    let r;
    try {
      r = evaluateExpression(this.session.debugInfo(), this.session.threadView(), expr);
    } catch (e) {
      if (e instanceof PrintError) throw new EngineError(e.message, 'bad-expression');
      throw e;
    }
    const mem = r.address !== undefined && r.space !== undefined ? `${r.space}:0x${r.address.toString(16)}` : undefined;
    const lvalue = r.address !== undefined && r.space !== undefined && WRITABLE.includes(r.space) && r.size > 0
      ? { space: r.space as 'global' | 'shared' | 'local', address: Number(r.address & 0xffffffffn), size: r.size } : undefined;
    return { value: r.text, type: r.type, memoryReference: mem, lvalue };
  }

  /** The scopes of a frame of the focused thread: its variables by address space, the warp view, and its PTX registers. */
  scopes(frame: number): Scope[] {
    this.selectFrame(frame);
    return frameScopes(this.session, frame, this.containers, (expr, f) => this.evaluate(expr, f), (name) => this.lanes(name));
  }

  /** The children of a container (a scope, struct, array or pointer target). */
  variables(containerId: number): Variable[] {
    return this.containers.get(containerId);
  }

  /** Bytes at a memory reference (`space:0xaddress`, as variables give) as the focused thread reads them. */
  readMemory(ref: string, offset: number, count: number): { address: string; bytes: Uint8Array; unreadable: number } {
    const m = /^(global|shared|local|const|param|generic):0x([0-9a-f]+)$/i.exec(ref);
    if (!m) throw new EngineError(`bad memory reference '${ref}': expected space:0xaddress`, 'bad-request');
    const space = m[1]!.toLowerCase() as SpaceName;
    const at = BigInt('0x' + m[2]!) + BigInt(offset);
    const view = this.session.threadView();
    // the readable prefix: halve the request until a read succeeds, then grow it back
    let n = Math.max(0, Math.min(count, 1 << 20));
    let bytes = n ? view.readMemory(space, at, n) : new Uint8Array(0);
    while (!bytes && n > 1) { n >>= 1; bytes = view.readMemory(space, at, n); }
    const got = bytes ?? new Uint8Array(0);
    return { address: `${space}:0x${at.toString(16)}`, bytes: got, unreadable: count - got.length };
  }

  // ---- history -----------------------------------------------------------------------------------

  /**
   * Every write to a register of the focused thread (`$r3`, `%r3`) or to an lvalue in global,
   * shared or local memory, over the whole recording, oldest first.
   */
  history(expr: string, limit = 1000): Write[] {
    const s = this.session;
    const reg = expr.trim().replace(/^\$/, '%');
    const view = s.threadView();
    const rtype = /^%[a-z]+\d*$/i.test(reg) ? view.registerType(reg) : undefined;
    if (rtype !== undefined) {
      const me = this.focus();
      return s.registerHistory(reg, limit).map((w) => ({ position: positionOf(this.launchNo, w.step), thread: me, file: w.file, line: w.line, before: undefined, after: registerValue(rtype, w.value), atomic: false }));
    }
    const ev = this.evaluate(expr);
    if (!ev.lvalue) throw new EngineError(`history needs a register or an lvalue in global, shared or local memory`, 'bad-request');
    const { space, address, size } = ev.lvalue;
    const fmt = formatterFor(ev.type, size);
    const target = { space, address, size, ctaId: s.focusBlockId(), warpKey: s.focusKey, lane: s.focusLane };
    return s.memoryHistory(target, 'write').slice(-limit).map((e) => {
      const g = s.trace.log.loc(e.step);
      return {
        position: positionOf(this.launchNo, e.step), thread: this.threadRef(ctaOfKey(e.warpKey), tidOfKey(e.warpKey, e.lane)), file: s.code.fileName(g), line: s.code.line[g]!,
        before: e.before ? fmt(e.before) : undefined, after: e.after ? fmt(e.after) : undefined, atomic: e.acc === Access.Atomic,
      };
    });
  }

  /** Where the current value came from: the last write before the current position, if any. */
  /** The last write of `expr` before the position (from its history), or undefined. */
  lastWrite(expr: string): Write | undefined {
    const p = this.position();
    return this.history(expr).filter((w) => comparePositions(w.position, p) < 0).pop();
  }

  /**
   * Where a value came from (dataflow): `expr` is a register (`$r3`), a variable (in a register
   * or in memory), an lvalue, or `^N`: input N of the previous answer. Moves to the writing step
   * with the writing thread in focus.
   */
  origin(expr: string, history?: ValueHistory): OriginAnswer {
    const s = this.session;
    const e = expr.trim();
    if (!e) throw new EngineError('origin needs an expression: a register $r3, a variable, an lvalue, or ^N for input N of the last answer', 'bad-expression');
    let source: OriginSource;
    const follow = /^\^(\d+)$/.exec(e);
    if (follow) {
      const hop = s.lastOrigin;
      const input = hop?.inputs[Number(follow[1]) - 1];
      if (!hop || !input) throw new EngineError(hop ? `The last origin has ${hop.inputs.length} input(s).` : 'No origin yet: ask `origin EXPR` first.', 'bad-request');
      if (!input.follow) throw new EngineError(`${input.text} is ${/^%(tid|ntid|ctaid|nctaid|laneid|warpid|clock|globaltimer)/.test(input.text) ? 'a special register' : 'a constant'}: it has no earlier writer.`, 'bad-request');
      source = input.follow;
    } else if (/^[$%][a-z]+\d*$/i.test(e) && s.threadView().registerType(e.replace(/^\$/, '%')) !== undefined) {
      source = { kind: 'register', name: e.replace(/^\$/, '%') };
    } else if (RAW_RANGE.test(e)) {
      // a raw range, as `watch @global ADDR LEN` takes (origin across launches asks this way: src/engine/program/memory.ts)
      const m = RAW_RANGE.exec(e)!;
      source = { kind: 'memory', target: s.memoryTarget(m[1]!.toLowerCase() as 'global' | 'shared' | 'local', Number(BigInt(m[2]!) & 0xffffffffn), m[3] ? Number(m[3]) : 4) };
    } else {
      let v;
      try {
        v = evaluateExpression(s.debugInfo(), s.threadView(), e, history);
      } catch (err) {
        if (err instanceof PrintError) throw new EngineError(err.message, 'bad-expression');
        throw err;
      }
      if (v.register !== undefined) source = { kind: 'register', name: v.register };
      else if (v.address !== undefined && (v.space === 'global' || v.space === 'shared' || v.space === 'local')) {
        source = { kind: 'memory', target: s.memoryTarget(v.space, Number(v.address & 0xffffffffn), Math.max(1, v.size)) };
      } else throw new EngineError(`${e} is a computed value: ask for a register, a variable or an lvalue in memory.`, 'bad-expression');
    }
    const what = source.kind === 'register' ? source.name : `${s.memoryName(source.target)}, ${source.target.size} bytes,`;
    const across = this.program && source.kind === 'memory' && source.target.space === 'global' ? this.originAcross(source.target, what) : undefined;
    if (across) return across;
    const { stop, hop } = s.origin(source);
    return { stop: this.stopped(stop), hop, what };
  }

  /**
   * The warp view of a value: `expr` for each lane of the focused warp (or thread of the block),
   * with the lane's state; `value` is the printed value, or why there is none.
   */
  lanes(expr: string, scope: 'warp' | 'block' = 'warp', radix?: string): LaneValue[] {
    const s = this.session;
    return s.laneViews(scope).map((r) => {
      let value: string;
      if (!r.view) value = `<${r.state}>`;
      else {
        try {
          value = printExpression(s.debugInfo(), r.view, `${radix ? `/${radix} ` : ''}${expr}`).replace(/^\$\d+ = /, '');
        } catch (err) {
          if (!(err instanceof PrintError)) throw err;
          value = `<${err.message}>`; // e.g. not in scope where this thread is
        }
      }
      return { thread: r.thread, warp: r.warp, lane: r.lane, state: r.state, value };
    });
  }

  // ---- code ------------------------------------------------------------------------------------

  /** 1-based line in the PTX file of instruction pc of a function (0 when there is none). */
  ptxLine(fn: string, pc: number): number {
    const ins = this.session.program.functions.get(fn)?.instrs[pc];
    if (!ins) return 0;
    this.ptxLines ??= new LineMap(this.session.ptxText);
    return this.ptxLines.position(ins.src.span.start).line;
  }

  instruction(address: number): Instruction | undefined {
    const code = this.session.code;
    if (!Number.isInteger(address) || address < 0 || address >= code.pc.length) return undefined;
    const fn = code.fnName(address);
    const pc = code.pc[address]!;
    const ins = this.session.program.functions.get(fn)?.instrs[pc];
    if (!ins) return undefined;
    return { address, function: fn, pc, text: instructionText(this.session.ptxText, ins.src.span), ptxLine: this.ptxLine(fn, pc), file: code.fileName(address), line: code.line[address]! };
  }

  /** Global address of instruction pc of a function. */
  address(fn: string, pc: number): number {
    return this.session.code.global(fn, pc);
  }

  instructionCount(): number {
    return this.session.code.pc.length;
  }

  /**
   * Positions at which the focused thread starts source line `line` of `file` (or, for the PTX
   * file, issues the instruction on that PTX line), oldest first: goto targets.
   */
  linePositions(file: string, line: number, limit = 20): Position[] {
    const s = this.session;
    const code = s.code;
    const isPtx = file.endsWith('.ptx');
    const key = file.replace(/^.*[\\/]/, '');
    const at = (g: number): boolean => {
      if (isPtx) return this.ptxLine(code.fnName(g), code.pc[g]!) === line;
      const f = code.fileName(g);
      return code.line[g] === line && code.lineStart[g] === 1 && f !== undefined && f.replace(/^.*[\\/]/, '') === key;
    };
    const out: Position[] = [];
    const tl = s.timelineOfFocus();
    for (let i = 0; i < tl.length && out.length < limit; i++) if (at(tl.locs[i]!)) out.push(positionOf(this.launchNo, tl.steps[i]!));
    return out;
  }

  // ---- the recording and its files -------------------------------------------------------------

  /** The PTX file the session runs (a source of the DAP's stack frames). */
  get ptxPath(): string { return this.session.ptxPath; }
  /** The PTX text's lines (listing PTX where there is no CUDA source). */
  ptxSourceLines(): readonly string[] { return (this.ptxTextLines ??= this.session.ptxText.split('\n')); }
  /** The message of the fault that ended the run, if any. */
  get faultMessage(): string | undefined { return this.session.faultMessage; }
  /** The recording was stopped (Ctrl-C) before the kernel finished. */
  get interrupted(): boolean { return this.session.interrupted; }
  /** Warnings from loading the PTX (unsupported instructions no thread may reach). */
  get loadWarnings(): string { return this.session.loadWarnings; }
  /** A source file as found (the recording's name, or under the directory given by setSourceDir). */
  sourceFile(file: string): { readonly path: string; readonly lines: readonly string[] } | undefined {
    return this.session.sources.get(file);
  }
  /** Look for source files under `dir` too. */
  setSourceDir(dir: string): void {
    if (this.program) this.program.setSourceDir(dir);
    else this.session.setSourceDir(dir);
  }
  /** A run that ended in a fault opens where it ended: that stop, else undefined (at step 0). */
  openAtEnd(): StopEvent | undefined {
    const s = this.session.openAtEnd();
    return s ? this.stopped(s) : undefined;
  }
  /** Marks on the timeline: breakpoint hits, faults, races. */
  marks(): readonly TimelineMark[] { return this.session.marks(); }

  // ---- the focused thread's machine state --------------------------------------------------------

  /** The warps of the resident blocks at the current position. */
  warps(): WarpInfo[] { return this.session.warps(); }
  /** The focused thread's registers in the selected frame. */
  registers(): RegisterValue[] { return this.session.registers(); }
  /** Bytes as the focused thread reads them (its block's shared, its own local), undefined where unmapped. */
  readBytes(space: SpaceName, address: bigint, size: number): Uint8Array | undefined {
    return this.session.threadView().readMemory(space, address, size);
  }
  /** The selected frame's level (0: innermost). */
  get selectedFrame(): number { return this.session.selectedFrame; }
  /** The thread at `lane` of `warp` in a block (the focused thread's warp and lane where omitted), range-checked. */
  laneThread(warp: number | undefined, lane: number | undefined): Dim3 {
    const block = this.session.launch.block;
    const cur = linearOf(this.session.focusThread(), block);
    const w = warp ?? cur >>> 5;
    const l = lane ?? cur & 31;
    const nthreads = block[0] * block[1] * block[2];
    if (l > 31) throw new EngineError(`lane ${l} does not exist (lanes are 0..31)`, 'out-of-range');
    if (w * 32 + l >= nthreads) throw new EngineError(`warp ${w} lane ${l} does not exist: a block has ${Math.ceil(nthreads / 32)} warp(s) of ${nthreads} threads`, 'out-of-range');
    return coordsOf(w * 32 + l, block);
  }

  // ---- breakpoints by gdb location -------------------------------------------------------------

  /** gdb's `break LOCATION [if COND]` (`tbreak` when temporary): FILE:LINE, LINE, FUNCTION, ptx:LINE, *INSTR. */
  breakAt(location: string, temporary = false): BreakpointInfo {
    if (this.program) return programBreak(this.program, this.session, location, temporary);
    return this.session.addBreakpoint(location, temporary);
  }
  /** Delete breakpoint or watchpoint `id` (every one when undefined); gdb's reply. */
  deleteBreakpoint(id: number | undefined): string {
    const w = this.pwatches.findIndex((x) => x.id === id);
    if (w >= 0) { this.pwatches.splice(w, 1); return `Deleted watchpoint ${id}.`; }
    if (!this.program) return this.session.deleteBreakpoint(id);
    const text = programDelete(this.program, this.session, id);
    // `delete` (all): the program's watchpoints go too, and count in the reply
    const k = id === undefined ? this.pwatches.splice(0).length : 0;
    return k ? text.replace(/(\d+) watchpoints?\.$/, (_m, n: string) => `${Number(n) + k} watchpoint${Number(n) + k === 1 ? '' : 's'}.`) : text;
  }
  enableBreakpoint(id: number, on: boolean): void {
    const w = this.pwatches.find((x) => x.id === id);
    if (w) { w.enabled = on; return; }
    if (!this.program) this.session.enableBreakpoint(id, on);
    else if (!this.program.enableBreakpoint(id, on)) throw new EngineError(`No breakpoint number ${id}.`, 'no-such-breakpoint');
  }
  /** Pass the next `count` hits of breakpoint `id`. */
  ignoreBreakpoint(id: number, count: number): void {
    if (!this.program) this.session.ignoreBreakpoint(id, count);
    else if (!this.program.ignoreBreakpoint(id, count)) throw new EngineError(`No breakpoint number ${id}.`, 'no-such-breakpoint');
  }
  /** The breakpoint the last stop hit, if it was one. */
  get lastBreakpoint(): number | undefined { return this.session.lastBreakpoint; }
  /** gdb's `condition N EXPR` (a condition that does not parse changes nothing) / `condition N` (removes it); gdb's reply. */
  setCondition(id: number, expr: string | undefined): string { return this.session.setCondition(id, expr); }
  /** gdb's `clear LOCATION`: delete the breakpoints at LOCATION; gdb's reply. */
  clearAt(location: string): string { return this.session.clearAt(location); }
  /** The grid and block dimensions of the launch (the gdb language's `$_block`, `thread apply all`). */
  launchInfo(): { readonly grid: Dim3; readonly block: Dim3 } { return { grid: this.session.launch.grid, block: this.session.launch.block }; }
  /** The breakpoint set last (gdb's `commands` without a number), if any. */
  lastBreakpointSet(): number | undefined { const ids = this.session.breakpoints().map((b) => b.id); return ids.length ? Math.max(...ids) : undefined; }
  /** Where a gdb location (`16`, `kernel.cu:16`, `twice`) resolves, without setting anything (`info line N`). */
  resolveLocation(location: string): { function: string; pc: number; file: string | undefined; line: number }[] { return this.session.resolveLocation(location); }

  // ---- the program timeline (issue #25, helper timeline) ----------------------------------------
  // A program's launches each have a Session (program/timeline.ts); the engine follows the one in
  // focus. One block, apart from the rest, so that edits elsewhere merge.

  /** Focus launch n's session (recorded when first visited); a new launch drops what was cached of the old. */
  private enter(n: number): void {
    const p = this.program!;
    if (n === p.current && sessions.get(this) === p.session(n)) return;
    const s = p.session(n);
    p.current = n;
    sessions.set(this, s);
    engines.set(s, this);
    this.containers.clear();
    this.ptxLines = undefined;
    this.ptxTextLines = undefined;
    this.tuiDebugInfo = undefined;
  }

  /** A stop somewhere in the program: focus its launch, then the stop as usual. */
  private programStop(ps: ProgramStop): StopEvent {
    this.enter(ps.launch);
    const st = this.stopped(ps.stop);
    if (st.hit?.kind === 'breakpoint') this.program!.hitTemporary(st.hit.id);
    return st;
  }

  /**
   * A step or finish in a program: where it cannot move in its launch (forward at the launch's
   * end, backward at its start), the next stop is in the next launch that has one, as cuda-gdb
   * does when a kernel ends under `next` (and mirrored backward).
   */
  private crossing(direction: Direction, move: () => Stop): StopEvent {
    const p = this.program!;
    const before = this.session.position();
    const s = move();
    const stuck = s.step === before;
    // forward: the launch ended, or the focused thread has exited (nothing more of it here);
    // backward: already at the thread's first instruction
    const gone = (): boolean => ['exited', 'retired'].includes(this.session.where().state);
    const off = direction === 'forward' ? s.reason === 'end' || (stuck && (before === this.session.total || (s.reason === 'no-move' && gone()))) : stuck && s.reason === 'start';
    if (off) {
      this.session.goto(direction === 'forward' ? this.session.total : 0);
      return this.programStop(p.beyond(p.current, direction));
    }
    return this.stopped(s);
  }

  /** Every launch of the program, in order (a single-kernel session: its one launch, numbered 0). */
  launches(): LaunchInfo[] {
    const p = this.program;
    if (!p) {
      const l = this.session.launch;
      return [{ index: LAUNCH, kernel: plainName(l.kernel), mangled: l.kernel, grid: l.grid, block: l.block, site: undefined, steps: this.total, launchedBy: undefined }];
    }
    const open = p.openSessions();
    return p.source.launches.map((l) => ({
      index: l.index, kernel: plainName(l.kernel), mangled: l.kernel, grid: l.grid, block: l.block, site: l.site,
      steps: l.recorded ? open.get(l.index)?.total ?? l.steps : undefined, launchedBy: l.launchedBy,
    }));
  }

  /** The launch in focus (`[launch 2 scale<<<(2,1,1),(4,1,1)>>> at offbyone.cu:57]` names it). */
  currentLaunch(): LaunchInfo {
    const n = this.launchNo;
    return this.launches().find((l) => l.index === n)!;
  }

  /** Whether the engine debugs a whole program (several launches, host events) rather than one kernel. */
  get isProgram(): boolean { return this.program !== undefined; }

  /** gdb's `launch N` / `goto launch N step S`: travel into launch n (its first step by default). */
  gotoLaunch(n: number, step = 0): StopEvent {
    if (!Number.isInteger(n)) throw new EngineError(`launch ${n}: expected a launch number`, 'bad-request');
    return this.goto(positionOf(n, step));
  }

  /** `set cuda break_on_launch application|none`: stop at each launch's first instruction (both directions). */
  setBreakOnLaunch(on: boolean): void {
    if (!this.program) throw new EngineError('break_on_launch needs a whole program (ptxdbg ./app): this session records one launch', 'bad-request');
    this.program.breakOnLaunch = on;
  }
  get breakOnLaunch(): boolean { return this.program?.breakOnLaunch ?? false; }

  /**
   * The program's host calls and output, each at its position: the events before launch k sit at
   * steps -m..-1 of launch k (m of them), those after the last launch before launch count + 1.
   */
  programEvents(): ProgramEvent[] {
    const p = this.program;
    if (!p) return [];
    const out: ProgramEvent[] = [];
    let pending: Omit<ProgramEvent, 'position'>[] = [];
    const flush = (launch: number): void => {
      pending.forEach((e, i) => out.push({ ...e, position: positionOf(launch, i - pending.length) }));
      pending = [];
    };
    for (const e of p.source.events) {
      if (e.kind === 'launch') flush(e.launch);
      else if (e.kind === 'host') pending.push({ kind: 'host', what: e.api, detail: e.op, site: e.site });
      else pending.push({ kind: 'output', what: e.stream, detail: e.text, site: undefined });
    }
    flush(p.source.launches.length + 1);
    return out;
  }

  /** The program's exit code (undefined: a single kernel, or a program stopped before its end). */
  get exitCode(): number | undefined { return this.program?.source.exitCode; }

  // ---- memory across launches (issue #25, helper tmem): program/memory.ts -----------------------
  // A program's write watchpoints on global memory see every launch and the host's copies;
  // origin continues into earlier launches and the host. One block, apart from the rest.

  private memSource: ProgramMemorySource | undefined;
  private get mem(): ProgramMemorySource {
    const p = this.program!;
    return (this.memSource ??= memorySourceOf(p.source, (n) => p.session(n)));
  }
  /** Write watchpoints on global memory in a program: they are the program's, not one launch's. */
  private readonly pwatches: (WatchpointInfo & { readonly format: (b: Uint8Array) => string })[] = [];
  /**
   * Where the last watch or origin stop was when no thread made the change (a host call, an
   * unrecorded launch): its index among the program's events, so that the next continue goes on
   * from there rather than from the launch shown. Any other stop clears it.
   */
  private eventStop: number | undefined;

  /** A program's watchpoint for a write watch on global memory; undefined: the launch's own watch. */
  private programWatch(expr: string, kind: WatchKind, space: string, address: number, size: number, format: (b: Uint8Array) => string): WatchpointInfo | undefined {
    if (!this.program || space !== 'global' || kind !== 'write') return undefined;
    const wp = { id: this.program.takeId(), expr, kind, space: 'global' as const, address, size, block: undefined, thread: undefined, enabled: true, hits: 0, format };
    this.pwatches.push(wp);
    return wp;
  }

  /** continue / reverse-continue in a program: the nearer of the next breakpoint stop and the next change of a watched range. */
  private programContinue(dir: Direction): StopEvent {
    const p = this.program!;
    const from: ProgramPoint = this.eventStop !== undefined
      ? { kind: 'host', index: this.eventStop + (dir === 'forward' ? 1 : 0) }
      : { kind: 'launch', launch: p.current, step: this.session.position() };
    const ps = p.cont(p.current, dir);
    const watches = this.pwatches.filter((w) => w.enabled);
    if (!watches.length) return this.programStop(ps);
    const src = this.mem;
    // a breakpoint stop bounds the search; the program's end (start) does not
    const limit = ps.stop.reason === 'end' || ps.stop.reason === 'start' ? undefined : { event: launchIndex(src, ps.launch), step: ps.stop.step };
    let best: { w: ProgramWriter; wp: (typeof watches)[number] } | undefined;
    for (const wp of watches) {
      const w = findWriter(src, { offset: wp.address, size: wp.size }, from, dir, limit);
      if (w && (!best || (comparePlaces(writerPlace(src, w), writerPlace(src, best.w)) < 0) === (dir === 'forward'))) best = { w, wp };
    }
    if (!best) return this.programStop(ps);
    best.wp.hits++;
    const hit = { kind: 'watchpoint' as const, id: best.wp.id, access: 'write' as const };
    return this.showWriter(best.w, dir, watchStopText(best.wp.id, best.wp.expr, best.w, dir, best.wp.format), 'watchpoint', hit);
  }

  /**
   * Stop where a writer is: a thread's write (backward at the writing step, forward just after
   * it, the thread in focus), else the device after the host call or unrecorded launch (the next
   * recorded launch's start; the last one's end when none follows).
   */
  private showWriter(w: ProgramWriter, dir: Direction, message: string, reason: Stop['reason'], hit: Stop['hit']): StopEvent {
    if (w.kind === 'device') {
      this.enter(w.launch);
      const s = this.session;
      s.goto(dir === 'backward' ? w.step : w.step + 1);
      s.setFocus(w.block, w.thread);
      return this.stopped({ reason, step: s.position(), message, hit });
    }
    const at = w.event.index;
    const launches = this.mem.events.filter((e): e is MemoryLaunchEvent => e.kind === 'launch' && e.recorded);
    const next = launches.find((e) => e.index > at);
    const show = next ?? launches.filter((e) => e.index < at).pop()!;
    this.enter(show.launch);
    this.session.goto(next ? 0 : this.session.total);
    const st = this.stopped({ reason, step: this.session.position(), message: `${message}
(no thread made this change: showing the ${next ? 'start' : 'end'} of launch ${show.launch})`, hit });
    this.eventStop = at;
    return st;
  }

  /**
   * origin of global memory in a program: this launch's last write before here when there is
   * one (undefined: the caller asks the session), else the last change before the launch.
   */
  private originAcross(target: WatchTarget, what: string): OriginAnswer | undefined {
    const s = this.session;
    const p = s.position();
    if (collectAccesses(s.trace, target, 'write', 0, p).length) { s.trace.goto(p); return undefined; }
    s.trace.goto(p);
    const o = originBefore(this.mem, this.program!.current, { offset: target.address, size: target.size });
    if (!o) throw new EngineError(`No write to ${s.memoryName(target)} in the program before here: it holds what its allocation started with.`);
    const by = writerText(o.writer);
    if (o.writer.kind === 'device' && o.hop) {
      this.enter(o.writer.launch);
      const here = this.session;
      here.lastOrigin = o.hop;
      return { stop: this.stopped({ reason: 'goto', step: here.position(), message: `Now at launch ${o.writer.launch} step ${o.hop.step}: ${here.describeStep(o.hop.step, o.hop.lane)}` }), hop: o.hop, what, by };
    }
    // no thread wrote it (a host call, an unrecorded launch): the answer names who; the position stays
    return { stop: this.stopped({ reason: 'no-move', step: s.position(), message: '(no thread of the program wrote it: the position stays)' }), hop: undefined, what, by, before: o.writer.before, after: o.writer.after };
  }

  /** `history` of a global range over the whole program (a program only; undefined otherwise). */
  writesAcross(offset: number, size: number): readonly ProgramWriter[] | undefined {
    return this.program ? programHistory(this.mem, { offset, size }) : undefined;
  }

  // ---- used by the terminal front end (tui/, issue #26) -----------------------------------------
  // What the TUI's panes read that the sections above do not give, so that tui/ needs no
  // Session: one block, kept apart from the rest of the class so that edits elsewhere merge.

  /** The PTX text as recorded (the PTX pane draws it with its own line splitting). */
  get ptxText(): string { return this.session.ptxText; }

  /** The fault that ended the run: its message and the step it happened at (the end). */
  get fault(): { readonly message: string; readonly step: number } | undefined {
    const m = this.session.faultMessage;
    return m === undefined ? undefined : { message: m, step: this.session.faultStep };
  }

  /**
   * Source location of an instruction, or of the next one that has a `.loc` (a thread that has
   * not started yet sits on the entry, whose first instructions often have none).
   */
  instructionSource(fn: string, pc: number): { readonly file: string; readonly line: number } | undefined {
    const program = this.session.program;
    const f = program.functions.get(fn);
    if (!f) return undefined;
    for (let i = Math.max(0, pc); i < f.instrs.length; i++) {
      const fi = f.locFile[i]!;
      if (fi >= 0) {
        const file = program.files.get(fi);
        return file === undefined ? undefined : { file, line: f.locLine[i]! };
      }
    }
    return undefined;
  }

  /** The focused thread's register `name` (%r1) as bits, undefined when it has none. */
  registerBits(name: string): bigint | undefined { return this.session.threadView().readRegister(name); }
  /** Where a PTX symbol lives, as the focused thread sees it. */
  symbolAddress(name: string): { space: SpaceName; address: bigint } | undefined { return this.session.threadView().symbolAddress(name); }

  private tuiDebugInfo: DebugInfo | null | undefined;
  /** The program's DWARF, decoded once; undefined when it cannot be read. */
  private dwarf(): DebugInfo | undefined {
    if (this.tuiDebugInfo === undefined) {
      try { this.tuiDebugInfo = DebugInfo.fromProgram(this.session.program); } catch { this.tuiDebugInfo = null; }
    }
    return this.tuiDebugInfo ?? undefined;
  }

  /** Whether the program's DWARF describes variables (an -O3 build has none: use the texts below). */
  hasVariables(): boolean { return this.dwarf()?.hasVariables ?? false; }
  /** The focused thread's locals, arguments and globals as trees (throws PrintError). */
  variableTree(): { locals: VarNode[]; args: VarNode[]; globals: VarNode[] } {
    const info = this.dwarf();
    return info ? variableTree(info, this.session.threadView()) : { locals: [], args: [], globals: [] };
  }
  /** gdb's `info locals` / `info args` text for the focused thread (throws PrintError). */
  localsText(): string { return infoLocals(this.session.debugInfo(), this.session.threadView()); }
  argsText(): string { return infoArgs(this.session.debugInfo(), this.session.threadView()); }

  /** Where an expression's value lives (undefined when not in memory or not valid here). */
  addressOf(expr: string): { space: SpaceName; address: bigint } | undefined {
    const info = this.dwarf();
    if (!info) return undefined;
    try {
      const r = evaluateExpression(info, this.session.threadView(), expr);
      if (r.address === undefined || r.space === undefined) return undefined;
      const spaces: readonly string[] = ['global', 'shared', 'local', 'const', 'param', 'generic'];
      return { space: (spaces.includes(r.space) ? r.space : 'generic') as SpaceName, address: r.address };
    } catch {
      return undefined;
    }
  }

  // ---- writes and what-if timelines (src/engine/whatif, issue #27) -------------------------------
  // A write never changes the recording: it forks a what-if timeline (the launch re-run with the
  // write applied at its step) and the engine continues in that timeline's session.

  private whatIf: Timelines | undefined;
  private get timelineSet(): Timelines { return (this.whatIf ??= new Timelines(this.session)); }

  /**
   * An assignment at the current position, in the focused thread's selected frame: `limit = 6`,
   * `tile[2] = 100`, `$r5 = 3`, `{int} 0x7f0000000010 = 4`, `x += 1` (C conversions to the left
   * operand's type). A write to program state forks a what-if timeline from here (or adds to the
   * current one) and moves into it at the same step; `$name = v` sets a convenience variable in
   * `history`. EngineError 'bad-write' for a non-lvalue or storage that cannot be written,
   * 'bad-expression' for an expression that does not evaluate.
   */
  assign(expr: string, history?: ValueHistory): { readonly lhs: string; readonly forked: boolean; readonly timeline: TimelineInfo; readonly position: Position } {
    // a program's moves go through its launches' recorded sessions: a what-if there would be left
    // silently at the next move, so writes to program state stay a single launch's feature for now
    const refuse = this.program ? 'Writes (what-if timelines) work in a session on one launch: open the launch alone with `ptxdbg exec --break KERNEL#N -- ./app` to try a change; a whole-program session only reads.' : undefined;
    const out = this.timelineSet.write(this.session, expr, history, refuse);
    if (out.session) this.useSession(out.session);
    return { lhs: out.planned.lhs, forked: out.session !== undefined, timeline: this.timeline(), position: positionOf(this.launchNo, out.step) };
  }

  /** The current timeline: the original recording (id 0) or a what-if. */
  timeline(): TimelineInfo { return this.timelineSet.list().find((t) => t.current)!; }
  /** Every timeline of this engine, the original first. */
  timelines(): TimelineInfo[] { return this.timelineSet.list(); }

  /** Travel to timeline `id` (0: the original recording) at the current step (its last step when it is shorter). */
  selectTimeline(id: number): StopEvent {
    const s = this.timelineSet.travel(this.session, id);
    this.useSession(s);
    const t = this.timeline();
    return this.stopped({ reason: 'goto', step: s.position(), message: `Now in ${t.id === 0 ? 'the original recording' : t.name} at step ${s.position()} of ${s.total}.` });
  }

  /**
   * DAP's setExpression: `expr = value` in frame `frame` of the focused thread (a write: forks or
   * extends a what-if timeline); the expression's new value.
   */
  setExpression(expr: string, value: string, frame?: number): Evaluation {
    if (frame !== undefined) this.selectFrame(frame);
    const level = this.selectedFrame;
    this.assign(`${expr} = ${value}`);
    return this.evaluate(expr, level);
  }

  /** DAP's setVariable: variable `name` of container `containerId` (as `variables` listed it) := `value`. */
  setVariable(containerId: number, name: string, value: string): Evaluation {
    const v = this.containers.get(containerId).find((x) => x.name === name);
    if (!v) throw new EngineError(`No variable ${name} in container ${containerId}.`, 'bad-request');
    if (v.expression === undefined) throw new EngineError(`${name} cannot be assigned: it is not an lvalue.`, 'bad-write');
    return this.setExpression(v.expression, value);
  }

  private useSession(s: Session): void {
    if (s === this.session) return;
    sessions.set(this, s);
    engines.set(s, this);
    s.activate();
    this.containers.clear();
  }

  /** The race checker runs the launch as recorded: a what-if timeline has no race report. */
  private racesChecked(): void {
    if (this.whatIf && this.whatIf.current !== 0) throw new EngineError('The race report is of the original recording: "timeline original" returns to it (a what-if timeline is not race-checked).', 'bad-request');
  }
}
