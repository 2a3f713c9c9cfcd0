/** The engine's values layer (see base.ts for the layers): expressions, memory, history, origin, lanes and code. */
import { LineMap } from '../../ptx/diagnostics.js';
import { ptxText as instructionText } from '../../exec/machine.js';
import { Access } from '../../exec/probe.js';
import { ctaOfKey, tidOfKey } from '../../trace/trace.js';
import { EngineError } from '../errors.js';
import { evaluateExpression, PrintError, printExpression, type ValueHistory } from '../print/index.js';
import type { OriginSource } from '../origin.js';
import type { DataSpace, Evaluation, Instruction, LaneValue, OriginAnswer, Scope, SpaceName, Variable, Write } from '../types.js';
import { formatterFor, registerValue } from '../values.js';
import { frameScopes } from '../scopes.js';
import { comparePositions, type Position } from '../../trace/position.js';

import { RAW_RANGE, WRITABLE } from './base.js';
import { EngineProgram } from './program.js';
import { signatureName } from '../../ptx/names.js';

/** The engine's values, history, origin and code (see base.ts for the layers). */
export abstract class EngineValues extends EngineProgram {
  // ---- values ----------------------------------------------------------------------------------

  /** Evaluate a C expression in the focused thread's selected frame (`frame` selects another). */
  evaluate(expr: string, frame?: number): Evaluation {
    if (frame !== undefined) this.selectFrame(frame);
    let r;
    try {
      r = evaluateExpression(this.session.debugInfo(), this.session.threadView(), expr);
    } catch (e) {
      if (e instanceof PrintError) throw new EngineError(e.message, 'bad-expression');
      throw e;
    }
    const mem = r.address !== undefined && r.space !== undefined ? `${r.space}:0x${r.address.toString(16)}` : undefined;
    const lvalue = r.address !== undefined && r.space !== undefined && WRITABLE.includes(r.space) && r.size > 0
      ? { space: r.space as DataSpace, address: Number(r.address & 0xffffffffn), size: r.size } : undefined;
    return { value: r.text, type: r.type, memoryReference: mem, lvalue };
  }

  /** The scopes of a frame of the focused thread: its variables by address space, the warp view, and its PTX registers. */
  scopes(frame: number): Scope[] {
    const host = this.hostStop();
    if (host) return this.hostScopes(host);
    this.selectFrame(frame);
    return frameScopes(this.session, frame, this.containers, (expr, f) => this.evaluate(expr, f), (name) => this.lanes(name));
  }

  /** The children of a container (a scope, struct, array or pointer target). */
  variables(containerId: number): Variable[] {
    return this.containers.get(containerId);
  }

  /** Bytes at a memory reference (`space:0xaddress`, as variables give) as the focused thread reads them. */
  readMemory(ref: string, offset: number, count: number): { address: string; bytes: Uint8Array; unreadable: number } {
    const m = /^(global|shared|local|const|param|generic):0x([0-9a-f]+)$/i.exec(ref);
    if (!m) throw new EngineError(`bad memory reference '${ref}': expected space:0xaddress`, 'bad-request');
    const space = m[1]!.toLowerCase() as SpaceName;
    const at = BigInt('0x' + m[2]!) + BigInt(offset);
    const view = this.session.threadView();
    // the readable prefix: halve the request until a read succeeds, then grow it back
    let n = Math.max(0, Math.min(count, 1 << 20));
    let bytes = n ? view.readMemory(space, at, n) : new Uint8Array(0);
    while (!bytes && n > 1) { n >>= 1; bytes = view.readMemory(space, at, n); }
    const got = bytes ?? new Uint8Array(0);
    return { address: `${space}:0x${at.toString(16)}`, bytes: got, unreadable: count - got.length };
  }

  // ---- history -----------------------------------------------------------------------------------

