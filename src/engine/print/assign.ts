/**
 * Assignments in the expression language (`print x = 5`, `set var p.pos.x = 1.5`, `set $r5 = 3`,
 * `set {int} 0x7f0000000010 = 4`, `x += 2`): which storage an assignment writes and the bytes it
 * writes there, with C's conversions to the left operand's type (as gdb's value_assign does).
 * Nothing is written here: the engine applies the planned write to a what-if re-execution of the
 * recording (src/engine/whatif), never to the recording itself.
 *
 * Errors are gdb's where gdb has one: `Left operand of assignment is not an lvalue.`,
 * `Cannot access memory at address 0x...`, `value has been optimized out`.
 */
import { sizeOf } from '../../../dwarf/src/index.js';
import { typeSize } from '../../ptx/types.js';
import type { SpaceName, ThreadView } from '../types.js';
import { category, isSigned } from './ctypes.js';
import type { DebugInfo } from './debuginfo.js';
import { PrintError } from './errors.js';
import { Evaluator } from './evaluate.js';
import type { ValueHistory } from './history.js';
import { tokenize } from './lexer.js';
import { parseExpression } from './parser.js';
import { canonicalPlace } from './places.js';
import { bigintBytes, bytesBigint, bytesValue, contents, hex, unavailableMessage, type Value } from './value.js';

/** The spaces an assignment writes: a thread's data and `.param` space. */
type AssignableSpace = Extract<SpaceName, 'global' | 'shared' | 'local' | 'param'>;

/** The storage an assignment writes. */
export type AssignTarget =
  /** A PTX register of the view's selected frame (a -G local that lives in a register, or `$r5`). */
  | { readonly kind: 'register'; readonly name: string; readonly ptxType: string }
  /** Memory of a writable state space at a canonical address (a generic address resolved). */
  | { readonly kind: 'memory'; readonly space: AssignableSpace; readonly address: bigint; readonly size: number }
  /** A gdb convenience variable (`$i = 3`): debugger state, not program state. */
  | { readonly kind: 'convenience'; readonly name: string };

export interface PlannedAssignment {
  readonly target: AssignTarget;
  /** The new contents of the target: the register's bits (little-endian, its width), or the memory bytes. */
  readonly bytes: Uint8Array;
  /** The target's contents before, when readable. */
  readonly before: Uint8Array | undefined;
  /** The left operand's new value (what `print x = v` shows). */
  readonly value: Value;
  /** The left operand as written (`{T} A` spelled `*(T *)(A)`), to read it back after the write. */
  readonly lhs: string;
}

const COMPOUND: ReadonlySet<string> = new Set(['+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>']);

/**
 * Split `LHS = RHS` / `LHS op= RHS` at its top-level assignment operator; undefined when the
 * expression assigns nothing (`a == b`, `a <= b` are comparisons). Throws PrintError on text the
 * lexer refuses only when an `=` is present.
 */
export function splitAssignment(src: string): { lhs: string; rhs: string; op: string | undefined } | undefined {
  const text = rewriteBraces(src);
  if (!text.includes('=')) return undefined;
  let toks;
  try {
    toks = tokenize(text);
  } catch {
    return undefined; // not an expression this module can split: the evaluator reports it
  }
  let depth = 0;
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (t.kind !== 'op') continue;
    if (t.text === '(' || t.text === '[') depth++;
    else if (t.text === ')' || t.text === ']') depth--;
    else if (t.text === '=' && depth === 0) {
      const prev = toks[i - 1];
      const compound = prev && prev.kind === 'op' && prev.end === t.pos && COMPOUND.has(prev.text) ? prev : undefined;
      const lhs = text.slice(0, compound ? compound.pos : t.pos).trim();
      return { lhs, rhs: text.slice(t.end).trim(), op: compound?.text };
    }
  }
  return undefined;
}

/** Whether `src` is an assignment (`x = 1`, `x += 1`), not a comparison. */
export function isAssignment(src: string): boolean {
  return splitAssignment(src) !== undefined;
}

/** gdb's `{TYPE} ADDR` as the left operand: the object of TYPE at ADDR, i.e. `*(TYPE *)(ADDR)`. */
function rewriteBraces(src: string): string {
  const m = /^\s*\{([^{}]+)\}\s*(.+)$/s.exec(src);
  if (!m) return src;
  const eq = splitTop(m[2]!);
  return `*(${m[1]!.trim()} *)(${eq.addr})${eq.rest}`;
}

/** `ADDR = RHS` → the address part and the rest (from the assignment operator on). */
function splitTop(s: string): { addr: string; rest: string } {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === '=' && depth === 0 && s[i + 1] !== '=' && !'=!<>'.includes(s[i - 1] ?? '')) {
      let j = i;
      while (j > 0 && '+-*/%&|^<>'.includes(s[j - 1]!)) j--;
      return { addr: s.slice(0, j).trim(), rest: ` ${s.slice(j)}` };
    }
  }
  return { addr: s.trim(), rest: '' };
}

