/** The engine's breakpoint layer (see base.ts for the layers): breakpoints and watchpoints by DAP request and by gdb location. */
import { BreakpointError, parseHitCondition } from '../breakpoints.js';
import { EngineError } from '../errors.js';
import { GLOBAL_BANKS, GLOBAL_HI } from '../../exec/memory.js';
import { evaluateExpression, PrintError, type ValueHistory } from '../print/index.js';
import type {
  AddedWatch, BreakpointInfo, BreakpointRequest, BreakpointResult, DataSpace, Dim3, SpaceName, WatchKind, WatchpointInfo, WatchRequest,
} from '../types.js';
import { formatterFor } from '../values.js';
import { printName } from '../../ptx/names.js';
import { programBreak, programDelete } from '../program/breakpoints.js';

import { WRITABLE } from './base.js';
import { EngineValues } from './values.js';

/** The engine's breakpoints and watchpoints (see base.ts for the layers). */
export abstract class EngineBreakpoints extends EngineValues {
  // ---- breakpoints and watchpoints --------------------------------------------------------------

  private replaceGroup(group: string, add: () => BreakpointResult[]): BreakpointResult[] {
    for (const id of this.groups.get(group) ?? []) {
      try { this.deleteBreakpoint(id); } catch (e) { if (!(e instanceof EngineError)) throw e; }
    }
    const out = add();
    this.groups.set(group, out.flatMap((r) => (r.id === undefined ? [] : [r.id])));
    return out;
  }

  private addSpec(spec: string, condition: string | undefined, hitCondition: string | undefined): BreakpointResult {
    try {
      const hc = hitCondition?.trim() ? parseHitCondition(hitCondition) : undefined;
      const text = condition?.trim() ? `${spec} if ${condition.trim()}` : spec;
      const b = this.program ? programBreak(this.program, this.session, text, false, hc) : this.session.addBreakpoint(text, false, hc);
      // a program's breakpoint not in the launch in focus: verified when a launch recorded so far
      // has its code (gdb's resolved breakpoint), else pending, and kept (DAP: a `changed` event later)
      if (b.pending) {
        const at = this.breakpointResolved(b.id);
        if (at) return { verified: true, id: b.id, line: at.line, message: undefined };
        return { verified: false, id: b.id, line: undefined, message: b.note ?? this.pendingMessage(spec) };
      }
      return { verified: true, id: b.id, line: b.locations[0]?.line, message: undefined };
    } catch (e) {
      if (e instanceof EngineError || e instanceof BreakpointError) return { verified: false, id: undefined, line: undefined, message: e.message };
      throw e;
    }
  }

  /**
   * Where breakpoint `id` resolved: the first launch recorded so far whose code has it (a
   * program's breakpoint is pending until one does), with its source line there; undefined while
   * pending or unknown. A single-kernel session: its one launch, numbered 0.
   */
  breakpointResolved(id: number): { readonly launch: number; readonly line: number | undefined } | undefined {
    const p = this.program;
    const inSession = (s: { breakpoints(): readonly BreakpointInfo[] }): BreakpointInfo | undefined => s.breakpoints().find((b) => b.id === id && b.locations.length > 0);
    if (!p) { const b = inSession(this.session); return b ? { launch: 0, line: b.locations[0]!.line } : undefined; }
    for (const n of [...p.openSessions().keys()].sort((a, b) => a - b)) {
      const b = inSession(p.openSessions().get(n)!);
      if (b) return { launch: n, line: b.locations[0]!.line };
    }
    return undefined;
  }

