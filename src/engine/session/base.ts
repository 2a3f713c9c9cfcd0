/**
 * The debugger session's base layer: a recorded run, the focused thread and frame.
 * `Session` is built in layers, one concern per file, each extending the one before:
 *   base.ts (the recording, focus and frames) → state.ts (what the focused thread and its warps
 *   hold, register watches, marks) → moving.ts (goto, steps, until, finish) → stops.ts
 *   (breakpoints, watchpoints, continue) → ../session.ts (history, origin, what-if timelines).
 */
import { Machine, type RunOptions } from '../../exec/machine.js';
import { coordsOf, type Launch, linearOf } from '../../exec/launch.js';
import { type Warp } from '../../exec/state.js';
import { type Program } from '../../ptx/resolve.js';
import { formatFault } from '../fault.js';
import { DebugInfo } from '../print/debuginfo.js';
import type { RaceReport } from '../../races/index.js';
import { ctaOfKey, keyOf, tidOfKey, Trace, type WarpKey } from '../../trace/trace.js';
import { StopPoints } from '../stoppoints.js';
import { checkConditionSyntax } from '../conditions.js';
import { CodeIndex } from '../code-index.js';
import { laneFrames } from '../threadview.js';
import { SourceCache } from '../sources.js';
import { ThreadTimeline } from '../timeline.js';
import type { Dim3, TimelineMark } from '../types.js';
import { type Position, positionOf } from '../../trace/position.js';
import { ptxText } from '../../exec/machine.js';

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

export interface RegWp extends RegisterWatchInfo {
  readonly key: WarpKey;
  readonly lane: number;
  /** Call depth of the frame the watch was set in (frames of the thread at that moment). */
  readonly depth: number;
  /** Renders the value's bytes (hex string of little-endian bytes) in the expression's type. */
  readonly format: (hexBytes: string) => string;
}

/** A single-kernel session records one launch: its positions are in launch 0 (a program's launches count from 1). */
export const LAUNCH = 0;

/** The session's recording, focused thread and selected frame (see the layers above). */
export abstract class SessionBase {
  readonly code: CodeIndex;
  readonly machine: Machine;
  /** Focused thread: CTA linear id and linear thread index in the CTA. */
  protected focusCta = 0;
  protected focusTid = 0;
  protected frameLevel = 0;
  /**
   * Innermost inlined frames of the focused thread hidden at this stop: gdb stops at the start of
   * an inlined block showing its call site (a breakpoint on the caller's line, `next` reaching a
   * call), and `step` there enters the inlined function without executing anything.
   */
  inlineHidden = 0;
  private timeline: ThreadTimeline | undefined;
  /** Breakpoints and watchpoints, and the search for their hits (stoppoints.ts). */
  protected points: StopPoints;
  protected readonly hitMarks: TimelineMark[] = [];
  protected prevRegs = new Map<string, bigint>();
  protected prevRegsKey = '';
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
    /** The launch this session records: 0 in a single-kernel session, from 1 in a program (trace/position.ts). */
    readonly launchNo: number = LAUNCH,
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

  /** The current step in this session's launch (`here()` is the same as a Position). */
  position(): number {
    return this.machine.warpSteps;
  }

  /** The current position on the program timeline. */
  here(): Position { return positionOf(this.launchNo, this.machine.warpSteps); }

  /** The position `step` warp-steps into this session's launch. */
  at(step: number): Position { return positionOf(this.launchNo, step); }

  // ---- focus ---------------------------------------------------------------------------------------

  focusBlockId(): number { return this.focusCta; }

  /** Also look for CUDA sources in `dir`. */
  setSourceDir(dir: string): void {
    this.sources = new SourceCache(this.ptxPath, dir);
  }

  get focusKey(): WarpKey { return keyOf(this.focusCta, this.focusTid >>> 5); }
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
      this.inlineHidden = 0;
    }
    return undefined;
  }

  protected focusKeyLane(key: WarpKey, lane: number): void {
    const cta = ctaOfKey(key);
    const tid = tidOfKey(key, lane);
    if (cta !== this.focusCta || tid !== this.focusTid) {
      this.focusCta = cta;
      this.focusTid = tid;
      this.timeline = undefined;
      this.frameLevel = 0;
      this.inlineHidden = 0;
    }
  }

  /** The focused thread's steps in the recording (see timeline.ts). */
  timelineOfFocus(): ThreadTimeline { return this.thread(); }

  protected thread(): ThreadTimeline {
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
    const n = w ? laneFrames(this.machine, w, this.focusLane, this.inlineHidden).frames.length : 0;
    if (level < 0 || level >= n) return n === 0 ? 'No stack.' : `No frame at level ${level}.`;
    this.frameLevel = level;
    return undefined;
  }

  get selectedFrame(): number { return this.frameLevel; }

  /**
   * At a fault inside a helper without source (`__trap`, `__assertfail`), select the innermost
   * frame that has a source line: the user's call site, as a CUDA programmer expects.
   */
  protected selectUserFrame(): void {
    const w = this.focusedWarp();
    if (!w) return;
    const frames = laneFrames(this.machine, w, this.focusLane, this.inlineHidden).frames;
    if (frames.length < 2 || frames[0]!.file !== undefined) return;
    const user = frames.findIndex((f) => f.file !== undefined);
    if (user > 0) this.frameLevel = user;
  }

  /** The program's decoded DWARF (state.ts). */
  abstract debugInfo(): DebugInfo;
  /** A breakpoint condition at a logged step for one lane: true/false, or why it cannot be evaluated (stops.ts). */
  protected abstract conditionAt(expr: string, step: number, key: WarpKey, lane: number): boolean | string;
}
