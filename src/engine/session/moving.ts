/** The session's moving layer (see base.ts for the layers). */
import { WarpState } from '../../exec/state.js';
import { formatFault } from '../fault.js';
import { EngineError } from '../errors.js';
import { BreakpointError, resolveSpec } from '../breakpoints.js';
import { MachineThreadView } from '../threadview.js';
import { ThreadTimeline } from '../timeline.js';
import { nextLineIndex, previousLineIndex } from '../navigation.js';
import { inlineFinish, inlineNextLine, inlinePreviousLine, involvesInlining } from '../inline-step.js';
import type { Stop } from '../types.js';
import type { Direction } from '../../trace/position.js';
import { childLabel, childOrder } from '../../exec/children.js';
import { printName } from '../../ptx/names.js';

import { SessionState } from './state.js';

/** Moving in the recording: goto, instruction and line steps, until, finish (see base.ts for the layers). */
export abstract class SessionMoving extends SessionState {
  /** Called first by every navigation command: the stop it makes highlights changes since here. */
  protected beginMove(): void {
    this.noteRegisters();
    this.atOpen = false;
  }

  /**
   * No command has moved since the session opened: a continue from here counts a hit at the
   * current step (the launch's first instruction), as gdb's first `continue` after the kernel's
   * entry would.
   */
  protected atOpen = true;

  protected moveTo(step: number, reason: Stop['reason'], message: string): Stop {
    this.trace.goto(Math.max(0, Math.min(this.total, step)));
    this.frameLevel = 0;
    this.inlineHidden = 0;
    return { reason, message, at: this.here() };
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

  protected endStop(): Stop {
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
    const shown = kids.slice(0, 3).map((c) => childLabel(c, printName)).join('; ');
    return ` It launched ${kids.length} child grid${kids.length === 1 ? '' : 's'} (${shown}${kids.length > 3 ? '; ...' : ''}), which run after it: ptxdbg run runs them, and ptxdbg exec --break KERNEL opens one in the debugger.`;
  }

  /** The one range check of a travel target: 0..total, else EngineError 'out-of-range'. */
  protected checkStep(step: number): void {
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
      if (targets.has(tl.locs[i]!)) {
        const st = this.moveTo(tl.steps[i]!, 'step', '');
        this.inlineHidden = r.hide.get(tl.locs[i]!) ?? 0;
        return st;
      }
      // gdb's until/advance stop in the caller silently (no finish-style "Run till exit"): the location says where
      if (tl.depth[i]! < d0) return this.moveTo(tl.steps[i]!, 'step', '');
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
    if (tl.length === 0) return { reason: 'no-move', message: `Thread (${this.focusThread().join(',')}) of block (${this.focusBlock().join(',')}) never executed in this recording.`, at: this.here() };
    return { reason: 'no-move', message: `Thread (${this.focusThread().join(',')}) of block (${this.focusBlock().join(',')}) has exited.`, at: this.here() };
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
      if (involvesInlining(tl, this.code, i0, this.inlineHidden)) {
        const r = inlineNextLine(tl, this.code, i0, this.inlineHidden, into);
        if (r === undefined) return this.afterLast(tl);
        const st = this.moveTo(tl.steps[r.index]!, 'step', '');
        this.inlineHidden = r.hidden;
        return st;
      }
      const i = nextLineIndex(tl, this.code, i0, into);
      return i === undefined ? this.afterLast(tl) : this.moveTo(tl.steps[i]!, 'step', '');
    }
    if (i0 === 0 || tl.length === 0) return this.moveTo(tl.length ? tl.steps[0]! : 0, 'start', 'The thread is at its first line; nothing earlier to go back to.');
    if (involvesInlining(tl, this.code, Math.min(i0, tl.length - 1), this.inlineHidden)) {
      const r = inlinePreviousLine(tl, this.code, i0, this.inlineHidden, into);
      const st = this.moveTo(tl.steps[r.index]!, 'step', '');
      this.inlineHidden = r.hidden;
      return st;
    }
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
    // an inlined frame (gdb: "Run till exit", no value: the inlined call returns nothing gdb can find)
    const inl = !reverse && i0 < tl.length ? inlineFinish(tl, this.code, i0, this.inlineHidden, this.frameLevel) : undefined;
    if (inl) {
      const here = this.where();
      const from = here.frames[Math.min(this.frameLevel, here.frames.length - 1)]?.function ?? here.function;
      this.lastReturn = undefined;
      if (inl.index >= tl.length) return this.afterLast(tl);
      const st = this.moveTo(tl.steps[inl.index]!, 'step', `Run till exit from #${this.frameLevel} ${printName(from)}`);
      this.inlineHidden = inl.hidden;
      return st;
    }
    if (d0 <= 1) return { reason: 'no-move', message: '"finish" not meaningful in the outermost frame.', at: this.here() };
    if (!reverse) {
      const from = this.where().function;
      for (let i = i0 + 1; i < tl.length; i++) {
        if (tl.depth[i]! >= d0) continue;
        this.lastReturn = this.returnSlot(tl.steps[i - 1]!, from);
        return this.moveTo(tl.steps[i]!, 'step', `Run till exit from #0 ${printName(from)}`);
      }
      return this.afterLast(tl);
    }
    const from = this.where().function;
    for (let i = i0 - 1; i >= 0; i--) if (tl.depth[i]! < d0) return this.moveTo(tl.steps[i]!, 'step', `Run back to call of #0 ${printName(from)}`);
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
}
