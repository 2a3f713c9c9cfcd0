/** The session's state layer (see base.ts for the layers): where, warps, thread views, registers, register watches, marks. */
import { coordsOf } from '../../exec/launch.js';
import { WarpState, type Warp } from '../../exec/state.js';
import { entryNames, type Program } from '../../ptx/resolve.js';
import { DebugInfo } from '../print/debuginfo.js';
import { ctaOfKey, warpOfKey } from '../../trace/trace.js';
import { FinishedThreadView, laneFrames, MachineThreadView } from '../threadview.js';
import { ThreadTimeline } from '../timeline.js';
import { evaluateExpression, PrintError } from '../print/index.js';
import type { BreakpointInfo, Dim3, FrameInfo, LaneState, RegisterValue, SpaceName, ThreadView, TimelineMark, WarpInfo, WatchpointInfo, Where } from '../types.js';
import type { Direction } from '../../trace/position.js';
import { ptxText } from '../../exec/machine.js';
import { GLOBAL_HI } from '../../exec/memory.js';

import { type RegisterWatchInfo, type RegWp, SessionBase } from './base.js';

/** What the focused thread, its warp and the resident warps hold at the position (see base.ts for the layers). */
export abstract class SessionState extends SessionBase {
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
    const frames: FrameInfo[] = w ? laneFrames(this.machine, w, lane, this.inlineHidden).frames : [];
    // the selected frame (`frame N`, `up`, `down`) is what the header and the panes show
    const sel = Math.min(this.frameLevel, Math.max(0, frames.length - 1));
    const top = frames[sel];
    // the PTX function whose code runs there (an inlined function's frame is in its caller's code)
    const fn = frames.slice(sel).find((f) => !f.inlined)?.function ?? this.machine.kernel.name;
    const pc = top?.pc ?? 0;
    const prog = this.program.functions.get(fn);
    const ins = prog?.instrs[pc];
    return {
      at: this.here(),
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

  /**
   * At a host-event stop of a program (engine/api/program.ts): global memory [address, +size) as
   * the host call left it, read from the program's recording; this launch's machine holds the
   * memory at the launch's start, after any later host calls. Undefined elsewhere.
   */
  hostMemory: ((address: bigint, size: number) => Uint8Array | undefined) | undefined;

  threadView(): ThreadView {
    const v = this.machineView();
    const host = this.hostMemory;
    if (!host) return v;
    // global reads (and generic ones in the global window) come from the recording; the view's
    // own read still says whether the range is allocated
    return Object.create(v, {
      readMemory: {
        value: (space: SpaceName, address: bigint, size: number): Uint8Array | undefined => {
          const own = v.readMemory(space, address, size);
          const hi = Number((address >> 32n) & 0xffffffffn);
          if (!own || !(space === 'global' || (space === 'generic' && hi === GLOBAL_HI))) return own;
          return host(hi === 0 ? (BigInt(GLOBAL_HI) << 32n) | address : address, size);
        },
      },
    }) as ThreadView;
  }

  private machineView(): ThreadView {
    const w = this.focusedWarp();
    if (!w || laneFrames(this.machine, w, this.focusLane).frames.length === 0) {
      // exited or retired: what outlives the thread (global memory, parameters) stays readable
      const state = this.laneState(w, this.focusLane);
      if (state === 'exited' || state === 'retired') return new FinishedThreadView(this.machine, this.focusBlock(), this.focusThread());
      return new NoThreadView(this.program, this.focusBlock(), this.focusThread());
    }
    return new MachineThreadView(this.machine, w, this.focusLane, this.frameLevel, this.inlineHidden);
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
  protected noteRegisters(): void {
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

  protected rwps: RegWp[] = [];

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
  protected findRegisterWatch(p: number, dir: Direction, bound: number): { wp: RegWp; step: number; before: string | undefined; after: string | undefined } | undefined {
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
    if (this.trace.fault) out.push({ at: this.at(this.total), kind: 'fault' });
    out.push(...this.raceMarks);
    return out;
  }

  /** The program's decoded DWARF (decoded once per program, shared by every front end). */
  debugInfo(): DebugInfo { return DebugInfo.fromProgram(this.program); }
}

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
