/**
 * The debugger engine: a recorded run plus a position in it, a focused thread, breakpoints and
 * watchpoints, and navigation in both directions.
 *
 * The whole launch is recorded first (like rr's record phase); every command then moves the
 * position inside the recording. Forward and backward are the same operation: find the target
 * step from the step log (or by replaying intervals for memory watches), then `Trace.goto` it.
 * Front ends talk to the `DebugSession` interface (types.ts); the gdb command language lives in
 * src/frontends/gdb and is one front end among others.
 */
import { DEFAULT_RUN_OPTIONS, Machine, type RunOptions } from '../exec/machine.js';
import { coordsOf, type Launch, LaunchError, linearOf } from '../exec/launch.js';
import { lowestLane } from '../exec/int64.js';
import { WarpState, type Warp } from '../exec/state.js';
import { loadPtx, renderDiagnostics, renderKernelProblems } from '../ptx/index.js';
import { unsupportedInstructions } from '../exec/support.js';
import { entryNames, entryOf, KernelProblems, type Program } from '../ptx/resolve.js';
import { resolveLaunch, type LaunchFlags } from './load.js';
import { formatFault } from './fault.js';
import { EngineError } from './errors.js';
import { DebugInfo } from './print/debuginfo.js';
import type { RaceReport } from '../races/index.js';
import { ctaOfKey, DEFAULT_INTERVAL, keyOf, warpOfKey, type RecordProgress, tidOfKey, Trace } from '../trace/trace.js';
import { BreakpointError, type HitCondition, resolveSpec } from './breakpoints.js';
import { type BreakpointHit, type Bp, type OnlyThread, StopPoints, type WatchHit } from './stoppoints.js';
import { checkConditionSyntax, conditionErrorText } from './conditions.js';
import { CodeIndex } from './code-index.js';
import { FinishedThreadView, laneFrames, MachineThreadView } from './threadview.js';
import { baseName, SourceCache } from './sources.js';
import { memoryOrigin, type OriginHop, type OriginSource, registerOrigin } from './origin.js';
import { describeGlobalOffset, type ElementInfo } from '../exec/fault-site.js';
import { GLOBAL_HI } from '../exec/memory.js';
import { typeSize } from '../ptx/types.js';
import { ThreadTimeline } from './timeline.js';
import { evaluateExpression, PrintError } from './print/index.js';
import { nextLineIndex, previousLineIndex } from './navigation.js';
import type {
  BreakpointInfo, DebugSession, Dim3, FrameInfo, LaneState, RegisterValue, Stop, ThreadView, TimelineMark,
  WarpInfo, WatchKind, WatchpointInfo, Where,
} from './types.js';
import type { Direction } from '../trace/position.js';
import { collectAccesses, type AccessEvent, type WatchTarget } from './watch.js';
import { registerHistory, type RegisterWrite } from './history.js';
import { Access } from '../exec/probe.js';
import { ptxText } from '../exec/machine.js';
import { childLabel, childOrder } from '../exec/children.js';
import { plainName } from '../ptx/names.js';
import { MAX_SOURCE_BYTES, readBoundedText, ReadError } from '../io/bounded.js';


export interface SessionOptions extends LaunchFlags {
  ptxPath: string;
  /** PTX text (read from ptxPath when absent). */
  ptxText?: string | undefined;
  /** Launch file (same as the `launch` flag). */
  launchPath?: string | undefined;
  /** A launch object (overrides the launch flags), e.g. from a trace file. */
  launchObject?: Launch | undefined;
  schedule?: 'rr' | 'random' | undefined;
  seed?: number | undefined;
  maxSteps?: number | undefined;
  /** Checkpoint interval in warp-steps (power of two). */
  interval?: number | undefined;
}

/** Default recording limit: a runaway loop stops here instead of filling memory. */
export const SESSION_MAX_STEPS = 50_000_000;

/** A watchpoint on a register of one thread (a local that lives in a register, or `$r5`). */
export interface RegisterWatchInfo {
  readonly id: number;
  readonly expr: string;
  readonly register: string;
  readonly function: string;
  readonly block: Dim3;
  readonly thread: Dim3;
  enabled: boolean;
  hits: number;
}

interface RegWp extends RegisterWatchInfo {
  readonly key: number;
  readonly lane: number;
  /** Call depth of the frame the watch was set in (frames of the thread at that moment). */
  readonly depth: number;
  /** Renders the value's bytes (hex string of little-endian bytes) in the expression's type. */
  readonly format: (hexBytes: string) => string;
}

/** Load PTX and launch, record the run, and open a session at step 0. Throws EngineError. */
export function openSession(o: SessionOptions): Session {
  const p = prepareSession(o);
  const trace = Trace.record(p.machine, { interval: o.interval ?? DEFAULT_INTERVAL });
  const s = new Session(o.ptxPath, p.text, p.program, p.launch, p.opts, trace);
  s.loadWarnings = p.loadWarnings ?? '';
  return s;
}

/**
 * Like openSession, recording with progress reports and stoppable (Ctrl-C): a stopped recording
 * opens on the steps recorded so far.
 */
export async function openSessionAsync(o: SessionOptions, rec: { onProgress?: (p: RecordProgress) => void; signal?: AbortSignal } = {}): Promise<Session> {
  const p = prepareSession(o);
  const trace = await Trace.recordAsync(p.machine, { interval: o.interval ?? DEFAULT_INTERVAL, ...rec });
  const s = new Session(o.ptxPath, p.text, p.program, p.launch, p.opts, trace);
  s.loadWarnings = p.loadWarnings ?? '';
  return s;
}

