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


const WRITABLE: readonly string[] = ['global', 'shared', 'local'];

/** A session records one launch: its positions are in launch 0 (the whole-program timeline, #25, adds more). */
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

  private session: Session;

  /** Engines are made by `Engine.open`, `openEngine*` and `engineOf` (one per session). */
  private constructor(s: Session) {
    this.session = s;
    sessions.set(this, s);
    engines.set(s, this);
  }

  /** @internal the engine of a session (engineOf). */
  static of(s: Session): Engine {
    return engines.get(s) ?? new Engine(s);
  }

  static open(o: SessionOptions): Engine {
    return Engine.of(openSession(o));
  }

  get total(): number { return this.session.total; }
  /** The current position on the program timeline. */
  position(): Position { return positionOf(LAUNCH, this.session.position()); }
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
    if (to.launch !== LAUNCH) throw new EngineError(`launch ${to.launch} does not exist: this session records one launch (0)`, 'out-of-range');
    return this.stopped(this.session.goto(to.step));
  }

  step(r: StepRequest): StopEvent {
    const from = this.session.position();
    // a line step stops at a breakpoint or watchpoint the thread meets on the way (gdb's next)
    return this.stopped(r.granularity === 'line' ? this.session.onTheWay(from, this.session.stepLine(r.into ?? false, r.direction), r.direction) : this.session.stepInstruction(r.direction, !(r.into ?? false)));
  }

  /**
   * To the next (previous) breakpoint, watchpoint or end. `races`: stop first at a race access on
   * the way (DAP's "Data races" exception filter).
   */
  continue(r: ContinueRequest): StopEvent {
    const from = this.position().step;
    const landed = this.stopped(this.session.cont(r.direction));
    return r.races ? this.raceOnTheWay(from, landed, r.direction) : landed;
  }

  /** gdb's `run`: from step 0 to the first breakpoint or watchpoint (a hit at step 0 counts). */
  run(r: { readonly races?: boolean } = {}): StopEvent {
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
    const w = this.session.where();
    return { reason: s.reason, position: positionOf(LAUNCH, s.step), total: this.total, thread: this.focus(), frame: w.frames[0], hit: s.hit, message: s.message };
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
      try { this.session.deleteBreakpoint(id); } catch (e) { if (!(e instanceof EngineError)) throw e; }
    }
    const out = add();
    this.groups.set(group, out.flatMap((r) => (r.id === undefined ? [] : [r.id])));
    return out;
  }

  private addSpec(spec: string, condition: string | undefined, hitCondition: string | undefined): BreakpointResult {
    try {
      const hc = hitCondition?.trim() ? parseHitCondition(hitCondition) : undefined;
      const b = this.session.addBreakpoint(condition?.trim() ? `${spec} if ${condition.trim()}` : spec, false, hc);
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
    return this.session.addBreakpoint('ptxLine' in at ? `ptx:${at.ptxLine}` : `${at.file.replace(/^.*[\\/]/, '')}:${at.line}`);
  }

  /** Delete breakpoints or watchpoints by id; returns the engine's confirmation per id. */
  deleteBreakpoints(ids: readonly number[]): string[] {
    return ids.map((id) => this.session.deleteBreakpoint(id));
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
      return { wp: s.addWatchpoint(expr, kind, space, Number(address & 0xffffffffn), size, formatterFor('int', size)), raw: true };
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
    return { wp: s.addWatchpoint(label, kind, v.space as 'global' | 'shared' | 'local', addr, Math.max(1, v.size), formatterFor(v.type, v.size)), raw: false };
  }

  breakpoints(): readonly BreakpointInfo[] { return this.session.breakpoints(); }
  watchpoints(): readonly WatchpointInfo[] { return this.session.watchpoints(); }

  /** Replace the watchpoints (DAP's data breakpoints): each expression is resolved now. */
  setWatchpoints(reqs: readonly WatchRequest[]): { verified: boolean; id: number | undefined; message: string | undefined }[] {
    const out: { verified: boolean; id: number | undefined; message: string | undefined }[] = [];
    for (const id of this.groups.get('data') ?? []) {
      try { this.session.deleteBreakpoint(id); } catch (e) { if (!(e instanceof EngineError)) throw e; }
    }
    for (const r of reqs) {
      try {
        const ev = this.evaluate(r.expression);
        if (!ev.lvalue) throw new EngineError(`${r.expression} is not writable memory of the focused thread`, 'bad-watch');
        const wp = this.session.addWatchpoint(r.expression, r.kind, ev.lvalue.space, ev.lvalue.address, ev.lvalue.size, formatterFor(ev.type, ev.lvalue.size));
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
      return s.registerHistory(reg, limit).map((w) => ({ position: positionOf(LAUNCH, w.step), thread: me, file: w.file, line: w.line, before: undefined, after: registerValue(rtype, w.value), atomic: false }));
    }
    const ev = this.evaluate(expr);
    if (!ev.lvalue) throw new EngineError(`history needs a register or an lvalue in global, shared or local memory`, 'bad-request');
    const { space, address, size } = ev.lvalue;
    const fmt = formatterFor(ev.type, size);
    const target = { space, address, size, ctaId: s.focusBlockId(), warpKey: s.focusKey, lane: s.focusLane };
    return s.memoryHistory(target, 'write').slice(-limit).map((e) => {
      const g = s.trace.log.loc(e.step);
      return {
        position: positionOf(LAUNCH, e.step), thread: this.threadRef(ctaOfKey(e.warpKey), tidOfKey(e.warpKey, e.lane)), file: s.code.fileName(g), line: s.code.line[g]!,
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
    const { stop, hop } = s.origin(source);
    const what = source.kind === 'register' ? source.name : `${s.memoryName(source.target)}, ${source.target.size} bytes,`;
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
    for (let i = 0; i < tl.length && out.length < limit; i++) if (at(tl.locs[i]!)) out.push(positionOf(LAUNCH, tl.steps[i]!));
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
  setSourceDir(dir: string): void { this.session.setSourceDir(dir); }
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
    return this.session.addBreakpoint(location, temporary);
  }
  /** Delete breakpoint or watchpoint `id` (every one when undefined); gdb's reply. */
  deleteBreakpoint(id: number | undefined): string { return this.session.deleteBreakpoint(id); }
  enableBreakpoint(id: number, on: boolean): void { this.session.enableBreakpoint(id, on); }
  /** Pass the next `count` hits of breakpoint `id`. */
  ignoreBreakpoint(id: number, count: number): void { this.session.ignoreBreakpoint(id, count); }
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
    const out = this.timelineSet.write(this.session, expr, history);
    if (out.session) this.useSession(out.session);
    return { lhs: out.planned.lhs, forked: out.session !== undefined, timeline: this.timeline(), position: positionOf(LAUNCH, out.step) };
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
    this.session = s;
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
