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
import { coordsOf, linearOf } from '../exec/launch.js';
import type { RaceReport } from '../races/index.js';
import { EngineError } from './errors.js';
import { DebugInfo, evaluateExpression, infoArgs, infoLocals, type ValueHistory, variableTree, type VarNode } from './print/index.js';
import { gotoRace, sessionRaces } from './races.js';
import { openSession, Session, type SessionOptions } from './session.js';
import type {
  ContinueRequest, RegisterValue, TimelineMark, WarpInfo, Dim3, Direction, Evaluation, FrameInfo, SpaceName, StepRequest, Stop, StopEvent, ThreadInfo,
} from './types.js';
import type { Position } from '../trace/position.js';
import { type TimelineInfo, Timelines } from './whatif/timelines.js';
import { ProgramTimeline } from './program/timeline.js';
// the API's types live in types.ts; re-exported for the modules that still import them from here
export type {
  AddedWatch, BreakpointRequest, BreakpointResult, Direction, Evaluation, Instruction, LaneValue, OriginAnswer, Scope, StepRequest, StopEvent,
  ThreadInfo, ThreadRef, Variable, WatchRequest, Write,
} from './types.js';

import { boundEngine, LAUNCH } from './api/base.js';
import { EngineBreakpoints } from './api/breakpoints.js';
export { sessionOf } from './api/base.js';

/** The session's engine (one per session, shared by its front ends: breakpoint groups, containers). */
export function engineOf(s: Session): Engine {
  return Engine.of(s);
}

/** The engine (its parts, one concern per file, are the layers in api/: see api/base.ts). */
export class Engine extends EngineBreakpoints {
  /** Engines are made by `Engine.open`, `openEngine*` and `engineOf` (one per session). */
  private constructor(s: Session) {
    super(s);
  }

  /** @internal an engine over a whole program's launches (openProgramEngine), in its first recorded launch. */
  static ofProgram(p: ProgramTimeline): Engine {
    const e = new Engine(p.session(p.current));
    e.program = p;
    return e;
  }

  /** @internal the engine of a session (engineOf). */
  static of(s: Session): Engine {
    return (boundEngine(s) as Engine | undefined) ?? new Engine(s);
  }

  static open(o: SessionOptions): Engine {
    return Engine.of(openSession(o));
  }

  // ---- moving ---------------------------------------------------------------------------------

  /** Travel to a position (EngineError 'out-of-range' outside the recording). */
  goto(to: Position): StopEvent {
    if (this.program) {
      if (to.step < 0) return this.gotoHost(to);
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
    return this.program?.races(this.launchNo) ?? sessionRaces(this.session);
  }

  // ---- threads and frames -----------------------------------------------------------------------


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
  registers(): RegisterValue[] { return this.hostPos ? [] : this.session.registers(); } // none at a host call
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

  // ---- used by the terminal front end (tui/, issue #26) -----------------------------------------
  // What the TUI's panes read that the sections above do not give, so that tui/ needs no
  // Session: one block, kept apart from the rest of the class so that edits elsewhere merge.

  /** The PTX text as recorded (the PTX pane draws it with its own line splitting). */
  get ptxText(): string { return this.session.ptxText; }

  /** The fault that ended the run: its message and the position it happened at (the launch's end). */
  get fault(): { readonly message: string; readonly at: Position } | undefined {
    const m = this.session.faultMessage;
    return m === undefined ? undefined : { message: m, at: this.session.at(this.session.faultStep) };
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
  /** A program's what-if timelines, per launch (a write forks the launch it is made in). */
  private readonly launchWhatIfs = new Map<number, Timelines>();
  private get timelineSet(): Timelines {
    const p = this.program;
    if (!p) return (this.whatIf ??= new Timelines(this.session));
    // a launch without writes: a fresh set over its recording (kept only once a write forks it,
    // when the program pins that recording open)
    const n = this.launchNo;
    return this.launchWhatIfs.get(n) ?? new Timelines(p.recorded(n), () => p.freshLaunch(n));
  }

  /**
   * An assignment at the current position, in the focused thread's selected frame: `limit = 6`,
   * `tile[2] = 100`, `$r5 = 3`, `{int} 0x7f0000000010 = 4`, `x += 1` (C conversions to the left
   * operand's type). A write to program state forks a what-if timeline from here (or adds to the
   * current one) and moves into it at the same step; `$name = v` sets a convenience variable in
   * `history`. EngineError 'bad-write' for a non-lvalue or storage that cannot be written,
   * 'bad-expression' for an expression that does not evaluate.
   *
   * In a whole program the what-if is a fork of the launch in focus: the write is seen by that
   * launch from its step on; the launches after it stay the recorded ones (not re-executed). At
   * a host call no device thread runs: writes to program state are refused there.
   */
  assign(expr: string, history?: ValueHistory): { readonly lhs: string; readonly forked: boolean; readonly timeline: TimelineInfo; readonly position: Position } {
    const host = this.hostStop();
    const refuse = host ? `cannot write at a host call (${host.what}${host.site ? ` at ${host.site}` : ''}): no device thread runs there; go to a launch (launch N) to write` : undefined;
    const set = this.timelineSet;
    const out = set.write(this.session, expr, history, refuse);
    if (out.session) {
      this.useSession(out.session);
      const p = this.program;
      if (p) {
        this.launchWhatIfs.set(this.launchNo, set);
        p.useWhatIf(this.launchNo, out.session);
      }
    }
    return { lhs: out.planned.lhs, forked: out.session !== undefined, timeline: this.timeline(), position: this.session.at(out.step) };
  }

  /** The current timeline: the original recording (id 0) or a what-if. */
  timeline(): TimelineInfo { return this.timelineSet.list().find((t) => t.current)!; }
  /** Every timeline of this engine, the original first. */
  timelines(): TimelineInfo[] { return this.timelineSet.list(); }

  /** Travel to timeline `id` (0: the original recording) at the current step (its last step when it is shorter). */
  selectTimeline(id: number): StopEvent {
    const set = this.timelineSet;
    const s = set.travel(this.session, id);
    this.useSession(s);
    this.program?.useWhatIf(this.launchNo, id === 0 ? undefined : s);
    const t = this.timeline();
    return this.stopped({ reason: 'goto', at: s.here(), message: `Now in ${t.id === 0 ? 'the original recording' : t.name} at step ${s.position()} of ${s.total}.` });
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

  /** The race checker runs the launch as recorded: a what-if timeline has no race report. */
  private racesChecked(): void {
    const set = this.program ? this.launchWhatIfs.get(this.launchNo) : this.whatIf;
    if (set && set.current !== 0) throw new EngineError('The race report is of the original recording: "timeline original" returns to it (a what-if timeline is not race-checked).', 'bad-request');
  }
}