function prepareSession(o: SessionOptions): { text: string; program: Program; launch: Launch; opts: RunOptions; machine: Machine; loadWarnings: string | undefined } {
  let text = o.ptxText;
  if (text === undefined) {
    try {
      text = readBoundedText(o.ptxPath, MAX_SOURCE_BYTES);
    } catch (e) {
      if (e instanceof ReadError) throw new EngineError(e.message, 'read-failed');
      throw e;
    }
  }
  const loaded = loadPtx(text, o.ptxPath, { lazy: true });
  if (!loaded.program) throw new EngineError(renderDiagnostics(loaded), 'bad-ptx');
  const program = loaded.program;
  let launch: Launch;
  try {
    launch = o.launchObject ?? resolveLaunch(o.ptxPath, program, { ...o, launch: o.launch ?? o.launchPath });
    entryOf(program, launch.kernel); // a launch object names its kernel without resolving it
  } catch (e) {
    if (e instanceof KernelProblems) throw new EngineError(renderKernelProblems(program, e), 'bad-ptx');
    if (e instanceof LaunchError || e instanceof EngineError) throw new EngineError(`bad launch: ${e.message}`, 'bad-launch');
    throw e;
  }
  const opts: RunOptions = {
    ...DEFAULT_RUN_OPTIONS,
    schedule: o.schedule ?? 'rr',
    seed: o.seed ?? 1,
    maxSteps: o.maxSteps ?? SESSION_MAX_STEPS,
  };
  let machine: Machine;
  try {
    machine = new Machine(program, launch, opts);
  } catch (e) {
    throw new EngineError(`cannot launch: ${(e as Error).message}`, 'cannot-launch');
  }
  // what `check` reports as errors, the debugger reports at load as warnings: the run stops at
  // such an instruction only if a thread reaches it
  const unsupported = unsupportedInstructions(program).map((d) => ({ ...d, severity: 'warning' as const }));
  const loadWarnings = unsupported.length ? renderDiagnostics({ ...loaded, diagnostics: unsupported }) : undefined;
  return { text, program, launch, opts, machine, loadWarnings };
}

export class Session implements DebugSession {
  readonly code: CodeIndex;
  readonly machine: Machine;
  /** Focused thread: CTA linear id and linear thread index in the CTA. */
  private focusCta = 0;
  private focusTid = 0;
  private frameLevel = 0;
  private timeline: ThreadTimeline | undefined;
  /** Breakpoints and watchpoints, and the search for their hits (stoppoints.ts). */
  private points: StopPoints;
  private readonly hitMarks: TimelineMark[] = [];
  private prevRegs = new Map<string, bigint>();
  private prevRegsKey = '';
  /** The race report of this run and its timeline marks, computed on first use (see races.ts). */
  raceReport: RaceReport | undefined;
  raceMarks: readonly TimelineMark[] = [];
  /** Located warnings found at load (instructions the interpreter cannot execute), or ''. */
  loadWarnings = '';
  /** The CUDA sources named by `.file` (see sources.ts). */
  sources: SourceCache;

  constructor(
    readonly ptxPath: string,
    readonly ptxText: string,
    readonly program: Program,
    readonly launch: Launch,
    readonly options: RunOptions,
    readonly trace: Trace,
  ) {
    this.machine = trace.machine;
    this.code = new CodeIndex(this.machine);
    this.points = new StopPoints(trace, this.code, ptxText, launch);
    this.points.conditionAt = (expr, step, key, lane) => this.conditionAt(expr, step, key, lane);
    this.points.checkCondition = (expr) => checkConditionSyntax(this.debugInfo(), expr);
    this.sources = new SourceCache(ptxPath, undefined);
    trace.goto(0);
  }

  get total(): number { return this.trace.total; }
  /** The recording was stopped (Ctrl-C) before the kernel finished. */
  get interrupted(): boolean { return this.trace.interrupted; }
  get faultMessage(): string | undefined { return this.trace.fault ? formatFault(this.trace.fault) : undefined; }
  get faultStep(): number { return this.trace.fault ? this.trace.total : -1; }

  position(): number {
    return this.machine.warpSteps;
  }

  // ---- focus ---------------------------------------------------------------------------------------

  focusBlockId(): number { return this.focusCta; }

  /** Also look for CUDA sources in `dir`. */
  setSourceDir(dir: string): void {
    this.sources = new SourceCache(this.ptxPath, dir);
  }

  get focusKey(): number { return keyOf(this.focusCta, this.focusTid >>> 5); }
  get focusLane(): number { return this.focusTid & 31; }

  focusBlock(): Dim3 {
    return coordsOf(this.focusCta, this.launch.grid);
  }

  focusThread(): Dim3 {
    return coordsOf(this.focusTid, this.launch.block);
  }

  /** Focus a thread by block and thread coordinates; returns an error message or undefined. */
  setFocus(block: Dim3 | undefined, thread: Dim3 | undefined): string | undefined {
    const [gx, gy, gz] = this.launch.grid;
    const [bx, by, bz] = this.launch.block;
    const b = block ?? this.focusBlock();
    const t = thread ?? this.focusThread();
    if (b[0] >= gx || b[1] >= gy || b[2] >= gz || b.some((x) => x < 0)) return `block (${b.join(',')}) is outside the grid (${gx},${gy},${gz})`;
    if (t[0] >= bx || t[1] >= by || t[2] >= bz || t.some((x) => x < 0)) return `thread (${t.join(',')}) is outside the block (${bx},${by},${bz})`;
    const cta = linearOf(b, this.launch.grid);
    const tid = linearOf(t, this.launch.block);
    if (cta !== this.focusCta || tid !== this.focusTid) {
      this.focusCta = cta;
      this.focusTid = tid;
      this.timeline = undefined;
      this.frameLevel = 0;
    }
    return undefined;
  }

  private focusKeyLane(key: number, lane: number): void {
    const cta = ctaOfKey(key);
    const tid = tidOfKey(key, lane);
    if (cta !== this.focusCta || tid !== this.focusTid) {
      this.focusCta = cta;
      this.focusTid = tid;
      this.timeline = undefined;
      this.frameLevel = 0;
    }
  }

  /** The focused thread's steps in the recording (see timeline.ts). */
  timelineOfFocus(): ThreadTimeline { return this.thread(); }

  private thread(): ThreadTimeline {
    if (!this.timeline) this.timeline = new ThreadTimeline(this.trace.log, this.trace.logged, this.focusKey, this.focusLane, this.code);
    return this.timeline;
  }

  /** The focused warp in the machine's current state, if its block is resident. */
  focusedWarp(): Warp | undefined {
    const c = this.machine.resident.find((x) => x.id === this.focusCta);
    return c?.warps[this.focusTid >>> 5];
  }

  selectFrame(level: number): string | undefined {
    const w = this.focusedWarp();
    const n = w ? laneFrames(this.machine, w, this.focusLane).frames.length : 0;
    if (level < 0 || level >= n) return n === 0 ? 'No stack.' : `No frame at level ${level}.`;
    this.frameLevel = level;
    return undefined;
  }

  get selectedFrame(): number { return this.frameLevel; }

  /**
   * At a fault inside a helper without source (`__trap`, `__assertfail`), select the innermost
   * frame that has a source line: the user's call site, as a CUDA programmer expects.
   */
  private selectUserFrame(): void {
    const w = this.focusedWarp();
    if (!w) return;
    const frames = laneFrames(this.machine, w, this.focusLane).frames;
    if (frames.length < 2 || frames[0]!.file !== undefined) return;
    const user = frames.findIndex((f) => f.file !== undefined);
    if (user > 0) this.frameLevel = user;
  }

