/** The engine's program layer (see base.ts for the layers): a program's launches and memory across them. */
import { EngineError } from '../errors.js';
import type { Direction, OriginAnswer, Stop, StopEvent, WatchKind, WatchpointInfo } from '../types.js';
import { type Position, positionOf } from '../../trace/position.js';
import type { LaunchInfo, ProgramEvent, Scope, Variable } from '../types.js';
import type { RaceReport } from '../../races/index.js';
import { printName } from '../../ptx/names.js';
import {
  comparePlaces, findWriter, launchIndex, type MemoryLaunchEvent, memorySourceOf, originBefore, programHistory, type ProgramMemorySource,
  type ProgramPoint, type ProgramWriter, watchStopText, writerPlace, writerText,
} from '../program/memory.js';
import { collectAccesses, type WatchTarget } from '../watch.js';
import { hostEventAt, hostEventLine, hostEventPosition } from '../program/host.js';

import { EngineBase, LAUNCH } from './base.js';

/** Where the engine stands when it stops at a host event (hostStop). */
export interface HostStop {
  readonly position: Position;
  /** The stop's line: `[host cudaMemcpy (write) at offbyone.cu:39 in main, before launch 1: launch 1 step -2]`. */
  readonly line: string;
  /** The API called (cudaMemcpy), or the output's stream (stdout) at an output event. */
  readonly what: string;
  /** `offbyone.cu:39 in main`, when known. */
  readonly site: string | undefined;
  /** The host call's file as its DWARF names it (a base name), line and function, when known. */
  readonly file: string | undefined;
  readonly sourceLine: number | undefined;
  readonly function: string | undefined;
  /** What the call did to device memory (write: host to device, read, set, copy, malloc, free...); undefined at an output event. */
  readonly op: string | undefined;
  /** The device ranges it wrote (a copy's or set's destination, cudaMalloc's zeros). */
  readonly writes: readonly { readonly address: bigint; readonly size: number }[];
}

/** The one line the panes show for a host call where the device has no thread: `host cudaMemcpy at offbyone.cu:39 in main — no device thread here`. */
export function noDeviceThread(h: HostStop): string {
  return `host ${h.what}${h.site ? ` at ${h.site}` : ''} — no device thread here`;
}

/** The engine's part for a whole program: its launches and events, and memory across launches (issue #25). */
export abstract class EngineProgram extends EngineBase {
  abstract goto(to: Position): StopEvent;

  /** Every launch of the program, in order (a single-kernel session: its one launch, numbered 0). */
  launches(): LaunchInfo[] {
    const p = this.program;
    if (!p) {
      const l = this.session.launch;
      return [{ index: LAUNCH, kernel: printName(l.kernel), mangled: l.kernel, grid: l.grid, block: l.block, site: undefined, steps: this.total, launchedBy: undefined }];
    }
    const open = p.openSessions();
    return p.source.launches.map((l) => ({
      index: l.index, kernel: printName(l.kernel), mangled: l.kernel, grid: l.grid, block: l.block, site: l.site,
      steps: l.recorded ? open.get(l.index)?.total ?? l.steps : undefined, launchedBy: l.launchedBy, fault: l.fault,
    }));
  }

  /** The launch in focus (`[launch 2 scale<<<(2,1,1),(4,1,1)>>> at offbyone.cu:57]` names it). */
  currentLaunch(): LaunchInfo {
    const n = this.launchNo;
    return this.launches().find((l) => l.index === n)!;
  }

