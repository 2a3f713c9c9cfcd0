/**
 * The program timeline (issue #25): one debugging session over every launch of a recorded
 * program. Each launch is a Session of its own, recorded from the launch's start state when the
 * user first goes into it and kept in an LRU sized by the memory the kept launches hold and by a
 * count of short ones (SHORT_KEPT) (a launch is a deterministic function of its start, so an
 * evicted one is recorded again, identically, when visited again). What the launches of one module share is made once: the parsed and
 * resolved module and its compiled code (programOf).
 *
 * Moving across launches follows cuda-gdb going forward: when a continue (or a step past the
 * end) leaves a launch, the next stop is in the next launch that has one: a breakpoint hit, or
 * its first instruction under `set cuda break_on_launch application`; backward is the mirror
 * image. Breakpoints belong to the program: each has one number, is set in every launch whose
 * code it resolves in, and is pending until one does (gdb's pending breakpoints).
 */
import type { HitCondition } from '../breakpoints.js';
import { EngineError } from '../errors.js';
import { openSession, type Session, sessionRunOptions } from '../session.js';
import { adoptRaces, sessionRaces } from '../races.js';
import { checkRun, type RaceReport } from '../../races/index.js';
import type { Stop } from '../types.js';
import type { Direction } from '../../trace/position.js';
import { printName } from '../../ptx/names.js';
import { loadPtx } from '../../ptx/index.js';
import type { Program } from '../../ptx/resolve.js';
import type { Launch } from '../../exec/launch.js';
import type { ProgramLaunch, ProgramSource } from './source.js';

export interface ProgramOptions {
  schedule?: 'rr' | 'random' | undefined;
  seed?: number | undefined;
  maxSteps?: number | undefined;
  /**
   * Bytes the launches kept recorded may hold together (the LRU's size; default
   * DEFAULT_KEPT_BYTES): a visited launch stays recorded until others push it out.
   */
  memory?: number | undefined;
  /** At most this many launches kept recorded at once, whatever their size (tests). */
  sessions?: number | undefined;
}

/** A breakpoint of the program: set by location in every launch it resolves in. */
export interface ProgramBreakpoint {
  readonly id: number;
  /** As the user wrote it (`scale`, `offbyone.cu:30 if $_launch == 2`). */
  readonly location: string;
  readonly temporary: boolean;
  /** DAP's hit condition (`>=3`), over the hits in each launch. */
  readonly hitCondition?: HitCondition | undefined;
  enabled: boolean;
  ignore: number;
}

/** A stop somewhere in the program: the launch it is in, and the session's stop. */
export interface ProgramStop { readonly launch: number; readonly stop: Stop }

/** What the recorded launches kept for a return visit may hold (256 MiB). */
export const DEFAULT_KEPT_BYTES = 256 * 2 ** 20;

/**
 * Launches of at most SHORT_STEPS warp-steps (recorded again in milliseconds) kept recorded at
 * once, whatever the byte budget allows: each holds a device arena of megabytes (a program's
 * 8 MiB heap lies below its buffers) that V8 counts as external memory, and visiting launch after
 * launch made a new arena per visit until the budget was full (about 30), each few answered by a
 * collection in the middle of a goto. Past these, a short launch's arena is recycled for the next
 * one opened. Longer launches stay as the budget allows.
 */
export const SHORT_KEPT = 8;
const SHORT_STEPS = 1 << 16;

/**
 * What keeping launch session `s` costs: its step log and checkpoints, the pages its machine
 * has committed (about those of its checkpoints again), its device arena (V8 counts all of it,
 * committed or not, and collects the whole heap as it grows) and a fixed part for its objects.
 */
function heldBytes(s: Session): number {
  const b = s.trace.bytes();
  return b.log + 2 * b.checkpoints + s.machine.arena.bank.size + 64 * 1024;
}

/**
 * Give an evicted session's banks back for the next launch opened: its device arena, and every
 * warp's local memory and CTA's shared memory (32 warps hold 1 MiB of local banks). Each visit
 * would otherwise allocate them afresh, and V8 answers that external memory with collections
 * ("external memory pressure") that land in gotos.
 */