  // ---- state queries -------------------------------------------------------------------------------

  private laneState(w: Warp | undefined, lane: number): LaneState {
    if (!w) return this.focusCta >= this.machine.nextCta ? 'not-started' : 'retired';
    if ((w.exited >>> lane) & 1) return 'exited';
    if (w.state === WarpState.AtBarrier) return 'barrier';
    if (w.state === WarpState.Exited) return 'exited';
    return (w.mask >>> lane) & 1 ? 'active' : 'inactive';
  }

  where(): Where {
    const w = this.focusedWarp();
    const lane = this.focusLane;
    const frames: FrameInfo[] = w ? laneFrames(this.machine, w, lane).frames : [];
    // the selected frame (`frame N`, `up`, `down`) is what the header and the panes show
    const sel = Math.min(this.frameLevel, Math.max(0, frames.length - 1));
    const top = frames[sel];
    // the PTX function whose code runs there (an inlined function's frame is in its caller's code)
    const fn = frames.slice(sel).find((f) => !f.inlined)?.function ?? this.machine.kernel.name;
    const pc = top?.pc ?? 0;
    const prog = this.program.functions.get(fn);
    const ins = prog?.instrs[pc];
    return {
      step: this.position(),
      total: this.total,
      block: this.focusBlock(),
      thread: this.focusThread(),
      warp: this.focusTid >>> 5,
      lane,
      state: this.laneState(w, lane),
      function: fn,
      pc,
      ptx: ins ? ptxText(this.ptxText, ins.src.span) : '',
      file: top?.file,
      line: top?.line ?? 0,
      frames,
      activeMask: w ? w.mask : 0,
    };
  }

  warps(): WarpInfo[] {
    const out: WarpInfo[] = [];
    for (const c of this.machine.resident) {
      for (const w of c.warps) {
        const lanes: LaneState[] = [];
        for (let l = 0; l < w.nlanes; l++) {
          lanes.push((w.exited >>> l) & 1 ? 'exited' : w.state === WarpState.AtBarrier ? 'barrier' : w.state === WarpState.Exited ? 'exited' : (w.mask >>> l) & 1 ? 'active' : 'inactive');
        }
        const prog = w.frame.fn.prog;
        // a warp waiting at a barrier is shown at the barrier it issued, not the line after
        const pc = w.state === WarpState.AtBarrier && w.pc > 0 ? w.pc - 1 : w.pc;
        const fi = prog.locFile[pc] ?? -1;
        out.push({
          block: [...c.ctaid] as Dim3, warp: w.tidBase >>> 5, function: w.frame.fn.name, pc,
          file: fi >= 0 ? this.program.files.get(fi) : undefined, line: prog.locLine[pc] ?? 0, lanes,
        });
      }
    }
    return out;
  }

  threadView(): ThreadView {
    const w = this.focusedWarp();
    if (!w || laneFrames(this.machine, w, this.focusLane).frames.length === 0) {
      // exited or retired: what outlives the thread (global memory, parameters) stays readable
      const state = this.laneState(w, this.focusLane);
      if (state === 'exited' || state === 'retired') return new FinishedThreadView(this.machine, this.focusBlock(), this.focusThread());
      return new NoThreadView(this.program, this.focusBlock(), this.focusThread());
    }
    return new MachineThreadView(this.machine, w, this.focusLane, this.frameLevel);
  }

  /**
   * The warp view of a value: a thread view for each lane of the focused warp (or each thread of
   * the focused block), with the lane's state, for `print/lanes` and `print/block`.
   */
  laneViews(scope: 'warp' | 'block'): { thread: Dim3; warp: number; lane: number; state: LaneState; view: ThreadView | undefined }[] {
    const c = this.machine.resident.find((x) => x.id === this.focusCta);
    const out: { thread: Dim3; warp: number; lane: number; state: LaneState; view: ThreadView | undefined }[] = [];
    const [bx, by, bz] = this.launch.block;
    const n = bx * by * bz;
    const first = scope === 'warp' ? this.focusTid & ~31 : 0;
    const last = scope === 'warp' ? Math.min(n, first + 32) : n;
    for (let tid = first; tid < last; tid++) {
      const w = c?.warps[tid >>> 5];
      const lane = tid & 31;
      const state = this.laneStateOf(w, lane);
      const live = w !== undefined && laneFrames(this.machine, w, lane).frames.length > 0;
      out.push({ thread: coordsOf(tid, this.launch.block), warp: tid >>> 5, lane, state, view: live ? new MachineThreadView(this.machine, w!, lane, 0) : undefined });
    }
    return out;
  }

  private laneStateOf(w: Warp | undefined, lane: number): LaneState {
    if (!w) return this.focusCta >= this.machine.nextCta ? 'not-started' : 'retired';
    if ((w.exited >>> lane) & 1 || w.state === WarpState.Exited) return 'exited';
    if (w.state === WarpState.AtBarrier) return 'barrier';
    return (w.mask >>> lane) & 1 ? 'active' : 'inactive';
  }

  registers(): RegisterValue[] {
    const v = this.threadView();
    const key = `${this.focusCta}/${this.focusTid}/${v.function}`;
    const out: RegisterValue[] = [];
    for (const name of v.registerNames()) {
      const bits = v.readRegister(name) ?? 0n;
      const prev = key === this.prevRegsKey ? this.prevRegs.get(name) : undefined;
      out.push({ name, type: v.registerType(name) ?? 'b32', bits, changed: prev !== undefined && prev !== bits });
    }
    return out;
  }

  /** Remember register values at a stop, so the next stop can highlight what changed. */
  private noteRegisters(): void {
    const v = this.threadView();
    this.prevRegsKey = `${this.focusCta}/${this.focusTid}/${v.function}`;
    this.prevRegs = new Map(v.registerNames().map((n) => [n, v.readRegister(n) ?? 0n]));
  }

  output(): string {
    return this.machine.stdout;
  }

  breakpoints(): readonly BreakpointInfo[] { return this.points.bps; }
  watchpoints(): readonly WatchpointInfo[] { return this.points.wps; }
  registerWatchpoints(): readonly RegisterWatchInfo[] { return this.rwps; }

  private rwps: RegWp[] = [];