  /**
   * Every write to a register of the focused thread (`$r3`, `%r3`) or to an lvalue in global,
   * shared or local memory, over the whole recording, oldest first.
   */
  history(expr: string, limit = 1000): Write[] {
    const s = this.session;
    const reg = expr.trim().replace(/^\$/, '%');
    const view = s.threadView();
    const rtype = /^%[a-z]+\d*$/i.test(reg) ? view.registerType(reg) : undefined;
    if (rtype !== undefined) {
      const me = this.focus();
      return s.registerHistory(reg, limit).map((w) => ({ position: s.at(w.step), thread: me, file: w.file, line: w.line, before: undefined, after: registerValue(rtype, w.value), atomic: false }));
    }
    const ev = this.evaluate(expr);
    if (!ev.lvalue) throw new EngineError(`history needs a register or an lvalue in global, shared or local memory`, 'bad-request');
    const { space, address, size } = ev.lvalue;
    const fmt = formatterFor(ev.type, size);
    const target = { space, address, size, ctaId: s.focusBlockId(), warpKey: s.focusKey, lane: s.focusLane };
    return s.memoryHistory(target, 'write').slice(-limit).map((e) => {
      const g = s.trace.log.loc(e.step);
      return {
        position: s.at(e.step), thread: this.threadRef(ctaOfKey(e.warpKey), tidOfKey(e.warpKey, e.lane)), file: s.code.fileName(g), line: s.code.line[g]!,
        before: e.before ? fmt(e.before) : undefined, after: e.after ? fmt(e.after) : undefined, atomic: e.acc === Access.Atomic,
      };
    });
  }

  /** Where the current value came from: the last write before the current position, if any. */
  /** The last write of `expr` before the position (from its history), or undefined. */
  lastWrite(expr: string): Write | undefined {
    const p = this.position();
    return this.history(expr).filter((w) => comparePositions(w.position, p) < 0).pop();
  }

  /**
   * Where a value came from (dataflow): `expr` is a register (`$r3`), a variable (in a register
   * or in memory), an lvalue, or `^N`: input N of the previous answer. Moves to the writing step
   * with the writing thread in focus.
   */
  origin(expr: string, history?: ValueHistory): OriginAnswer {
    const s = this.session;
    const e = expr.trim();
    if (!e) throw new EngineError('origin needs an expression: a register $r3, a variable, an lvalue, or ^N for input N of the last answer', 'bad-expression');
    let source: OriginSource;
    const follow = /^\^(\d+)$/.exec(e);
    if (follow) {
      const hop = s.lastOrigin;
      const input = hop?.inputs[Number(follow[1]) - 1];
      if (!hop || !input) throw new EngineError(hop ? `The last origin has ${hop.inputs.length} input(s).` : 'No origin yet: ask `origin EXPR` first.', 'bad-request');
      if (!input.follow) throw new EngineError(`${input.text} is ${/^%(tid|ntid|ctaid|nctaid|laneid|warpid|clock|globaltimer)/.test(input.text) ? 'a special register' : 'a constant'}: it has no earlier writer.`, 'bad-request');
      source = input.follow;
    } else if (/^[$%][a-z]+\d*$/i.test(e) && s.threadView().registerType(e.replace(/^\$/, '%')) !== undefined) {
      source = { kind: 'register', name: e.replace(/^\$/, '%') };
    } else if (RAW_RANGE.test(e)) {
      // a raw range, as `watch @global ADDR LEN` takes (origin across launches asks this way: src/engine/program/memory.ts)
      const m = RAW_RANGE.exec(e)!;
      source = { kind: 'memory', target: s.memoryTarget(m[1]!.toLowerCase() as DataSpace, Number(BigInt(m[2]!) & 0xffffffffn), m[3] ? Number(m[3]) : 4) };
    } else {
      let v;
      try {
        v = evaluateExpression(s.debugInfo(), s.threadView(), e, history);
      } catch (err) {
        if (err instanceof PrintError) throw new EngineError(err.message, 'bad-expression');
        throw err;
      }
      if (v.register !== undefined) source = { kind: 'register', name: v.register };
      else if (v.address !== undefined && (v.space === 'global' || v.space === 'shared' || v.space === 'local')) {
        source = { kind: 'memory', target: s.memoryTarget(v.space, Number(v.address & 0xffffffffn), Math.max(1, v.size)) };
      } else throw new EngineError(`${e} is a computed value: ask for a register, a variable or an lvalue in memory.`, 'bad-expression');
    }
    const what = source.kind === 'register' ? source.name : `${s.memoryName(source.target)}, ${source.target.size} bytes,`;
    const across = this.program && source.kind === 'memory' && source.target.space === 'global' ? this.originAcross(source.target, what) : undefined;
    if (across) return across;
    const { stop, hop } = s.origin(source);
    return { stop: this.stopped(stop), hop, what };
  }