function recycleBanks(s: Session): void {
  const m = s.machine;
  m.arena.bank.recycle();
  for (const c of [...m.resident, ...m.ctaPool]) {
    c.shared.recycle();
    for (const w of c.warps) w.local.recycle();
  }
}

export class ProgramTimeline {
  /** Open launches' sessions, least recently used first. */
  private readonly open = new Map<number, Session>();
  /** Each module's Program, by module id (programOf). */
  private readonly programs = new Map<number, { ptxText: string; program: Program }>();
  private readonly capacity: number;
  private readonly budget: number;
  /** Bytes each open session holds (heldBytes, taken once it is recorded). */
  private readonly held = new Map<number, number>();
  private heldTotal = 0;
  /** Open sessions of short launches (SHORT_STEPS). */
  private short = 0;
  /** `set cuda break_on_launch application`: stop at each launch's first instruction. */
  breakOnLaunch = false;
  readonly bps: ProgramBreakpoint[] = [];
  private nextId = 1;
  /** The id the next breakpoint a session makes takes (a program breakpoint set in a newly opened launch). */
  private forcedId: number | undefined;
  private sourceDir: string | undefined;
  /** The launch in focus (from 1). */
  current: number;

  constructor(readonly source: ProgramSource, private readonly o: ProgramOptions = {}) {
    this.capacity = Math.max(1, o.sessions ?? Number.POSITIVE_INFINITY);
    this.budget = o.memory ?? DEFAULT_KEPT_BYTES;
    const first = source.launches.find((l) => l.recorded);
    if (!first) throw new EngineError(source.launches.length ? `none of the program's ${source.launches.length} launches was recorded` : 'the program made no kernel launch', 'out-of-range');
    this.current = first.index;
  }

  /** One numbering for every session's breakpoints and watchpoints. */
  readonly takeId = (): number => {
    const f = this.forcedId;
    this.forcedId = undefined;
    return f ?? this.nextId++;
  };

  launch(n: number): ProgramLaunch | undefined {
    return this.source.launches[n - 1];
  }

  /** `scale<<<(2,1,1),(4,1,1)>>>`. */
  label(n: number): string {
    const l = this.launch(n);
    return l ? `${printName(l.kernel)}<<<(${l.grid.join(',')}),(${l.block.join(',')})>>>` : `launch ${n}`;
  }

  /**
   * Launch n's session: its what-if timeline's when a write made one the launch's current
   * timeline (useWhatIf), else the recording's (recorded). Throws EngineError for a launch that
   * cannot be opened.
   */
  session(n: number): Session {
    return this.whatIfs.get(n) ?? this.recorded(n);
  }

  /** Launches whose current timeline is a what-if (a write's fork of the launch): its session. */
  private readonly whatIfs = new Map<number, Session>();
  /** Launches whose recording stays open (a what-if was forked from it: its timelines refer to it). */
  private readonly pinned = new Set<number>();

  /**
   * Make `s` (a what-if fork of launch n) the launch's session for every move, or the recording
   * again (undefined). Only launch n changes: the launches after it stay the recorded ones.
   */
  useWhatIf(n: number, s: Session | undefined): void {
    this.pinned.add(n);
    if (s) this.whatIfs.set(n, s);
    else this.whatIfs.delete(n);
  }

  /** Launch n afresh at its start, with memory of its own (a what-if fork runs in it). */
  freshLaunch(n: number): Launch {
    const start = this.source.start(n);
    if (!start) throw new EngineError(`launch ${n} was not recorded: it cannot be re-run`, 'out-of-range');
    return start.launch;
  }

  /** Whether launch n's current timeline is a what-if. */
  inWhatIf(n: number): boolean { return this.whatIfs.has(n); }