  /**
   * Watch a value of the focused thread that lives in registers (a -G local moves between
   * registers, so the expression is re-evaluated in its frame): stop when it changes.
   */
  addRegisterWatchpoint(expr: string, register: string, format: (hexBytes: string) => string): RegisterWatchInfo {
    const w = this.focusedWarp();
    const depth = w ? laneFrames(this.machine, w, this.focusLane).frames.length : 0;
    const wp: RegWp = {
      id: this.points.newId(), expr, register, function: this.where().function, block: this.focusBlock(), thread: this.focusThread(),
      enabled: true, hits: 0, key: this.focusKey, lane: this.focusLane, depth, format,
    };
    this.rwps.push(wp);
    return wp;
  }

  /**
   * The watched value at position `q`: the expression evaluated for the watch's thread in its
   * frame (same function, same call depth); undefined where that frame is not the innermost.
   */
  private watchedValue(q: number, wp: RegWp): string | undefined {
    this.trace.goto(q);
    const w = this.machine.resident.find((c) => c.id === ctaOfKey(wp.key))?.warps[warpOfKey(wp.key)];
    if (!w) return undefined;
    const frames = laneFrames(this.machine, w, wp.lane).frames;
    if (frames.length !== wp.depth || frames[0]!.function !== wp.function) return undefined;
    const view = new MachineThreadView(this.machine, w, wp.lane, 0);
    try {
      const v = evaluateExpression(this.debugInfo(), view, wp.expr);
      return v.bytes ? Array.from(v.bytes, (b) => b.toString(16).padStart(2, '0')).join('') : undefined;
    } catch (e) {
      if (e instanceof PrintError) return undefined;
      throw e;
    }
  }

  /**
   * The nearest change of a watched local from p toward `bound` (gdb's software watchpoint): the
   * thread's step after which the expression, evaluated in the watch's frame, differs.
   */
  private findRegisterWatch(p: number, dir: Direction, bound: number): { wp: RegWp; step: number; before: string | undefined; after: string | undefined } | undefined {
    const reverse = dir === 'backward';
    let best: { wp: RegWp; step: number; before: string | undefined; after: string | undefined } | undefined;
    for (const wp of this.rwps) {
      if (!wp.enabled) continue;
      const tl = new ThreadTimeline(this.trace.log, this.trace.logged, wp.key, wp.lane, this.code);
      // positions after each of the thread's steps, in order, from `from` (exclusive) to `to`
      const scan = (from: number, to: number, last: boolean): { step: number; before: string | undefined; after: string | undefined } | undefined => {
        let found: { step: number; before: string | undefined; after: string | undefined } | undefined;
        let prev = this.watchedValue(from, wp);
        for (let i = tl.indexAtOrAfter(from); i < tl.length; i++) {
          const step = tl.steps[i]!;
          if (step >= to || step + 1 > this.total) break;
          const now = this.watchedValue(step + 1, wp);
          if (now !== undefined && prev !== undefined && now !== prev) {
            found = { step, before: prev, after: now };
            if (!last) return found;
          }
          if (now !== undefined) prev = now;
        }
        return found;
      };
      let hit: { step: number; before: string | undefined; after: string | undefined } | undefined;
      if (!reverse) hit = scan(p, bound, false);
      else {
        const K = this.trace.interval;
        for (let i = Math.floor(Math.max(0, p - 1) / K); i >= 0 && (i + 1) * K > bound && !hit; i--) hit = scan(Math.max(bound, i * K), Math.min(p, (i + 1) * K), true);
      }
      if (hit && (!best || (reverse ? hit.step > best.step : hit.step < best.step))) best = { wp, ...hit };
    }
    return best;
  }

  marks(): readonly TimelineMark[] {
    const out: TimelineMark[] = [...this.hitMarks];
    if (this.trace.fault) out.push({ step: this.total, kind: 'fault' });
    out.push(...this.raceMarks);
    return out;
  }

  /** The program's decoded DWARF (decoded once per program, shared by every front end). */
  debugInfo(): DebugInfo { return DebugInfo.fromProgram(this.program); }

  // ---- moving ---------------------------------------------------------------------------------------

  /** Called first by every navigation command: the stop it makes highlights changes since here. */
  private beginMove(): void {
    this.noteRegisters();
    this.atOpen = false;
  }

  /**
   * No command has moved since the session opened: a continue from here counts a hit at the
   * current step (the launch's first instruction), as gdb's first `continue` after the kernel's
   * entry would.
   */
  private atOpen = true;

  private moveTo(step: number, reason: Stop['reason'], message: string): Stop {
    this.trace.goto(Math.max(0, Math.min(this.total, step)));
    this.frameLevel = 0;
    return { reason, message, step: this.position() };
  }

  /**
   * Start at the end when that is where the story is: a run stopped by the step limit (the
   * spinning warp in view, the hints in the message) or a recording stopped by Ctrl-C.
   */
  openAtEnd(): Stop | undefined {
    if (!this.trace.interrupted && this.trace.fault?.kind !== 'step-limit') return undefined;
    this.beginMove();
    return this.endStop();
  }

  private endStop(): Stop {
    const m = this.trace.fault;
    if (m) {
      if (m.block && m.thread) this.setFocus(m.block, m.thread);
      const st = { ...this.moveTo(this.total, 'fault', `Program stopped: ${formatFault(m)}`), hit: { kind: 'fault' as const, message: formatFault(m) } };
      this.selectUserFrame();
      return st;
    }
    if (this.trace.interrupted) return this.moveTo(this.total, 'end', `The recording was stopped after ${this.total} warp-steps, before the kernel finished. Use reverse-continue or goto to travel back.`);
    return this.moveTo(this.total, 'end', `The kernel finished after ${this.total} warp-steps.${this.childNote()} Use reverse-continue or goto to travel back.`);
  }

  /** The grids the kernel launched from device code: they run after it, outside this recording. */
  private childNote(): string {
    const kids = childOrder(this.machine);
    if (kids.length === 0) return '';
    const shown = kids.slice(0, 3).map((c) => childLabel(c, plainName)).join('; ');
    return ` It launched ${kids.length} child grid${kids.length === 1 ? '' : 's'} (${shown}${kids.length > 3 ? '; ...' : ''}), which run after it: ptxdbg run runs them, and ptxdbg exec --break KERNEL opens one in the debugger.`;
  }

  /** The one range check of a travel target: 0..total, else EngineError 'out-of-range'. */
  private checkStep(step: number): void {
    if (!Number.isInteger(step) || step < 0 || step > this.total) throw new EngineError(`step ${step} is outside the recording (0..${this.total})`, 'out-of-range');
  }