/**
 * Plan the assignment `src` for the view's thread and frame: the target, the bytes to write
 * (the right operand converted to the left operand's type), and the left operand's new value.
 */
export function planAssignment(info: DebugInfo, view: ThreadView, src: string, history?: ValueHistory): PlannedAssignment {
  const parts = splitAssignment(src);
  if (!parts) throw new PrintError('Not an assignment: expected LHS = VALUE.');
  const { lhs, op } = parts;
  if (!lhs) throw new PrintError('A syntax error in expression, near `=\'.');
  if (!parts.rhs) throw new PrintError('A syntax error in expression, near `\'.');
  const ev = new Evaluator({ info, view, history });
  const evaluate = (text: string): Value => ev.eval(parseExpression(text, (n) => ev.isTypeName(n)));
  // a convenience variable is whatever its value is (gdb: `set $i = 3`); a register name is a register
  const conv = /^\$([A-Za-z_]\w*)$/.exec(lhs);
  if (conv && view.registerType(`%${conv[1]}`) === undefined && !isSpecialName(view, conv[1]!)) {
    const value = evaluate(op ? `$${conv[1]} ${op} (${parts.rhs})` : parts.rhs);
    return { target: { kind: 'convenience', name: conv[1]! }, bytes: new Uint8Array(0), before: undefined, value, lhs };
  }
  if (/^\$\$?\d*$/.test(lhs)) throw new PrintError('Left operand of assignment is not a modifiable lvalue.'); // value history
  const left = evaluate(lhs);
  const right = evaluate(op ? `(${lhs}) ${op} (${parts.rhs})` : parts.rhs);
  if (left.unavailable !== undefined) throw new PrintError(unavailableMessage(left));
  const size = sizeOf(left.type);
  if (size === undefined || size === 0 || category(left.type) === 'void') throw new PrintError('Left operand of assignment is not a modifiable lvalue.');
  const converted = ev.cast(right, left.type);
  const newBytes = contents(view, converted, 0, size).slice();
  const value = bytesValue(left.type, newBytes, left.place);

  if (left.place.kind === 'register') {
    const ptxType = view.registerType(left.place.name);
    if (ptxType === undefined) throw new PrintError(`Register ${left.place.name.replace(/^%/, '$')} is not available in this frame.`);
    if (left.bits) throw new PrintError('Left operand of assignment is not a modifiable lvalue.');
    const width = typeSize(ptxType);
    if (size > Math.max(width, 1)) throw new PrintError(`Cannot write ${size} bytes into register ${left.place.name.replace(/^%/, '$')} (${ptxType}).`);
    let bits = bytesBigint(newBytes, isSigned(left.type));
    if (ptxType === 'pred') bits = bits !== 0n ? 1n : 0n;
    const old = view.readRegister(left.place.name);
    return {
      target: { kind: 'register', name: left.place.name, ptxType }, bytes: bigintBytes(bits, Math.max(1, width)),
      before: old === undefined ? undefined : bigintBytes(old, Math.max(1, width)), value, lhs,
    };
  }
  if (left.place.kind !== 'memory') throw new PrintError('Left operand of assignment is not an lvalue.');
  const place = canonicalPlace(left.place.space, left.place.address);
  const where = `${hex(left.place.address)}${left.place.space === 'generic' || left.place.space === 'global' ? '' : ` (@${left.place.space})`}`;
  if (place.space === 'const') throw new PrintError(`Cannot write to address ${where}: __constant__ memory is read-only on the device.`);
  if (place.space === 'generic') throw new PrintError(`Cannot access memory at address ${where}`);
  const space = place.space as AssignableSpace;
  if (left.bits) {
    // a bit field: read the storage unit, replace the field's bits, write the unit back
    const unit = Math.max(size, Math.ceil((left.bits.offset + left.bits.size) / 8));
    const old = view.readMemory(space, place.address, unit);
    if (!old) throw new PrintError(`Cannot access memory at address ${where}`);
    const mask = ((1n << BigInt(left.bits.size)) - 1n) << BigInt(left.bits.offset);
    const field = (bytesBigint(newBytes, false) << BigInt(left.bits.offset)) & mask;
    const bytes = bigintBytes((bytesBigint(old, false) & ~mask) | field, unit);
    return { target: { kind: 'memory', space, address: place.address, size: unit }, bytes, before: old.slice(), value: bytesValue(left.type, newBytes), lhs };
  }
  const before = view.readMemory(space as SpaceName, place.address, size);
  if (!before) throw new PrintError(`Cannot access memory at address ${where}`);
  return { target: { kind: 'memory', space, address: place.address, size }, bytes: newBytes, before: before.slice(), value, lhs };
}

/** `$tid`, `$pc`... are read-only names, not convenience variables. */
function isSpecialName(view: ThreadView, name: string): boolean {
  if (name === 'pc' || name === 'sp') return true;
  const base = name.replace(/\.[xyzw]$/, '');
  return ['tid', 'ntid', 'ctaid', 'nctaid'].includes(base) || view.readSpecial(base, 0) !== undefined;
}