  /**
   * `capture DIR` in a program session: the launch in focus written as the bundle `ptxdbg
   * capture` writes for it (reopen with `ptxdbg DIR/0002-kernel/kernel.ptx`); its directory.
   */
  captureLaunch(dir: string): string {
    const p = this.program;
    if (!p) throw new EngineError('capture DIR works in a whole-program session (ptxdbg ./app); for one launch use `ptxdbg capture`', 'bad-request');
    if (!dir.trim()) throw new EngineError('usage: capture DIR', 'bad-request');
    const n = p.current;
    if (!p.source.capture) throw new EngineError('this recording cannot write bundles', 'bad-request');
    let out: string | undefined;
    try {
      out = p.source.capture(n, dir.trim());
    } catch (e) {
      // the directory cannot be made or written (permissions, a file in the way, a full disk)
      const code = (e as NodeJS.ErrnoException).code;
      if (typeof code !== 'string') throw e;
      throw new EngineError(`capture ${dir.trim()}: ${(e as Error).message}`, 'bad-request');
    }
    if (out === undefined) throw new EngineError(`launch ${n} was not recorded: there is no start state to write`, 'out-of-range');
    return out;
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

  abstract gotoRace(n: number, second?: boolean): StopEvent;

  /** Every launch's race report, in launch order (each recorded launch checked on first ask; undefined: not recorded). */
  programRaces(): { readonly launch: LaunchInfo; readonly report: RaceReport | undefined }[] {
    const p = this.program;
    if (!p) throw new EngineError('a single-kernel session has one launch: use races()', 'bad-request');
    return this.launches().map((l) => ({ launch: l, report: p.races(l.index) }));
  }

  /** `race L.N [2]`: into launch L, to the first (second) access of its race N. */
  gotoLaunchRace(launch: number, n: number, second = false): StopEvent {
    if (!this.program) throw new EngineError(`race ${launch}.${n}: this session records one launch; use race ${n}`, 'bad-request');
    if (!this.program.races(launch)) throw new EngineError(`launch ${launch} was not recorded (or does not exist): its races are not known`, 'out-of-range');
    if (!this.program.races(launch)!.races.length) throw new EngineError(`No races were found in launch ${launch}.`, 'no-race');
    this.enter(launch);
    const st = this.gotoRace(n, second);
    return { ...st, message: st.message?.replace(/^Race \d+/, `Race ${launch}.${n}`) };
  }

  /** The program's exit code (undefined: a single kernel, or a program stopped before its end). */
  get exitCode(): number | undefined { return this.program?.source.exitCode; }

  // ---- memory across launches (issue #25, helper tmem): program/memory.ts -----------------------
  // A program's write watchpoints on global memory see every launch and the host's copies;
  // origin continues into earlier launches and the host. One block, apart from the rest.

  private memSource: ProgramMemorySource | undefined;
  private get mem(): ProgramMemorySource {
    const p = this.program!;
    // the recording's launches (what global memory held as the program ran), never a what-if's
    return (this.memSource ??= memorySourceOf(p.source, (n) => p.recorded(n)));
  }
  /** Write watchpoints on global memory in a program: they are the program's, not one launch's. */
  protected readonly pwatches: (WatchpointInfo & { readonly format: (b: Uint8Array) => string })[] = [];

  /** A program's watchpoint for a write watch on global memory; undefined: the launch's own watch. */
  protected programWatch(expr: string, kind: WatchKind, space: string, address: number, size: number, format: (b: Uint8Array) => string): WatchpointInfo | undefined {
    if (!this.program || space !== 'global' || kind !== 'write') return undefined;
    const wp = { id: this.program.takeId(), expr, kind, space: 'global' as const, address, size, block: undefined, thread: undefined, enabled: true, hits: 0, format };
    this.pwatches.push(wp);
    return wp;
  }

  /** continue / reverse-continue in a program: the nearer of the next breakpoint stop and the next change of a watched range. */
  protected programContinue(dir: Direction): StopEvent {
    const p = this.program!;
    const back = dir === 'backward' && !this.pwatches.some((w) => w.enabled) ? this.backFromHost() : undefined;
    if (back) return back; // (with watches: the writers before the event first)
    const from: ProgramPoint = this.eventStop !== undefined
      ? { kind: 'host', index: this.eventStop + (dir === 'forward' ? 1 : 0) }
      : { kind: 'launch', launch: p.current, step: this.session.position() };
    // from a host event before the shown launch, forward: a hit at the launch's first step counts
    const ps = p.cont(p.current, dir, dir === 'forward' && this.hostPos !== undefined && this.hostPos.launch <= p.current);
    const watches = this.pwatches.filter((w) => w.enabled);
    if (!watches.length) return this.programStop(ps);
    const src = this.mem;
    // a breakpoint stop bounds the search; the program's end (start) does not
    const limit = ps.stop.reason === 'end' || ps.stop.reason === 'start' ? undefined : { event: launchIndex(src, ps.launch), step: ps.stop.at.step };
    let best: { w: ProgramWriter; wp: (typeof watches)[number] } | undefined;
    for (const wp of watches) {
      const w = findWriter(src, { offset: wp.address, size: wp.size }, from, dir, limit);
      if (w && (!best || (comparePlaces(writerPlace(src, w), writerPlace(src, best.w)) < 0) === (dir === 'forward'))) best = { w, wp };
    }
    if (!best) return (dir === 'backward' ? this.backFromHost() : undefined) ?? this.programStop(ps);
    best.wp.hits++;
    const hit = { kind: 'watchpoint' as const, id: best.wp.id, access: 'write' as const };
    return this.showWriter(best.w, dir, watchStopText(best.wp.id, best.wp.expr, best.w, dir, best.wp.format), 'watchpoint', hit);
  }

  /**
   * Stop where a writer is: a thread's write (backward at the writing step, forward just after
   * it, the thread in focus); a host call's, at the host call itself (program/host.ts); an
   * unrecorded launch's, at the device after it (the next recorded launch's start; the last
   * one's end when none follows).
   */
  private showWriter(w: ProgramWriter, dir: Direction, message: string, reason: Stop['reason'], hit: Stop['hit']): StopEvent {
    if (w.kind === 'device') {
      this.enter(w.launch);
      const s = this.session;
      s.goto(dir === 'backward' ? w.step : w.step + 1);
      s.setFocus(w.block, w.thread);
      return this.stopped({ reason, at: s.here(), message, hit });
    }
    if (w.kind === 'host') return this.stopAtHost(w.event.index, { reason, message, hit });
    const at = w.event.index;
    const launches = this.mem.events.filter((e): e is MemoryLaunchEvent => e.kind === 'launch' && e.recorded);
    const next = launches.find((e) => e.index > at);
    const show = next ?? launches.filter((e) => e.index < at).pop()!;
    this.enter(show.launch);
    this.session.goto(next ? 0 : this.session.total);
    const st = this.stopped({ reason, at: this.session.here(), message: `${message}
(no thread made this change: showing the ${next ? 'start' : 'end'} of launch ${show.launch})`, hit });
    this.eventStop = at;
    return st;
  }

  /**
   * Stop at host event `event` (its index among the program's events): the position is the
   * event's (step < 0 of the launch after it); `print`/`x` read global memory as the call left it,
   * in the frame of the next recorded launch at its start (else the last one at its end).
   */
  protected stopAtHost(event: number, st: Pick<Stop, 'reason' | 'message' | 'hit'>): StopEvent {
    const p = this.program!;
    const at = hostEventPosition(p.source, event);
    const ls = p.source.launches;
    const next = ls.find((l) => l.recorded && l.index >= at.launch);
    const show = next ?? [...ls].reverse().find((l) => l.recorded && l.index < at.launch)!;
    this.enter(show.index);
    this.session.goto(next ? 0 : this.session.total);
    const line = hostEventLine(hostEventAt(p.source, at), at, ls.length);
    const out = this.stopped({ ...st, at, message: st.message ? `${st.message}\n${line}` : line });
    this.eventStop = event;
    this.hostPos = at;
    this.session.hostMemory = (address, size) => p.source.memoryAt(event + 1, address, size);
    return out;
  }

  /**
   * Backward from a host event whose memory is shown at the start of the launch after it: the
   * launch shown comes after the event, so the search is the launches before it; with none that
   * has a stop, the position stays at the event (the start of the launch is later in time).
   */
  protected backFromHost(): StopEvent | undefined {
    const p = this.program, at = this.hostPos, event = this.eventStop;
    if (!p || !at || event === undefined || at.launch > p.current) return undefined;
    const ps = p.beyond(at.launch, 'backward');
    if (ps.stop.reason !== 'start' || ps.launch < at.launch) return this.programStop(ps);
    return this.stopAtHost(event, { reason: 'start', message: 'No more reverse-execution history: no launch before this host call has a stop.' });
  }

  /** goto onto a host event (a position with step < 0). */
  protected gotoHost(to: Position): StopEvent {
    const e = hostEventAt(this.program!.source, to);
    return this.stopAtHost(e.event, { reason: 'goto', message: '' });
  }

  /**
   * The host event the engine stands at (a watchpoint stop on a host copy, `goto launch K step
   * -J`), as the stop names it; undefined in a launch.
   */
  hostStop(): HostStop | undefined {
    const p = this.program, at = this.hostPos;
    if (!p || !at) return undefined;
    const e = hostEventAt(p.source, at);
    // the site reads `offbyone.cu:39 in main` (host/hostlines.ts), `in main` or an address
    const m = e.kind === 'host' ? /^(.+):(\d+)(?: in (.+))?$/.exec(e.site ?? '') : null;
    return {
      position: at, line: hostEventLine(e, at, p.source.launches.length),
      what: e.kind === 'host' ? e.api : e.stream, site: e.kind === 'host' ? e.site : undefined,
      file: m?.[1], sourceLine: m ? Number(m[2]) : undefined, function: m?.[3],
      op: e.kind === 'host' ? e.op : undefined, writes: e.kind === 'host' ? e.writes : [],
    };
  }

  /**
   * The host call's source file (the program's own, as its DWARF line table names it by base
   * name): the launch's source of that name when host and kernels share a file (the usual .cu),
   * else what the source lookup finds (beside the program, the source directory); undefined at
   * a device position or where it cannot be read.
   */
  hostSource(): { readonly path: string; readonly lines: readonly string[] } | undefined {
    const h = this.hostStop();
    if (h?.file === undefined) return undefined;
    const base = (f: string): string => f.replace(/^.*[\\/]/, '');
    const named = [...this.session.program.files.values()].find((f) => base(f) === h.file);
    return (named !== undefined ? this.session.sources.get(named) : undefined) ?? this.session.sources.get(h.file);
  }

  /**
   * DAP's scopes at a host call: no device frame, so no device scope; one "Host call" scope
   * naming the call, its kind, its site and the device memory it wrote (never a launch's locals).
   */
  protected hostScopes(h: HostStop): Scope[] {
    const hex = (a: bigint): string => `0x${a.toString(16)}`;
    const plain = (name: string, value: string, type = ''): Variable => ({ name, value, type, containerId: 0, expression: undefined, memoryReference: undefined });
    const vars: Variable[] = [plain('call', h.what), ...(h.op !== undefined ? [plain('kind', h.op)] : []), plain('site', h.site ?? 'unknown (no host line information)')];
    const bytes = h.writes.reduce((n, w) => n + w.size, 0);
    if (h.writes.length) vars.push(plain('bytes written', String(bytes), 'size_t'));
    h.writes.forEach((w, i) => vars.push({ ...plain(h.writes.length > 1 ? `destination ${i + 1}` : 'destination', `${hex(w.address)} (${w.size} bytes)`, 'void *'), memoryReference: `global:${hex(w.address)}` }));
    vars.push(plain('device thread', 'none: no kernel runs at a host call'));
    return [{ name: 'Host call', hint: 'locals', count: vars.length, containerId: this.containers.add(() => vars) }];
  }

  /**
   * origin of global memory in a program: this launch's last write before here when there is
   * one (undefined: the caller asks the session), else the last change before the launch.
   */
  protected originAcross(target: WatchTarget, what: string): OriginAnswer | undefined {
    const s = this.session;
    // at a host call the value is what the call left: search from just after the call, not from
    // the launch shown for its memory (the call itself may be the writer)
    const atHost = this.hostPos !== undefined && this.eventStop !== undefined ? this.eventStop : undefined;
    const p = s.position();
    if (atHost === undefined && collectAccesses(s.trace, target, 'write', 0, p).length) { s.trace.goto(p); return undefined; }
    s.trace.goto(p);
    const from: ProgramPoint = atHost !== undefined ? { kind: 'host', index: atHost + 1 } : { kind: 'launch', launch: this.program!.current, step: 0 };
    const o = originBefore(this.mem, from, { offset: target.address, size: target.size });
    if (!o) throw new EngineError(`No write to ${s.memoryName(target)} in the program before here: it holds what its allocation started with.`);
    const by = writerText(o.writer);
    if (o.writer.kind === 'device' && o.hop) {
      this.enter(o.writer.launch);
      const here = this.session;
      here.lastOrigin = o.hop;
      return { stop: this.stopped({ reason: 'goto', at: here.here(), message: `Now at launch ${o.writer.launch} step ${o.hop.step}: ${here.describeStep(o.hop.step, o.hop.lane)}` }), hop: o.hop, what, by };
    }
    // a host call wrote it: the answer names it and the position goes to the call (program/host.ts)
    if (o.writer.kind === 'host') return { stop: this.stopAtHost(o.writer.event.index, { reason: 'goto', message: '' }), hop: undefined, what, by, before: o.writer.before, after: o.writer.after };
    // an unrecorded launch: the answer names it; the position stays
    return { stop: this.stopped({ reason: 'no-move', at: s.here(), message: '(no thread of the program wrote it: the position stays)' }), hop: undefined, what, by, before: o.writer.before, after: o.writer.after };
  }

  /** `history` of a global range over the whole program (a program only; undefined otherwise). */
  writesAcross(offset: number, size: number): readonly ProgramWriter[] | undefined {
    return this.program ? programHistory(this.mem, { offset, size }) : undefined;
  }
}