  goto(step: number): Stop {
    this.beginMove();
    this.checkStep(step);
    if (step === this.total) {
      const s = this.endStop();
      return { ...s, reason: s.reason === 'fault' ? 'fault' : 'goto' };
    }
    return this.moveTo(step, 'goto', `Now at step ${step} of ${this.total}.`);
  }

  /** stepi / reverse-stepi: the focused thread's next / previous instruction. */
  stepInstruction(dir: Direction, over = false): Stop {
    const reverse = dir === 'backward';
    this.beginMove();
    const tl = this.thread();
    const i0 = tl.indexAtOrAfter(this.position());
    if (!reverse) {
      if (i0 >= tl.length) return this.noThread();
      let i = i0 + 1;
      // nexti: a call is one instruction, so skip the callee's steps
      if (over) while (i < tl.length && tl.depth[i]! > tl.depth[i0]!) i++;
      if (i >= tl.length) return this.afterLast(tl);
      return this.moveTo(tl.steps[i]!, 'step', '');
    }
    if (i0 === 0) return this.moveTo(tl.length ? tl.steps[0]! : 0, 'start', 'The thread is at its first instruction; nothing earlier to go back to.');
    return this.moveTo(tl.steps[i0 - 1]!, 'step', '');
  }

  /** After the thread's last instruction: it has exited (or the run stopped). */
  /** Did the focused thread exit before the recording ended? (A fault or deadlock can end it first.) */
  private threadExited(): boolean {
    if (!this.trace.fault) return true;
    const p = this.position();
    this.trace.goto(this.total);
    const w = this.focusedWarp();
    const gone = !w || ((w.exited >>> this.focusLane) & 1) === 1 || w.state === WarpState.Exited;
    this.trace.goto(p);
    return gone;
  }

  /** gdb's `until`: the next line greater than this one in this frame (a loop runs to its end), or the return. */
  until(): Stop {
    this.beginMove();
    const tl = this.thread();
    const code = this.code;
    const i0 = tl.indexAtOrAfter(this.position());
    if (i0 >= tl.length) return this.noThread();
    const d0 = tl.depth[i0]!;
    const line0 = code.line[tl.locs[i0]!]!;
    const fn0 = code.fnIndex[tl.locs[i0]!];
    for (let i = i0 + 1; i < tl.length; i++) {
      const d = tl.depth[i]!;
      if (d < d0) return this.moveTo(tl.steps[i]!, 'step', '');
      if (d > d0) continue;
      const g = tl.locs[i]!;
      const line = code.line[g]!;
      if (line > line0 && code.lineStart[g] && code.fnIndex[g] === fn0) return this.moveTo(tl.steps[i]!, 'step', '');
    }
    return this.afterLast(tl);
  }

  /** gdb's `until LOCATION` / `advance LOCATION`: the focused thread runs to LOCATION, or until its frame returns. */
  runTo(spec: string): Stop {
    const where = this.where();
    let r;
    try {
      r = resolveSpec(spec, this.code, this.ptxText, { file: where.file, fn: where.function });
    } catch (e) {
      if (e instanceof BreakpointError) throw new EngineError(e.message, 'bad-breakpoint');
      throw e;
    }
    this.beginMove();
    const targets = new Set(r.globals);
    const tl = this.thread();
    const i0 = tl.indexAtOrAfter(this.position());
    if (i0 >= tl.length) return this.noThread();
    const d0 = tl.depth[i0]!;
    for (let i = i0 + 1; i < tl.length; i++) {
      if (targets.has(tl.locs[i]!)) return this.moveTo(tl.steps[i]!, 'step', '');
      if (tl.depth[i]! < d0) return this.moveTo(tl.steps[i]!, 'step', `Run till exit from #0 ${plainName(where.function)}`);
    }
    return this.afterLast(tl);
  }

  private afterLast(tl: ThreadTimeline): Stop {
    const last = tl.steps[tl.length - 1]!;
    if (this.trace.fault && (last === this.total || !this.threadExited())) return this.endStop();
    const s = this.moveTo(last + 1, 'exited', '');
    return { ...s, message: `Thread (${this.focusThread().join(',')}) of block (${this.focusBlock().join(',')}) has exited.` };
  }

  private noThread(): Stop {
    const tl = this.thread();
    if (tl.length > 0 && this.trace.fault && !this.threadExited()) return this.endStop();
    if (tl.length === 0) return { reason: 'no-move', message: `Thread (${this.focusThread().join(',')}) of block (${this.focusBlock().join(',')}) never executed in this recording.`, step: this.position() };
    return { reason: 'no-move', message: `Thread (${this.focusThread().join(',')}) of block (${this.focusBlock().join(',')}) has exited.`, step: this.position() };
  }

  /**
   * step/next (forward): run the focused thread until it reaches a different source line (or the
   * start of the same line again, as in a loop) at the same call depth; `into` also stops in a
   * callee; leaving the function stops in the caller.
   */
  stepLine(into: boolean, dir: Direction): Stop {
    const reverse = dir === 'backward';
    this.beginMove();
    const tl = this.thread();
    const i0 = tl.indexAtOrAfter(this.position());
    if (!reverse) {
      if (i0 >= tl.length) return this.noThread();
      const i = nextLineIndex(tl, this.code, i0, into);
      return i === undefined ? this.afterLast(tl) : this.moveTo(tl.steps[i]!, 'step', '');
    }
    if (i0 === 0 || tl.length === 0) return this.moveTo(tl.length ? tl.steps[0]! : 0, 'start', 'The thread is at its first line; nothing earlier to go back to.');
    return this.moveTo(tl.steps[previousLineIndex(tl, this.code, i0, into)]!, 'step', '');
  }

  /** finish: run until the current function returns; reverse: back to its call site. */
  finish(dir: Direction): Stop {
    const reverse = dir === 'backward';
    this.beginMove();
    const tl = this.thread();
    const i0 = tl.indexAtOrAfter(this.position());
    if (i0 >= tl.length && !reverse) return this.noThread();
    const d0 = i0 < tl.length ? tl.depth[i0]! : tl.depth[Math.max(0, tl.length - 1)]!;
    if (d0 <= 1) return { reason: 'no-move', message: '"finish" not meaningful in the outermost frame.', step: this.position() };
    if (!reverse) {
      const from = this.where().function;
      for (let i = i0 + 1; i < tl.length; i++) {
        if (tl.depth[i]! >= d0) continue;
        this.lastReturn = this.returnSlot(tl.steps[i - 1]!, from);
        return this.moveTo(tl.steps[i]!, 'step', `Run till exit from #0 ${plainName(from)}`);
      }
      return this.afterLast(tl);
    }
    for (let i = i0 - 1; i >= 0; i--) if (tl.depth[i]! < d0) return this.moveTo(tl.steps[i]!, 'step', 'Run back to call of #0');
    return this.moveTo(tl.steps[0]!, 'start', '');
  }