  /** The session of launch n as recorded (never a what-if), recorded when first visited. */
  recorded(n: number): Session {
    const had = this.open.get(n);
    if (had) {
      this.open.delete(n);
      this.open.set(n, had);
      return had;
    }
    const l = this.launch(n);
    if (!l) throw new EngineError(`launch ${n} does not exist: the program made ${this.source.launches.length} launch${this.source.launches.length === 1 ? '' : 'es'} (1..${this.source.launches.length})`, 'out-of-range');
    const start = this.source.start(n);
    if (!start) throw new EngineError(`launch ${n} (${this.label(n)}) was not recorded${this.source.stopped ? ` (recording stopped: ${this.source.stopped})` : ' (--record left it out)'}: it ran, and only its effect on memory is known`, 'out-of-range');
    const s = openSession({
      ptxPath: start.ptxPath, ptxText: start.ptxText, launchObject: start.launch, schedule: this.o.schedule, seed: this.o.seed, maxSteps: this.o.maxSteps,
      program: this.programOf(l.module, start.ptxPath, start.ptxText), launchNo: n,
    });
    const checked = this.raceReports.get(n);
    if (checked) adoptRaces(s, checked);
    s.useIds(this.takeId);
    if (this.sourceDir) s.setSourceDir(this.sourceDir);
    for (const b of this.bps) this.apply(b, n, s);
    this.open.set(n, s);
    const bytes = heldBytes(s);
    this.held.set(n, bytes);
    this.heldTotal += bytes;
    if (s.total <= SHORT_STEPS) this.short++;
    this.evict(n);
    return s;
  }

  /** Push out the least recently used sessions past the limits; the launch in focus and `opened` stay. */
  private evict(opened: number): void {
    for (const [k, s] of this.open) {
      const over = this.open.size > this.capacity || this.heldTotal > this.budget;
      if (!over && this.short <= SHORT_KEPT) break;
      const short = s.total <= SHORT_STEPS;
      // past the limit of short launches only: a longer one stays
      if (k === this.current || k === opened || this.pinned.has(k) || (!over && !short)) continue;
      this.open.delete(k);
      if (short) this.short--;
      // its device arena serves the next launch opened (no session is used once evicted: callers
      // take a launch's session from session() and use it before asking for another)
      recycleBanks(s);
      this.heldTotal -= this.held.get(k) ?? 0;
      this.held.delete(k);
    }
  }

  /**
   * Module `id` parsed and resolved (lazily, as a Session loads it), once for all its launches:
   * the compiled code is cached with the Program (exec/machine.ts), so a launch visited again,
   * or another launch of the module, compiles nothing. Undefined when it does not load (the
   * Session then loads it itself and reports why).
   */
  private programOf(id: number, ptxPath: string, ptxText: string): Program | undefined {
    const had = this.programs.get(id);
    if (had && had.ptxText === ptxText) return had.program;
    const loaded = loadPtx(ptxText, ptxPath, { lazy: true });
    if (loaded.program) this.programs.set(id, { ptxText, program: loaded.program });
    return loaded.program;
  }

  /** Each launch's race report, once checked (kept when its session is pushed out). */
  private readonly raceReports = new Map<number, RaceReport>();

  /**
   * Launch n's race report: the race checker runs the launch from its start under the options
   * its session records with (the same schedule, so each access step is a position of the
   * launch's recording), without recording it when it is not open. Undefined: not recorded.
   */
  races(n: number): RaceReport | undefined {
    const had = this.raceReports.get(n);
    if (had) return had;
    const open = this.open.get(n);
    let rep: RaceReport;
    if (open) rep = sessionRaces(open);
    else {
      const l = this.launch(n);
      const start = l?.recorded ? this.source.start(n) : undefined;
      if (!l || !start) return undefined;
      const program = this.programOf(l.module, start.ptxPath, start.ptxText);
      if (!program) rep = sessionRaces(this.recorded(n));
      else rep = checkRun(program, start.launch, sessionRunOptions(this.o)).report;
    }
    this.raceReports.set(n, rep);
    return rep;
  }

  /** The sessions recorded now, by launch. */
  openSessions(): ReadonlyMap<number, Session> { return this.open; }

  setSourceDir(dir: string): void {
    this.sourceDir = dir;
    for (const s of this.open.values()) s.setSourceDir(dir);
  }

  // ---- breakpoints ---------------------------------------------------------------------------------

