/**
 * Breakpoint conditions as gdb treats them: one that does not parse is refused when it is set
 * (`break 70 if i ==` creates nothing, `condition 1 i ==` changes nothing), with the parser's
 * message (`A syntax error in expression, near `'.`); one that parses but cannot be evaluated at a
 * hit (a name out of scope there) stops the program and says so, as gdb's
 * `Error in testing condition for breakpoint N:` does (see Session.conditionAt and cont).
 */
import { BASE_TYPES } from './print/ctypes.js';
import type { DebugInfo } from './print/debuginfo.js';
import { parseExpression } from './print/parser.js';

/** Throws the parser's PrintError when `expr` is not an expression of the language `print` reads. */
export function checkConditionSyntax(info: DebugInfo, expr: string): void {
  parseExpression(expr, (name) => info.namedType(name) !== undefined || BASE_TYPES.has(name) || name === 'uint3' || name === 'dim3');
}

/** gdb's first line of a stop whose condition could not be evaluated (the message follows on the next line). */
export function conditionErrorText(id: number, message: string): string {
  return `Error in testing condition for breakpoint ${id}:\n${message}`;
}