  /** The value the function left by the last forward `finish` returned (for "Value returned"). */
  lastReturn: { function: string; bytes: Uint8Array } | undefined;

  /** The callee's return slot (func_retval0) just before its `ret` at step `retStep`. */
  private returnSlot(retStep: number, fn: string): { function: string; bytes: Uint8Array } | undefined {
    const ret = this.program.functions.get(fn)?.rets[0];
    if (!ret) return undefined;
    this.trace.goto(retStep);
    const w = this.focusedWarp();
    if (!w) return undefined;
    const view = new MachineThreadView(this.machine, w, this.focusLane, 0);
    if (view.function !== fn) return undefined;
    const at = view.symbolAddress(ret.name);
    const bytes = at ? view.readMemory(at.space, at.address, ret.size) : undefined;
    return bytes ? { function: fn, bytes } : undefined;
  }

  // ---- breakpoints and watchpoints ---------------------------------------------------------------

  /** Number breakpoints and watchpoints from `next` (the launches of a program share one numbering). */
  useIds(next: () => number): void { this.points.idSource = next; }

  addBreakpoint(text: string, temporary = false, hitCondition?: HitCondition): BreakpointInfo {
    const where = this.where();
    return this.points.addBreakpoint(text, { file: where.file, fn: where.function }, temporary, hitCondition);
  }

  deleteBreakpoint(id: number | undefined): string {
    if (id === undefined) {
      const k = this.rwps.length;
      this.rwps.length = 0;
      const text = this.points.delete(undefined);
      return k ? text.replace(/(\d+) watchpoints?\.$/, (_m, n: string) => `${Number(n) + k} watchpoint${Number(n) + k === 1 ? '' : 's'}.`) : text;
    }
    const r = this.rwps.findIndex((w) => w.id === id);
    if (r >= 0) { this.rwps.splice(r, 1); return `Deleted watchpoint ${id}.`; }
    return this.points.delete(id);
  }

  enableBreakpoint(id: number, on: boolean): void {
    const r = this.rwps.find((w) => w.id === id);
    if (r) r.enabled = on;
    else this.points.enable(id, on);
  }

  /**
   * A breakpoint's expression condition for one thread at a step: the machine moves there and
   * the expression is evaluated in that thread's innermost frame; non-zero holds. One that
   * cannot be evaluated there (a name out of scope) answers gdb's message: the search stops there.
   */
  private conditionAt(expr: string, step: number, key: number, lane: number): boolean | string {
    this.trace.goto(step);
    const w = this.machine.resident.find((c) => c.id === ctaOfKey(key))?.warps[warpOfKey(key)];
    if (!w) return false;
    try {
      const v = evaluateExpression(this.debugInfo(), new MachineThreadView(this.machine, w, lane, 0), expr);
      if (v.bytes === undefined) return `value of \`${expr}' is not available`;
      return v.bytes.some((b) => b !== 0);
    } catch (e) {
      if (e instanceof PrintError) return e.message;
      throw e;
    }
  }

  /** gdb's `condition N [EXPR]`. */
  setCondition(id: number, expr: string | undefined): string { return this.points.setCondition(id, expr); }

  /** gdb's `clear LOCATION`: delete every breakpoint with an instruction of LOCATION. */
  clearAt(spec: string): string {
    return this.points.clear(this.locationGlobals(spec), spec);
  }

  /** The instructions a gdb location names (EngineError 'bad-breakpoint' when none). */
  private locationGlobals(spec: string): number[] {
    const where = this.where();
    try {
      return resolveSpec(spec, this.code, this.ptxText, { file: where.file, fn: where.function }).globals;
    } catch (e) {
      if (e instanceof BreakpointError) throw new EngineError(e.message, 'bad-breakpoint');
      throw e;
    }
  }

  /** Where a gdb location resolves (`info line N`). */
  resolveLocation(spec: string): { function: string; pc: number; file: string | undefined; line: number }[] {
    return this.locationGlobals(spec).map((g) => ({ function: this.code.fnName(g), pc: this.code.pc[g]!, file: this.code.fileName(g), line: this.code.line[g]! }));
  }

  /**
   * Where a stepping command (next, step, until, advance, finish and their reverse forms) landed,
   * unless the focused thread met a breakpoint or watchpoint on the way (the landing step
   * included), as gdb stops there: `Breakpoint N, ...`.
   */
  onTheWay(from: number, landed: Stop, dir: Direction): Stop {
    if (landed.step === from || landed.reason === 'no-move') return landed;
    this.trace.goto(from);
    const met = this.cont(dir, false, { target: landed.step, key: this.focusKey, lane: this.focusLane });
    if (!met) {
      this.trace.goto(landed.step);
      return landed;
    }
    this.lastReturn = undefined;
    return met;
  }

  /** gdb's `ignore N COUNT`. */
  ignoreBreakpoint(id: number, count: number): void { this.points.ignoreBreakpoint(id, count); }

  addWatchpoint(expr: string, kind: WatchKind, space: 'global' | 'shared' | 'local', address: number, size: number, format: (b: Uint8Array) => string): WatchpointInfo {
    const target: WatchTarget = { space, address, size, ctaId: this.focusCta, warpKey: this.focusKey, lane: this.focusLane };
    return this.points.addWatchpoint(expr, kind, target, space === 'global' ? undefined : this.focusBlock(), space === 'local' ? this.focusThread() : undefined, format);
  }

  /** The breakpoint the last stop was at, for `continue N`. */
  lastBreakpoint: number | undefined;