  /** Set breakpoint b in launch n's session if its location resolves there; else why not. */
  private apply(b: ProgramBreakpoint, n: number, s: Session): EngineError | undefined {
    // `$_launch` in a condition is the launch's number: a constant within one launch
    const text = b.location.replace(/\$_launch\b/g, String(n));
    this.forcedId = b.id;
    try {
      s.addBreakpoint(text, b.temporary, b.hitCondition);
    } catch (e) {
      if (!(e instanceof EngineError) || e.code !== 'bad-breakpoint') throw e;
      return e;
    } finally {
      this.forcedId = undefined;
    }
    if (!b.enabled) s.enableBreakpoint(b.id, false);
    if (b.ignore) s.ignoreBreakpoint(b.id, b.ignore);
    return undefined;
  }

  /**
   * gdb's `break LOCATION`: set in every open launch it resolves in; `resolved` says whether the
   * current launch has it (else it is pending or set elsewhere). Throws the current launch's
   * EngineError when the location is malformed rather than absent.
   */
  addBreakpoint(location: string, temporary: boolean, hitCondition?: HitCondition): { bp: ProgramBreakpoint; here: EngineError | undefined; anywhere: boolean } {
    const bp: ProgramBreakpoint = { id: this.nextId++, location, temporary, hitCondition, enabled: true, ignore: 0 };
    let here: EngineError | undefined, anywhere = false;
    for (const [n, s] of this.open) {
      const err = this.apply(bp, n, s);
      if (n === this.current) here = err;
      anywhere ||= err === undefined;
    }
    this.bps.push(bp);
    return { bp, here, anywhere: anywhere || this.source.launches.some((l) => l.recorded && !this.open.has(l.index) && this.mayResolve(bp, l)) };
  }

  deleteBreakpoint(id: number | undefined): void {
    if (id === undefined) this.bps.length = 0;
    else {
      const i = this.bps.findIndex((b) => b.id === id);
      if (i >= 0) this.bps.splice(i, 1);
    }
    for (const s of this.open.values()) {
      try { s.deleteBreakpoint(id); } catch (e) { if (!(e instanceof EngineError)) throw e; }
    }
  }

  enableBreakpoint(id: number, on: boolean): boolean {
    const b = this.bps.find((x) => x.id === id);
    if (b) b.enabled = on;
    let found = b !== undefined;
    for (const s of this.open.values()) {
      try { s.enableBreakpoint(id, on); found = true; } catch (e) { if (!(e instanceof EngineError)) throw e; }
    }
    return found;
  }

  ignoreBreakpoint(id: number, count: number): boolean {
    const b = this.bps.find((x) => x.id === id);
    if (b) b.ignore = count;
    let found = b !== undefined;
    for (const s of this.open.values()) {
      try { s.ignoreBreakpoint(id, count); found = true; } catch (e) { if (!(e instanceof EngineError) || e.code !== 'no-such-breakpoint') throw e; }
    }
    return found;
  }

  /** A temporary breakpoint has been hit: it goes from every launch. */
  hitTemporary(id: number): void {
    if (this.bps.some((b) => b.id === id && b.temporary)) this.deleteBreakpoint(id);
  }

