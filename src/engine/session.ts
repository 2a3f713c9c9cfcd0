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
import { coordsOf, type Launch, LaunchError } from '../exec/launch.js';
import { loadPtx, renderDiagnostics, renderKernelProblems } from '../ptx/index.js';
import { unsupportedInstructions } from '../exec/support.js';
import { entryOf, KernelProblems, type Program } from '../ptx/resolve.js';
import { resolveLaunch, type LaunchFlags } from './load.js';
import { EngineError } from './errors.js';
import { DEFAULT_INTERVAL, type RecordProgress, tidOfKey, Trace } from '../trace/trace.js';
import { StopPoints } from './stoppoints.js';
import { memoryOrigin, type OriginHop, type OriginSource, registerOrigin } from './origin.js';
import { describeGlobalOffset, type ElementInfo } from '../exec/fault-site.js';
import { GLOBAL_HI } from '../exec/memory.js';
import { typeSize } from '../ptx/types.js';
import type { DataSpace, DebugSession, Dim3, Stop, WatchKind } from './types.js';
import { collectAccesses, type AccessEvent, type WatchTarget } from './watch.js';
import { registerHistory, type RegisterWrite } from './history.js';
import { MAX_SOURCE_BYTES, readBoundedText, ReadError } from '../io/bounded.js';

import { SessionStops } from './session/stops.js';
export type { RegisterWatchInfo } from './session/base.js';

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
  /**
   * The module already loaded from ptxText (loadPtx, lazy), shared by the sessions of one
   * module's launches in a program: parsed and resolved once, its compiled code cached with it.
   */
  program?: Program | undefined;
  /** The launch the session records: a program's launch number (from 1); 0, a single kernel, when absent. */
  launchNo?: number | undefined;
}

/** Default recording limit: a runaway loop stops here instead of filling memory. */
export const SESSION_MAX_STEPS = 50_000_000;

/** Load PTX and launch, record the run, and open a session at step 0. Throws EngineError. */
export function openSession(o: SessionOptions): Session {
  const p = prepareSession(o);
  const trace = Trace.record(p.machine, { interval: o.interval ?? DEFAULT_INTERVAL });
  const s = new Session(o.ptxPath, p.text, p.program, p.launch, p.opts, trace, o.launchNo);
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
  const s = new Session(o.ptxPath, p.text, p.program, p.launch, p.opts, trace, o.launchNo);
  s.loadWarnings = p.loadWarnings ?? '';
  return s;
}

/** unsupportedInstructions compiles every resolved function: once per program and resolved set (a shared program's sessions). */
const unsupportedSeen = new WeakMap<Program, { functions: number; found: ReturnType<typeof unsupportedInstructions> }>();
function unsupportedOf(program: Program): ReturnType<typeof unsupportedInstructions> {
  const had = unsupportedSeen.get(program);
  if (had && had.functions === program.functions.size) return had.found;
  const found = unsupportedInstructions(program);
  unsupportedSeen.set(program, { functions: program.functions.size, found });
  return found;
}

/** The options a session runs its launch with (a program's race check of a launch runs with the same). */
export function sessionRunOptions(o: { readonly schedule?: 'rr' | 'random' | undefined; readonly seed?: number | undefined; readonly maxSteps?: number | undefined }): RunOptions {
  return { ...DEFAULT_RUN_OPTIONS, schedule: o.schedule ?? 'rr', seed: o.seed ?? 1, maxSteps: o.maxSteps ?? SESSION_MAX_STEPS };
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
  let program = o.program;
  if (!program) {
    const loaded = loadPtx(text, o.ptxPath, { lazy: true });
    if (!loaded.program) throw new EngineError(renderDiagnostics(loaded), 'bad-ptx');
    program = loaded.program;
  }
  let launch: Launch;
  try {
    launch = o.launchObject ?? resolveLaunch(o.ptxPath, program, { ...o, launch: o.launch ?? o.launchPath });
    entryOf(program, launch.kernel); // a launch object names its kernel without resolving it
  } catch (e) {
    if (e instanceof KernelProblems) throw new EngineError(renderKernelProblems(program, e), 'bad-ptx');
    if (e instanceof LaunchError || e instanceof EngineError) throw new EngineError(`bad launch: ${e.message}`, 'bad-launch');
    throw e;
  }
  const opts = sessionRunOptions(o);
  let machine: Machine;
  try {
    machine = new Machine(program, launch, opts);
  } catch (e) {
    throw new EngineError(`cannot launch: ${(e as Error).message}`, 'cannot-launch');
  }
  // what `check` reports as errors, the debugger reports at load as warnings: the run stops at
  // such an instruction only if a thread reaches it
  const unsupported = unsupportedOf(program).map((d) => ({ ...d, severity: 'warning' as const }));
  const loadWarnings = unsupported.length ? renderDiagnostics({ module: program.module, diagnostics: unsupported }) : undefined;
  return { text, program, launch, opts, machine, loadWarnings };
}

/** The session: its parts, one concern per file, are the layers in session/ (see session/base.ts). */
export class Session extends SessionStops implements DebugSession {
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
    const tid = tidOfKey(t.warpKey, t.lane);
    return `local 0x${t.address.toString(16)} of thread (${coordsOf(tid, this.launch.block).join(',')})`;
  }

  /** A memory target in the focused thread's block/stack. */
  memoryTarget(space: DataSpace, address: number, size: number): WatchTarget {
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