  /**
   * The breakpoint stop of a continue: the first hit whose ignore count is used up. Hits passed
   * over are returned so that only those before the final stop are counted.
   */
  private nextBreakpointStop(p: number, dir: Direction, inclusive: boolean, way?: Way): { hit: BreakpointHit | undefined; passed: { step: number; bp: Bp }[] } {
    const reverse = dir === 'backward';
    const passed: { step: number; bp: Bp }[] = [];
    const pending = new Map<Bp, number>();
    let from = p;
    let incl = inclusive;
    for (;;) {
      const limit = way ? (reverse ? way.target : Math.min(this.trace.logged, way.target + 1)) : reverse ? 0 : this.trace.logged;
      const hit = this.points.findBreakpoint(from, dir, limit, incl && !reverse, way);
      if (!hit) return { hit: undefined, passed };
      const used = pending.get(hit.bp) ?? 0;
      if (used < hit.bp.ignore) {
        pending.set(hit.bp, used + 1);
        passed.push({ step: hit.step, bp: hit.bp });
        from = hit.step;
        incl = false;
        continue;
      }
      return { hit, passed };
    }
  }

  /**
   * continue / reverse-continue; `fromHere` also counts a hit at the current step (run, start).
   * With `way` (a stepping command's landing step and the focused thread): only that thread's
   * hits up to the landing step, and undefined when there is none.
   */
  cont(dir: Direction, fromHere?: boolean): Stop;
  cont(dir: Direction, fromHere: boolean, way: Way): Stop | undefined;
  cont(dir: Direction, fromHere = false, way?: Way): Stop | undefined {
    const reverse = dir === 'backward';
    const fresh = this.atOpen && !reverse;
    if (!way) this.beginMove();
    const p = this.position();
    const { hit: bp, passed } = this.nextBreakpointStop(p, dir, fromHere || (fresh && p === 0), way);
    this.trace.goto(p);
    const far = way ? way.target : reverse ? 0 : this.total;
    let wt: WatchHit | undefined;
    if (this.points.wps.some((w) => w.enabled)) {
      const bound = bp ? (reverse ? bp.step : bp.step + 1) : far;
      wt = this.points.findWatch(p, dir, bound, way);
    }
    if (this.rwps.some((w) => w.enabled)) {
      // a register change before the breakpoint / memory watch wins
      const near = wt ? wt.ev.step : bp?.step;
      const bound = near !== undefined ? (reverse ? near : near + 1) : far;
      const rw = this.findRegisterWatch(p, dir, bound);
      if (rw && (!way || (rw.wp.key === way.key && rw.wp.lane === way.lane)) && (near === undefined || (reverse ? rw.step > near : rw.step < near) || (!wt && bp && rw.step === bp.step))) {
        for (const h of passed) {
          if (reverse ? h.step <= rw.step : h.step >= rw.step) continue;
          h.bp.ignore--;
          h.bp.hits++;
        }
        this.focusKeyLane(rw.wp.key, rw.wp.lane);
        rw.wp.hits++;
        this.hitMarks.push({ step: rw.step, kind: 'watch' });
        const st = this.moveTo(reverse ? rw.step : rw.step + 1, 'watchpoint', '');
        const fmt = (b: string | undefined): string => (b === undefined ? '<unavailable>' : rw.wp.format(b));
        return { ...st, message: `Watchpoint ${rw.wp.id}: ${rw.wp.expr}\n\nOld value = ${fmt(rw.before)}\nNew value = ${fmt(rw.after)}\n${reverse ? 'written by' : 'after the write by'} ${this.describeStep(rw.step, rw.wp.lane)}` };
      }
    }
    const stopStep = wt && (!bp || (reverse ? wt.ev.step >= bp.step : wt.ev.step < bp.step)) ? wt.ev.step : bp?.step;
    // ignored hits count only when they come before where this continue stops
    for (const h of passed) {
      if (stopStep !== undefined && (reverse ? h.step <= stopStep : h.step >= stopStep)) continue;
      h.bp.ignore--;
      h.bp.hits++;
    }
    this.lastBreakpoint = undefined;
    if (wt && (!bp || (reverse ? wt.ev.step >= bp.step : wt.ev.step < bp.step))) {
      this.focusKeyLane(wt.ev.warpKey, wt.ev.lane);
      // forward: stop after the access (gdb shows old and new); reverse: stop at the accessing step
      const target = reverse ? wt.ev.step : wt.ev.step + 1;
      this.hitMarks.push({ step: wt.ev.step, kind: 'watch' });
      const s = this.moveTo(target, 'watchpoint', '');
      const at = this.describeStep(wt.ev.step, wt.ev.lane);
      const isRead = wt.ev.acc === Access.Read;
      const verb = isRead ? (reverse ? 'read by' : 'after the read by') : reverse ? 'written by' : 'after the write by';
      // every watchpoint the step triggered, as gdb lists them, each with its values
      const blocks = [wt, ...(wt.also ?? [])].map((h) => {
        const f = (b: Uint8Array | undefined): string => (b ? h.wp.format(b) : '<unavailable>');
        const k = h.wp.kind === 'write' ? 'Hardware watchpoint' : h.wp.kind === 'read' ? 'Hardware read watchpoint' : 'Hardware access (read/write) watchpoint';
        const r = h.ev.acc === Access.Read;
        h.wp.hits++;
        return `${k} ${h.wp.id}: ${h.wp.expr}\n\n${r ? `Value = ${f(h.ev.before)}` : `Old value = ${f(h.ev.before)}\nNew value = ${f(h.ev.after)}`}`;
      });
      return { ...s, message: `${blocks.join('\n\n')}\n${verb} ${at}`, hit: { kind: 'watchpoint', id: wt.wp.id, access: isRead ? 'read' : 'write' } };
    }
    if (bp && bp.bp.id === 0) {
      // a brkpt instruction: gdb reports the trap it raises as SIGTRAP
      this.focusKeyLane(bp.key, bp.lane);
      this.hitMarks.push({ step: bp.step, kind: 'breakpoint' });
      const s = this.moveTo(bp.step, 'breakpoint', '');
      const w = this.where();
      return { ...s, hit: { kind: 'breakpoint', id: 0 }, message: `Program received signal SIGTRAP, Trace/breakpoint trap (brkpt), block (${w.block.join(',')}) thread (${w.thread.join(',')}) at ${plainName(w.function)} (${w.file ? `${baseName(w.file)}:${w.line}` : `pc ${w.pc}`})` };
    }
    if (bp) {
      this.focusKeyLane(bp.key, bp.lane);
      bp.bp.hits++;
      this.lastBreakpoint = bp.bp.id;
      this.hitMarks.push({ step: bp.step, kind: 'breakpoint' });
      if (bp.bp.temporary) this.points.remove(bp.bp);
      const s = this.moveTo(bp.step, 'breakpoint', '');
      const w = this.where();
      const error = bp.error === undefined ? '' : `${conditionErrorText(bp.bp.id, bp.error)}\n`;
      return { ...s, hit: { kind: 'breakpoint', id: bp.bp.id, ...(bp.error === undefined ? {} : { conditionError: bp.error }) }, message: `${error}${bp.bp.temporary ? 'Temporary breakpoint' : 'Breakpoint'} ${bp.bp.id}, block (${w.block.join(',')}) thread (${w.thread.join(',')}) at ${plainName(w.function)} (${w.file ? `${baseName(w.file)}:${w.line}` : `pc ${w.pc}`})` };
    }
    if (way) return undefined;
    if (reverse) return this.moveTo(0, 'start', 'No more reverse-execution history: at the start of the recording.');
    return this.endStop();
  }