  /** Why a program's breakpoint is pending, naming the function its location is in when the focused module knows it. */
  private pendingMessage(spec: string): string {
    if (/^[A-Za-z_$][\w$:<>]*$/.test(spec)) return `pending: no launch of ${spec} reached yet`;
    try {
      const at = this.session.resolveLocation(spec)[0];
      if (at) return `pending: no launch of ${printName(at.function)} reached yet`;
    } catch (e) {
      // code the focused launch does not reach: its error names the function (`... is in scale, which kernel ...`)
      const fn = e instanceof Error ? /\bis in (\S+?)(?: \([^)]*\))?, which kernel\b/.exec(e.message)?.[1] : undefined;
      if (fn) return `pending: no launch of ${fn} reached yet`;
    }
    return `pending: no launch of the code at ${spec} reached yet`;
  }

  /** Replace the breakpoints of one source file (a CUDA file, or the PTX file: PTX lines). */
  setBreakpoints(file: string, lines: readonly BreakpointRequest[]): BreakpointResult[] {
    const isPtx = file === this.session.ptxPath || file.endsWith('.ptx');
    return this.replaceGroup(`source:${file}`, () => lines.map((l) => {
      const r = this.addSpec(isPtx ? `ptx:${l.line}` : `${file}:${l.line}`, l.condition, l.hitCondition);
      return isPtx && r.verified ? { ...r, line: l.line } : r;
    }));
  }

  setFunctionBreakpoints(fns: readonly { readonly name: string; readonly condition?: string | undefined; readonly hitCondition?: string | undefined }[]): BreakpointResult[] {
    return this.replaceGroup('function', () => fns.map((f) => this.addSpec(f.name, f.condition, f.hitCondition)));
  }

  /** Breakpoints on instructions by global address (see `instructions()`). */
  setInstructionBreakpoints(addrs: readonly { readonly address: number; readonly condition?: string | undefined; readonly hitCondition?: string | undefined }[]): BreakpointResult[] {
    return this.replaceGroup('instruction', () => addrs.map((a) => {
      const ins = this.instruction(a.address);
      if (!ins) return { verified: false, id: undefined, line: undefined, message: `no instruction at ${a.address}` };
      return { ...this.addSpec(`ptx:${ins.ptxLine}`, a.condition, a.hitCondition), line: ins.ptxLine };
    }));
  }

  /** One breakpoint at a source line (`file` by base name) or a line of the PTX file. */
  addBreakpoint(at: { readonly file: string; readonly line: number } | { readonly ptxLine: number }): BreakpointInfo {
    return this.breakAt('ptxLine' in at ? `ptx:${at.ptxLine}` : `${at.file.replace(/^.*[\\/]/, '')}:${at.line}`);
  }

  /** Delete breakpoints or watchpoints by id; returns the engine's confirmation per id. */
  deleteBreakpoints(ids: readonly number[]): string[] {
    return ids.map((id) => this.deleteBreakpoint(id));
  }

  /**
   * Watch an lvalue of the focused thread, or a raw range written `@space ADDR [LEN]`: `write`
   * stops where the value changes, `read`/`access` where it is read / accessed (both directions).
   * `history` lets the expression name gdb's `$1, $2...` values.
   */
  addWatch(expr: string, kind: WatchKind, history?: ValueHistory, label = expr): AddedWatch {
    const s = this.session;
    const raw = /^@(global|shared|local)\s+(0x[0-9a-f]+|\d+)(?:\s+(\d+))?$/i.exec(expr);
    if (raw) {
      const space = raw[1]!.toLowerCase() as DataSpace;
      const address = BigInt(raw[2]!);
      const size = raw[3] ? Number(raw[3]) : 4;
      if (space === 'global') refusePastBank0(address);
      if (!s.threadView().readMemory(space, address, size)) throw new EngineError(`Cannot watch ${space} 0x${address.toString(16)} (${size} bytes): not accessible from the focused thread.`, 'bad-watch');
      const across = this.programWatch(expr, kind, space, Number(address & 0xffffffffn), size, formatterFor('int', size));
      return { wp: across ?? s.addWatchpoint(expr, kind, space, Number(address & 0xffffffffn), size, formatterFor('int', size)), raw: true };
    }
    let v;
    try {
      v = evaluateExpression(s.debugInfo(), s.threadView(), expr, history);
    } catch (e) {
      if (e instanceof PrintError) throw new EngineError(e.message, 'bad-expression');
      throw e;
    }
    if (v.address === undefined || v.space === undefined) throw new EngineError(`Cannot watch constant value \`${expr}' (it is not in memory).`, 'bad-watch');
    if (!WRITABLE.includes(v.space)) throw new EngineError(`cannot watch ${v.space} memory (read-only)`, 'bad-watch');
    if (v.space === 'global' || v.space === 'generic') refusePastBank0(v.address);
    const addr = Number(v.address & 0xffffffffn);
    if (!s.threadView().readMemory(v.space as SpaceName, v.address, Math.max(1, v.size))) throw new EngineError(`Cannot watch ${expr}: ${v.space} address 0x${addr.toString(16)} is not accessible.`, 'bad-watch');
    const across = this.programWatch(label, kind, v.space, addr, Math.max(1, v.size), formatterFor(v.type, v.size));
    return { wp: across ?? s.addWatchpoint(label, kind, v.space as DataSpace, addr, Math.max(1, v.size), formatterFor(v.type, v.size)), raw: false };
  }

  breakpoints(): readonly BreakpointInfo[] {
    const p = this.program;
    if (!p) return this.session.breakpoints();
    // the program's: as set in the launch in focus, else pending (not in this launch's code)
    const here = this.session.breakpoints();
    return p.bps.map((b) => here.find((x) => x.id === b.id) ?? { id: b.id, spec: b.location, enabled: b.enabled, condition: undefined, locations: [], hits: 0, pending: true });
  }
  watchpoints(): readonly WatchpointInfo[] { return this.pwatches.length ? [...this.session.watchpoints(), ...this.pwatches] : this.session.watchpoints(); }

  /** Replace the watchpoints (DAP's data breakpoints): each expression is resolved now. */
  setWatchpoints(reqs: readonly WatchRequest[]): { verified: boolean; id: number | undefined; message: string | undefined }[] {
    const out: { verified: boolean; id: number | undefined; message: string | undefined }[] = [];
    for (const id of this.groups.get('data') ?? []) {
      const pw = this.pwatches.findIndex((w) => w.id === id);
      if (pw >= 0) { this.pwatches.splice(pw, 1); continue; }
      try { this.deleteBreakpoint(id); } catch (e) { if (!(e instanceof EngineError)) throw e; }
    }
    for (const r of reqs) {
      try {
        const ev = this.evaluate(r.expression);
        if (!ev.lvalue) throw new EngineError(`${r.expression} is not writable memory of the focused thread`, 'bad-watch');
        const wp = this.programWatch(r.expression, r.kind, ev.lvalue.space, ev.lvalue.address, ev.lvalue.size, formatterFor(ev.type, ev.lvalue.size)) ?? this.session.addWatchpoint(r.expression, r.kind, ev.lvalue.space, ev.lvalue.address, ev.lvalue.size, formatterFor(ev.type, ev.lvalue.size));
        out.push({ verified: true, id: wp.id, message: undefined });
      } catch (e) {
        if (!(e instanceof EngineError)) throw e;
        out.push({ verified: false, id: undefined, message: e.message });
      }
    }
    this.groups.set('data', out.flatMap((r) => (r.id === undefined ? [] : [r.id])));
    return out;
  }

  // ---- breakpoints by gdb location -------------------------------------------------------------

  /** gdb's `break LOCATION [if COND]` (`tbreak` when temporary): FILE:LINE, LINE, FUNCTION, ptx:LINE, *INSTR. */
  breakAt(location: string, temporary = false): BreakpointInfo {
    if (this.program) return programBreak(this.program, this.session, location, temporary);
    return this.session.addBreakpoint(location, temporary);
  }
  /** Delete breakpoint or watchpoint `id` (every one when undefined); gdb's reply. */
  deleteBreakpoint(id: number | undefined): string {
    const w = this.pwatches.findIndex((x) => x.id === id);
    if (w >= 0) { this.pwatches.splice(w, 1); return `Deleted watchpoint ${id}.`; }
    if (!this.program) return this.session.deleteBreakpoint(id);
    const text = programDelete(this.program, this.session, id);
    // `delete` (all): the program's watchpoints go too, and count in the reply
    const k = id === undefined ? this.pwatches.splice(0).length : 0;
    return k ? text.replace(/(\d+) watchpoints?\.$/, (_m, n: string) => `${Number(n) + k} watchpoint${Number(n) + k === 1 ? '' : 's'}.`) : text;
  }
  enableBreakpoint(id: number, on: boolean): void {
    const w = this.pwatches.find((x) => x.id === id);
    if (w) { w.enabled = on; return; }
    if (!this.program) this.session.enableBreakpoint(id, on);
    else if (!this.program.enableBreakpoint(id, on)) throw new EngineError(`No breakpoint number ${id}.`, 'no-such-breakpoint');
  }
  /** Pass the next `count` hits of breakpoint `id`. */
  ignoreBreakpoint(id: number, count: number): void {
    if (!this.program) this.session.ignoreBreakpoint(id, count);
    else if (!this.program.ignoreBreakpoint(id, count)) throw new EngineError(`No breakpoint number ${id}.`, 'no-such-breakpoint');
  }
  /** The breakpoint the last stop hit, if it was one. */
  get lastBreakpoint(): number | undefined { return this.session.lastBreakpoint; }
  /** gdb's `condition N EXPR` (a condition that does not parse changes nothing) / `condition N` (removes it); gdb's reply. */
  setCondition(id: number, expr: string | undefined): string { return this.session.setCondition(id, expr); }
  /** gdb's `clear LOCATION`: delete the breakpoints at LOCATION; gdb's reply. */
  clearAt(location: string): string { return this.session.clearAt(location); }
  /** The grid and block dimensions of the launch (the gdb language's `$_block`, `thread apply all`). */
  launchInfo(): { readonly grid: Dim3; readonly block: Dim3 } { return { grid: this.session.launch.grid, block: this.session.launch.block }; }
  /** The breakpoint set last (gdb's `commands` without a number), if any. */
  lastBreakpointSet(): number | undefined { const ids = this.session.breakpoints().map((b) => b.id); return ids.length ? Math.max(...ids) : undefined; }
  /** Where a gdb location (`16`, `kernel.cu:16`, `twice`) resolves, without setting anything (`info line N`). */
  resolveLocation(location: string): { function: string; pc: number; file: string | undefined; line: number }[] { return this.session.resolveLocation(location); }
}

/**
 * Watchpoints know global memory by its first bank's offsets (src/exec/arena.ts): one past it
 * (high word 0x7f01 and on) is refused in words rather than watched at the wrong bytes.
 */
function refusePastBank0(address: bigint): void {
  const hi = Number(address >> 32n);
  if (hi > GLOBAL_HI && hi < GLOBAL_HI + GLOBAL_BANKS) throw new EngineError(`Cannot watch global 0x${address.toString(16)}: watchpoints cover the first 4 GiB of device memory only yet.`, 'bad-watch');
}
