/**
 * The engine's base layer: its state (the session in focus, a program's timeline, containers),
 * stops, the focused thread and moving between a program's launches. The `Engine` class is built
 * in layers, one concern per file, each extending the one before:
 *   base.ts → program.ts (a program's launches, memory across launches) → values.ts (values,
 *   history, origin, code) → breakpoints.ts (breakpoints and watchpoints) → ../api.ts (moving,
 *   threads, the recording, the TUI's reads, what-if timelines).
 */
import { LineMap } from '../../ptx/diagnostics.js';
import { coordsOf, linearOf } from '../../exec/launch.js';
import { EngineError } from '../errors.js';
import { DebugInfo } from '../print/index.js';
import { Session } from '../session.js';
import type { Direction, Stop, StopEvent, ThreadRef, Where } from '../types.js';
import { Containers } from '../scopes.js';
import type { Position } from '../../trace/position.js';
import { type ProgramStop, ProgramTimeline } from '../program/timeline.js';

export const WRITABLE: readonly string[] = ['global', 'shared', 'local'];
/** A raw memory range: `@global 0x7f0000000010 4`, `@shared 0x40` (4 bytes). */
export const RAW_RANGE = /^@(global|shared|local)\s+(0x[0-9a-f]+|\d+)(?:\s+(\d+))?$/i;

/** A single-kernel session's launch number (declared with the Session, which knows its launch). */
export { LAUNCH } from '../session/base.js';

const engines = new WeakMap<Session, EngineBase>();
const sessions = new WeakMap<EngineBase, Session>();

/** The session behind an engine: for the engine's own modules (presenters), never re-exported by index.ts. */
export function sessionOf(e: EngineBase): Session {
  return sessions.get(e)!;
}

/** The engine bound to a session, if one was made (every EngineBase is an Engine: the class is abstract). */
export function boundEngine(s: Session): EngineBase | undefined {
  return engines.get(s);
}

/** The engine's state and what every part of it uses: the session in focus, stops, the focused thread, moving between launches. */
export abstract class EngineBase {
  protected readonly containers = new Containers();
  /** Breakpoint ids per group (a source file, 'function', 'instruction', 'data'). */
  protected readonly groups = new Map<string, number[]>();
  protected ptxLines: LineMap | undefined;
  protected ptxTextLines: readonly string[] | undefined;

  /** The launch in focus's session (a program's changes as the position moves across launches). */
  protected get session(): Session { return sessions.get(this)!; }
  /** The whole program's timeline, when the engine debugs a program (issue #25). */
  protected program: ProgramTimeline | undefined;
  /**
   * Where the last watch or origin stop was when no thread made the change (a host call, an
   * unrecorded launch): its index among the program's events, so that the next continue goes on
   * from there rather than from the launch shown. Any other stop clears it.
   */
  protected eventStop: number | undefined;
  /** A stop at a host event (program/host.ts): its position (step < 0 of the launch after it); any other stop clears it. */
  protected hostPos: Position | undefined;
  protected tuiDebugInfo: DebugInfo | null | undefined;

  /** Engines are made by `Engine.open`, `openEngine*` and `engineOf` (one per session). */
  protected constructor(s: Session) {
    sessions.set(this, s);
    engines.set(s, this);
  }

  /** The launch in focus (its session's): 0 in a single-kernel session, from 1 in a program. */
  protected get launchNo(): number { return this.session.launchNo; }

  get total(): number { return this.session.total; }
  /** The current position on the program timeline. */
  position(): Position { return this.hostPos ?? this.session.here(); }
  /** The position `step` warp-steps into the current launch (range-checked when travelled to). */
  at(step: number): Position { return this.session.at(step); }
  /** The first and last positions of the current launch's recording. */
  start(): Position { return this.at(0); }
  end(): Position { return this.at(this.total); }
  where(): Where { return this.session.where(); }
  /** printf output up to the current position. */
  output(): string { return this.session.output(); }

  protected stopped(s: Stop): StopEvent {
    this.containers.clear();
    this.eventStop = undefined;
    this.hostPos = undefined;
    this.session.hostMemory = undefined;
    const w = this.session.where();
    return { reason: s.reason, position: s.at, total: this.total, thread: this.focus(), frame: w.frames[0], hit: s.hit, message: s.message };
  }

  protected get threadsPerBlock(): number {
    const b = this.session.launch.block;
    return b[0] * b[1] * b[2];
  }

  protected threadRef(cta: number, tid: number): ThreadRef {
    return { id: cta * this.threadsPerBlock + tid + 1, block: coordsOf(cta, this.session.launch.grid), thread: coordsOf(tid, this.session.launch.block) };
  }

  focus(): ThreadRef {
    const s = this.session;
    return this.threadRef(s.focusBlockId(), linearOf(s.focusThread(), s.launch.block));
  }

  selectFrame(level: number): void {
    if (level === this.session.selectedFrame) return;
    const err = this.session.selectFrame(level);
    if (err) throw new EngineError(err, 'out-of-range');
  }

  /** Focus launch n's session (recorded when first visited); a new launch drops what was cached of the old. */
  protected enter(n: number): void {
    const p = this.program!;
    if (n === p.current && sessions.get(this) === p.session(n)) return;
    const s = p.session(n);
    this.session.hostMemory = undefined;
    p.current = n;
    sessions.set(this, s);
    engines.set(s, this);
    this.containers.clear();
    this.ptxLines = undefined;
    this.ptxTextLines = undefined;
    this.tuiDebugInfo = undefined;
  }

  /**
   * Backward from a host event shown at the start of the launch after it: the launches before
   * the event (program/api's; undefined where the event is not such a stop).
   */
  protected abstract backFromHost(): StopEvent | undefined;

  /** A stop somewhere in the program: focus its launch, then the stop as usual. */
  protected programStop(ps: ProgramStop): StopEvent {
    const from = this.program!.current;
    this.enter(ps.launch);
    const st = this.stopped(ps.stop);
    if (st.hit?.kind === 'breakpoint') this.program!.hitTemporary(st.hit.id);
    // a what-if is a fork of one launch: say so when a move leaves it for another launch
    if (from === ps.launch || !this.program!.inWhatIf(from)) return st;
    const note = `(launch ${ps.launch} is as recorded: the what-if writes of launch ${from} are not carried into other launches)`;
    return { ...st, message: st.message ? `${st.message}\n${note}` : note };
  }

  /**
   * A step or finish in a program: where it cannot move in its launch (forward at the launch's
   * end, backward at its start), the next stop is in the next launch that has one, as cuda-gdb
   * does when a kernel ends under `next` (and mirrored backward).
   */
  protected crossing(direction: Direction, move: () => Stop): StopEvent {
    const p = this.program!;
    const back = direction === 'backward' ? this.backFromHost() : undefined;
    if (back) return back;
    const before = this.session.position();
    const s = move();
    const stuck = s.at.step === before;
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

  protected useSession(s: Session): void {
    if (s === this.session) return;
    sessions.set(this, s);
    engines.set(s, this);
    s.activate();
    this.containers.clear();
  }
}