  /** "block (0,0,0) thread (3,0,0) at kernel.cu:12 (step 1234)" for a logged step's lowest active lane. */
  describeStep(s: number, lane?: number): string {
    const key = this.trace.log.warpAt(s);
    const g = this.trace.log.loc(s);
    const l = lane ?? Math.max(0, lowestLane(this.trace.log.mask(s)));
    const block = coordsOf(ctaOfKey(key), this.launch.grid);
    const thread = coordsOf(tidOfKey(key, l), this.launch.block);
    const f = this.code.fileName(g);
    return `block (${block.join(',')}) thread (${thread.join(',')}) at ${f ? `${baseName(f)}:${this.code.line[g]}` : `${this.code.fnName(g)} pc ${this.code.pc[g]}`} (step ${s})`;
  }

  /** Writes to a memory range over the whole recording (oldest first). */
  memoryHistory(target: WatchTarget, kind: WatchKind): AccessEvent[] {
    const p = this.position();
    try {
      return collectAccesses(this.trace, target, kind, 0, this.total);
    } finally {
      this.trace.goto(p);
    }
  }

  /** Values of a register of the focused thread after each of its steps that changed it (history.ts). */
  registerHistory(name: string, limit: number): RegisterWrite[] {
    return registerHistory(this, name, limit);
  }

  /** The last `origin` answer, so that `origin ^N` can follow its input N. */
  lastOrigin: OriginHop | undefined;

  /**
   * Where the value of `source` (a register of the focused thread's innermost frame, or memory)
   * came from: moves to the writing step with the focus on the writing thread.
   */
  origin(source: OriginSource): { stop: Stop; hop: OriginHop } {
    const p = this.position();
    const r = source.kind === 'register'
      ? registerOrigin(this.trace, this.code, p, this.focusKey, this.focusLane, this.where().function, source.name)
      : memoryOrigin(this.trace, this.code, p, source.target);
    if (!r.found) {
      this.trace.goto(p);
      throw new EngineError(source.kind === 'memory' ? `No write to ${this.memoryName(source.target)} before step ${p}: it still holds what it held at launch.` : r.reason);
    }
    this.beginMove();
    this.focusKeyLane(r.hop.warpKey, r.hop.lane);
    this.lastOrigin = r.hop;
    return { stop: this.moveTo(r.hop.step, 'goto', `Now at step ${r.hop.step}: ${this.describeStep(r.hop.step, r.hop.lane)}`), hop: r.hop };
  }

  /** A memory target as the user thinks of it: `out[5] (global 0x7f0000000314)`, `shared 0x18 of block (0,0,0)`. */
  memoryName(t: WatchTarget): string {
    if (t.space === 'global') {
      const elements = new Map<number, ElementInfo>();
      for (const b of this.machine.buffers) elements.set(b.alloc.base, { name: b.name, elemSize: typeSize(b.type), count: b.count });
      const site = describeGlobalOffset(this.machine.arena, t.address, elements)?.split(';')[0];
      const hex = `global 0x${((BigInt(GLOBAL_HI) << 32n) | BigInt(t.address)).toString(16)}`;
      return site ? `${site} (${hex})` : hex;
    }
    if (t.space === 'shared') return `shared 0x${t.address.toString(16)} of block (${coordsOf(t.ctaId, this.launch.grid).join(',')})`;
    const tid = (t.warpKey % 32) * 32 + t.lane;
    return `local 0x${t.address.toString(16)} of thread (${coordsOf(tid, this.launch.block).join(',')})`;
  }

  /** A memory target in the focused thread's block/stack. */
  memoryTarget(space: 'global' | 'shared' | 'local', address: number, size: number): WatchTarget {
    return { space, address, size, ctaId: this.focusCta, warpKey: this.focusKey, lane: this.focusLane };
  }

  // ---- what-if timelines (src/engine/whatif, issue #27) --------------------------------------------

  /** This session's own condition evaluator (what its constructor wired), kept when its stop points are shared. */
  private ownCondition: StopPoints['conditionAt'];

  /** Share `from`'s breakpoints and watchpoints: a what-if timeline and its original have one set. */
  shareStopPoints(from: Session): void {
    from.ownCondition ??= from.points.conditionAt; // before any other session rebinds them
    this.ownCondition = this.points.conditionAt;
    this.points = from.points;
    this.rwps = from.rwps;
    this.activate();
  }

  /** Make the (shared) stop points search this session's recording: called when it becomes the current timeline. */
  activate(): void {
    this.ownCondition ??= this.points.conditionAt;
    this.points.rebind(this.trace, this.code, this.ownCondition);
  }

  /** The thread, block and location of logged step s for lane `lane` (for race travel). */
  focusStep(s: number, block: Dim3, thread: Dim3): Stop {
    this.checkStep(s);
    this.beginMove();
    const err = this.setFocus(block, thread);
    if (err) throw new EngineError(err, 'out-of-range');
    return this.moveTo(s, 'goto', `Now at step ${s}: ${this.describeStep(s, this.focusLane)}`);
  }

}

/** A stepping command's landing step and the focused thread (warp key, lane): see Session.onTheWay. */
interface Way extends OnlyThread { readonly target: number }

/** A view for a thread that is not resident (not started, exited, retired): nothing to read. */
class NoThreadView implements ThreadView {
  readonly frames: readonly FrameInfo[] = [];
  readonly function: string;
  readonly pc = 0;
  constructor(readonly program: Program, readonly block: Dim3, readonly thread: Dim3) {
    this.function = entryNames(program)[0] ?? '';
  }
  registerNames(): string[] { return []; }
  registerType(): string | undefined { return undefined; }
  readRegister(): bigint | undefined { return undefined; }
  readSpecial(): number | undefined { return undefined; }
  readMemory(): Uint8Array | undefined { return undefined; }
  symbolAddress(): undefined { return undefined; }
}
