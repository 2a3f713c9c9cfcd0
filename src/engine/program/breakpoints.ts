/**
 * Breakpoints of a whole program (program/timeline.ts holds them): gdb's replies when one is set
 * in the launch in focus, in launches not yet visited, or in none yet (pending, as gdb's
 * breakpoints in a shared library not yet loaded).
 */
import { BreakpointError, type HitCondition, parseCondition } from '../breakpoints.js';
import { checkConditionSyntax } from '../conditions.js';
import { parseExpression } from '../print/parser.js';
import { EngineError } from '../errors.js';
import type { Session } from '../session.js';
import type { BreakpointInfo } from '../types.js';
import type { ProgramTimeline } from './timeline.js';

/** A location with nothing odd in it: a function name or FILE:LINE, possibly with a condition. */
const PLAIN = /^([A-Za-z_$][\w$:<>]*|[^\s:]+:\d+)(\s+(if|thread|block)\b.*)?$/s;

/**
 * gdb refuses a condition that does not parse when the breakpoint is set, pending or not (a
 * pending one would otherwise fail only when its launch is reached). Parsed as the launch in
 * focus reads expressions; where that fails, once more with every name a possible type (the
 * breakpoint's module, not loaded yet, may name types this one does not have: `(Foo)x`).
 */
function checkCondition(s: Session, location: string): void {
  const ifAt = location.search(/\s+if(\s+|$)/);
  if (ifAt < 0) return;
  const text = location.slice(ifAt).replace(/^\s+if\s*/, '');
  if (!text.trim()) throw new EngineError('"if" needs a condition, e.g. if threadIdx.x == 3', 'bad-breakpoint');
  let expr: string | undefined;
  try {
    expr = parseCondition(text).expr;
  } catch (e) {
    if (e instanceof EngineError || e instanceof BreakpointError) throw new EngineError(e.message, 'bad-breakpoint');
    throw e;
  }
  if (expr === undefined) return;
  // `$_launch` is the launch's number where the breakpoint is set (timeline.ts)
  const plain = expr.replace(/\$_launch\b/g, '1');
  try {
    checkConditionSyntax(s.debugInfo(), plain);
  } catch (e) {
    if (!(e instanceof EngineError)) throw e;
    try { parseExpression(plain, () => true); } catch { throw new EngineError(e.message, 'bad-breakpoint'); }
  }
}

/** `break LOCATION` in a program: the current launch's breakpoint, or a pending one (`pending` set). */
export function programBreak(p: ProgramTimeline, s: Session, location: string, temporary: boolean, hitCondition?: HitCondition): BreakpointInfo {
  checkCondition(s, location);
  const r = p.addBreakpoint(location, temporary, hitCondition);
  if (!r.here) {
    const bp = s.breakpoints().find((b) => b.id === r.bp.id);
    if (bp) return bp;
  }
  if (!r.anywhere && !PLAIN.test(location.trim())) {
    // a malformed location, not an absent one: the launch's own error
    p.deleteBreakpoint(r.bp.id);
    throw r.here ?? new EngineError(`cannot set a breakpoint at ${location}`, 'bad-breakpoint');
  }
  const spec = location.trim().replace(/\s+(if|thread|block)\b.*$/s, '');
  return {
    id: r.bp.id, spec: location.trim(), enabled: true, condition: undefined, locations: [], hits: 0, pending: true,
    ...(r.anywhere ? {} : { note: `${/:\d+$/.test(spec) ? `No source file or line ${spec}` : `Function "${spec}" not defined`} in any module of the program.` }),
  };
}

/** `delete [N]` in a program: gone from every launch. */
export function programDelete(p: ProgramTimeline, s: Session, id: number | undefined): string {
  if (id === undefined) {
    const n = p.bps.length;
    const text = s.deleteBreakpoint(undefined);
    p.deleteBreakpoint(undefined);
    // the program's breakpoints, not just those of the launch in focus
    return text.replace(/^Deleted \d+ breakpoints?/, `Deleted ${n} breakpoint${n === 1 ? '' : 's'}`);
  }
  const known = p.bps.some((b) => b.id === id);
  let text: string | undefined;
  try {
    text = s.deleteBreakpoint(id);
  } catch (e) {
    if (!(e instanceof EngineError) || !known) throw e;
  }
  p.deleteBreakpoint(id);
  return text ?? `Deleted breakpoint ${id}.`;
}