  /**
   * Whether breakpoint b may resolve in launch l's module, read from the module's PTX without
   * recording the launch: a function location must be named there, a FILE:LINE's file must be
   * one of its .file entries; anything else may. Errs on the side of yes (the launch is then
   * recorded and searched).
   */
  private mayResolve(b: ProgramBreakpoint, l: ProgramLaunch): boolean {
    const ptx = this.source.modules[l.module]?.ptx ?? '';
    const loc = b.location.replace(/\s+if\s.*$/s, '').replace(/\s+(thread|block)\s*\(.*$/s, '').trim();
    const fileLine = /^(.+):(\d+)$/.exec(loc);
    if (fileLine && !/^ptx$/i.test(fileLine[1]!)) return ptx.includes(fileLine[1]!.replace(/^.*[\\/]/, ''));
    if (/^[A-Za-z_$][\w$:<>]*$/.test(loc)) return ptx.includes(loc.replace(/^.*::/, ''));
    return true;
  }

  /** Whether a continue must look into launch l for a stop. */
  private mayStopIn(l: ProgramLaunch): boolean {
    if (!l.recorded) return false;
    if (this.breakOnLaunch || l.fault !== undefined) return true;
    return this.bps.some((b) => b.enabled && this.mayResolve(b, l)) || this.open.has(l.index);
  }

  // ---- moving across launches -----------------------------------------------------------------------

  /** The recorded launch after (before) n, if any. */
  private neighbour(n: number, dir: Direction): number | undefined {
    const ls = this.source.launches;
    for (let k = dir === 'forward' ? n + 1 : n - 1; k >= 1 && k <= ls.length; k += dir === 'forward' ? 1 : -1) if (ls[k - 1]!.recorded) return k;
    return undefined;
  }

  /** The stop at a launch's first instruction (break_on_launch). */
  launchStop(n: number, s: Session): Stop {
    const l = this.launch(n)!;
    s.goto(0);
    return { reason: 'breakpoint', at: s.at(0), message: `[Launch ${n}: ${this.label(n)}${l.site ? ` at ${l.site}` : ''} (break_on_launch)]` };
  }

  /**
   * A continue that ran off launch `from` (forward past its end, backward past its start): the
   * next stop in the launches beyond it, or the program's end (start) when none has one.
   */
  beyond(from: number, dir: Direction): ProgramStop {
    for (let n = this.neighbour(from, dir); n !== undefined; n = this.neighbour(n, dir)) {
      const l = this.launch(n)!;
      if (!this.mayStopIn(l)) continue;
      const s = this.session(n);
      if (dir === 'forward') {
        if (this.breakOnLaunch) return { launch: n, stop: this.launchStop(n, s) };
        s.goto(0);
        const st = s.cont('forward', true);
        if (st.reason !== 'end') return { launch: n, stop: st };
      } else {
        s.goto(s.total);
        const st = s.cont('backward');
        if (st.reason !== 'start') return { launch: n, stop: st };
        if (this.breakOnLaunch) return { launch: n, stop: this.launchStop(n, s) };
      }
    }
    const ls = this.source.launches;
    if (dir === 'forward') {
      const last = [...ls].reverse().find((l) => l.recorded)!.index;
      const s = this.session(last);
      s.goto(s.total);
      const code = this.source.exitCode;
      return { launch: last, stop: { reason: 'end', at: s.at(s.total), message: `The program ${code === undefined ? 'was stopped' : `exited with code ${code}`} after ${ls.length} launch${ls.length === 1 ? '' : 'es'}; this is the end of launch ${last} (${this.label(last)}), the last recorded. Use reverse-continue or goto to travel back.` } };
    }
    const first = ls.find((l) => l.recorded)!.index;
    const s = this.session(first);
    s.goto(0);
    return { launch: first, stop: { reason: 'start', at: s.at(0), message: `No more reverse-execution history: at the start of launch ${first} (${this.label(first)}), the program's first recorded launch.` } };
  }

  /**
   * continue / reverse-continue from launch `n` at its session's position; `hitHere`: a hit at
   * the position counts (a continue from a host event before the launch).
   */
  cont(n: number, dir: Direction, hitHere = false): ProgramStop {
    const s = this.session(n);
    const from = s.position();
    const st = s.cont(dir, hitHere);
    // a fault ends its launch: a stop, passed by the next continue (the program went on)
    const passedFault = st.reason === 'fault' && from === s.total;
    if (dir === 'forward' && st.reason !== 'end' && !passedFault) return { launch: n, stop: st };
    if (dir === 'backward' && st.reason !== 'start') return { launch: n, stop: st };
    if (dir === 'backward' && this.breakOnLaunch && from > 0) return { launch: n, stop: this.launchStop(n, s) };
    return this.beyond(n, dir);
  }

  /** run: from the program's first recorded launch, a hit at its first step counting. */
  run(): ProgramStop {
    const first = this.source.launches.find((l) => l.recorded)!.index;
    const s = this.session(first);
    if (this.breakOnLaunch) return { launch: first, stop: this.launchStop(first, s) };
    s.goto(0);
    const st = s.cont('forward', true);
    return st.reason === 'end' ? this.beyond(first, 'forward') : { launch: first, stop: st };
  }
}
