/** The session's breakpoint layer (see base.ts for the layers). */
import { coordsOf } from '../../exec/launch.js';
import { lowestLane } from '../../exec/int64.js';
import { type Program } from '../../ptx/resolve.js';
import { EngineError } from '../errors.js';
import { ctaOfKey, warpOfKey, tidOfKey, Trace, type WarpKey } from '../../trace/trace.js';
import { BreakpointError, type HitCondition, resolveSpec } from '../breakpoints.js';
import { type BreakpointHit, type Bp, type OnlyThread, type WatchHit } from '../stoppoints.js';
import { conditionErrorText } from '../conditions.js';
import { MachineThreadView } from '../threadview.js';
import { baseName } from '../sources.js';
import { evaluateExpression, PrintError } from '../print/index.js';
import type { BreakpointInfo, DataSpace, Stop, WatchKind, WatchpointInfo } from '../types.js';
import type { Direction } from '../../trace/position.js';
import { type WatchTarget } from '../watch.js';
import { Access } from '../../exec/probe.js';
import { printName } from '../../ptx/names.js';

import { SessionMoving } from './moving.js';

/** Breakpoints, watchpoints and continue in both directions (see base.ts for the layers). */
export abstract class SessionStops extends SessionMoving {
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
  protected conditionAt(expr: string, step: number, key: WarpKey, lane: number): boolean | string {
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
    if (landed.at.step === from || landed.reason === 'no-move') return landed;
    this.trace.goto(from);
    const met = this.cont(dir, false, { target: landed.at.step, key: this.focusKey, lane: this.focusLane });
    if (!met) {
      this.trace.goto(landed.at.step);
      return landed;
    }
    this.lastReturn = undefined;
    return met;
  }

  /** gdb's `ignore N COUNT`. */
  ignoreBreakpoint(id: number, count: number): void { this.points.ignoreBreakpoint(id, count); }

  addWatchpoint(expr: string, kind: WatchKind, space: DataSpace, address: number, size: number, format: (b: Uint8Array) => string): WatchpointInfo {
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
        this.hitMarks.push({ at: this.at(rw.step), kind: 'watch' });
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
      this.hitMarks.push({ at: this.at(wt.ev.step), kind: 'watch' });
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
      this.hitMarks.push({ at: this.at(bp.step), kind: 'breakpoint' });
      const s = this.moveTo(bp.step, 'breakpoint', '');
      const w = this.where();
      return { ...s, hit: { kind: 'breakpoint', id: 0 }, message: `Program received signal SIGTRAP, Trace/breakpoint trap (brkpt), block (${w.block.join(',')}) thread (${w.thread.join(',')}) at ${printName(w.function)} (${w.file ? `${baseName(w.file)}:${w.line}` : `pc ${w.pc}`})` };
    }
    if (bp) {
      this.focusKeyLane(bp.key, bp.lane);
      bp.bp.hits++;
      this.lastBreakpoint = bp.bp.id;
      this.hitMarks.push({ at: this.at(bp.step), kind: 'breakpoint' });
      if (bp.bp.temporary) this.points.remove(bp.bp);
      const s = this.moveTo(bp.step, 'breakpoint', '');
      const at = this.where();
      this.inlineHidden = bp.bp.hide?.get(this.code.global(at.function, at.pc)) ?? 0;
      const w = this.where();
      const error = bp.error === undefined ? '' : `${conditionErrorText(bp.bp.id, bp.error)}\n`;
      return { ...s, hit: { kind: 'breakpoint', id: bp.bp.id, ...(bp.error === undefined ? {} : { conditionError: bp.error }) }, message: `${error}${bp.bp.temporary ? 'Temporary breakpoint' : 'Breakpoint'} ${bp.bp.id}, block (${w.block.join(',')}) thread (${w.thread.join(',')}) at ${printName(w.frames[0]?.function ?? w.function)} (${w.file ? `${baseName(w.file)}:${w.line}` : `pc ${w.pc}`})` };
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
}

/** A stepping command's landing step and the focused thread (warp key, lane): see Session.onTheWay. */
export interface Way extends OnlyThread { readonly target: number }