  /**
   * The warp view of a value: `expr` for each lane of the focused warp (or thread of the block),
   * with the lane's state; `value` is the printed value, or why there is none.
   */
  lanes(expr: string, scope: 'warp' | 'block' = 'warp', radix?: string): LaneValue[] {
    const s = this.session;
    return s.laneViews(scope).map((r) => {
      let value: string;
      if (!r.view) value = `<${r.state}>`;
      else {
        try {
          value = printExpression(s.debugInfo(), r.view, `${radix ? `/${radix} ` : ''}${expr}`).replace(/^\$\d+ = /, '');
        } catch (err) {
          if (!(err instanceof PrintError)) throw err;
          value = `<${err.message}>`; // e.g. not in scope where this thread is
        }
      }
      return { thread: r.thread, warp: r.warp, lane: r.lane, state: r.state, value };
    });
  }

  // ---- code ------------------------------------------------------------------------------------

  /** 1-based line in the PTX file of instruction pc of a function (0 when there is none). */
  ptxLine(fn: string, pc: number): number {
    const ins = this.session.program.functions.get(fn)?.instrs[pc];
    if (!ins) return 0;
    this.ptxLines ??= new LineMap(this.session.ptxText);
    return this.ptxLines.position(ins.src.span.start).line;
  }

  instruction(address: number): Instruction | undefined {
    const code = this.session.code;
    if (!Number.isInteger(address) || address < 0 || address >= code.pc.length) return undefined;
    const fn = code.fnName(address);
    const pc = code.pc[address]!;
    const ins = this.session.program.functions.get(fn)?.instrs[pc];
    if (!ins) return undefined;
    return { address, function: fn, pc, text: instructionText(this.session.ptxText, ins.src.span), ptxLine: this.ptxLine(fn, pc), file: code.fileName(address), line: code.line[address]! };
  }

  /** Global address of instruction pc of a function. */
  address(fn: string, pc: number): number {
    return this.session.code.global(fn, pc);
  }

  instructionCount(): number {
    return this.session.code.pc.length;
  }

  /**
   * Positions at which the focused thread starts source line `line` of `file` (or, for the PTX
   * file, issues the instruction on that PTX line), oldest first: goto targets.
   */
  linePositions(file: string, line: number, limit = 20): Position[] {
    const s = this.session;
    const code = s.code;
    const isPtx = file.endsWith('.ptx');
    const key = file.replace(/^.*[\\/]/, '');
    const at = (g: number): boolean => {
      if (isPtx) return this.ptxLine(code.fnName(g), code.pc[g]!) === line;
      const f = code.fileName(g);
      return code.line[g] === line && code.lineStart[g] === 1 && f !== undefined && f.replace(/^.*[\\/]/, '') === key;
    };
    const out: Position[] = [];
    const tl = s.timelineOfFocus();
    for (let i = 0; i < tl.length && out.length < limit; i++) if (at(tl.locs[i]!)) out.push(s.at(tl.steps[i]!));
    return out;
  }
  /**
   * A function as C++ debuggers name it in a call stack: `axpy(float, float, float)`, its
   * parameter types as the launch's DWARF spells them (what a demangler gives for a mangled
   * name); without debug information for it, the demangler's (`axpy(float, float, float)`).
   */
  functionDisplayName(fn: string): string {
    const fs = this.session.debugInfo().scopes.functions();
    const f = fs.find((x) => x.linkageName === fn) ?? fs.find((x) => x.name === fn);
    if (!f?.name) return signatureName(fn);
    return `${f.name}(${f.variables.filter((v) => v.kind === 'parameter').map((v) => v.typeName).join(', ')})`;
  }
}
