/**
 * Variables in the debugger: `print EXPR`, `info locals/args/variables`, the TUI's variables
 * tree, and the lvalue behind `watch EXPR`. Everything reads a ThreadView (the focused thread
 * at the current position, in its selected frame) and the program's DWARF (DebugInfo).
 *
 *   const info = DebugInfo.fromProgram(program);          // once per program
 *   const history = new ValueHistory();                   // once per session
 *   printExpression(info, view, 'p.pos.x * 2', history);  // "$1 = 5"
 *
 * Public functions throw only PrintError (gdb's message: `No symbol "x" in current context.`).
 */
import { resolveType, sizeOf, type DwarfType } from '../../../dwarf/src/index.js';
import type { ThreadView } from '../types.js';
import { displayType } from './ctypes.js';
import { DebugInfo } from './debuginfo.js';
import { PrintError } from './errors.js';
import { evaluateSource, typeFromSource } from './evaluate.js';
import { formatTop, type FormatEnv, type FormatOptions, type Radix } from './format.js';
import { ValueHistory } from './history.js';
import { infoArgs as infoArgsImpl, infoLocals as infoLocalsImpl, infoVariables as infoVariablesImpl, variableTree as variableTreeImpl, type VarNode } from './info.js';
import { canonicalPlace, makeSymbolizer } from './places.js';
import { bytesValue, contents, type Value } from './value.js';

export { DebugInfo, PrintError, ValueHistory, type VarNode };
export { formatFloat, formatG } from './format.js';
export { displayType } from './ctypes.js';

const FORMATS: ReadonlyMap<string, Radix | undefined> = new Map([
  ['x', 'x'], ['d', 'd'], ['u', 'u'], ['o', 'o'], ['t', 't'], ['c', 'c'], ['z', 'z'], ['a', 'x'], ['f', undefined], ['s', undefined],
]);

/** `/x expr` → radix and expression (gdb's `print/x expr` with the command name stripped). */
function splitFormat(src: string): { radix: Radix | undefined; expr: string } {
  const m = /^\s*\/(\w+)\s*/.exec(src);
  if (!m) return { radix: undefined, expr: src };
  const letters = m[1]!.replace(/^\d+/, '');
  const f = letters.slice(-1);
  if (!FORMATS.has(f)) throw new PrintError(`Undefined output format "${m[1]}".`);
  return { radix: FORMATS.get(f), expr: src.slice(m[0].length) };
}

/** Run `f`, turning anything unexpected into a PrintError (the debugger must not crash on print). */
function guarded<R>(f: () => R): R {
  try {
    return f();
  } catch (e) {
    if (e instanceof PrintError) throw e;
    throw new PrintError(`internal error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function formatEnv(info: DebugInfo, view: ThreadView): FormatEnv {
  return { view, symbolize: makeSymbolizer(info, view) };
}

function evaluateChecked(info: DebugInfo, view: ThreadView, expr: string, history: ValueHistory | undefined): Value {
  const v = evaluateSource({ info, view, history }, expr);
  if (v.type.kind === 'unknown' && v.type.die === undefined && v.type.name === '<data variable, no debug info>') {
    throw new PrintError(`'${expr.trim()}' has unknown type; cast it to its declared type`);
  }
  return v;
}

/** gdb's `print`: "$N = value" (N from `history`, or 1 without one). */
export function printExpression(info: DebugInfo, view: ThreadView, expr: string, history?: ValueHistory, limits: Omit<FormatOptions, 'radix'> = {}): string {
  return guarded(() => {
    const { radix, expr: src } = splitFormat(expr);
    const v = evaluateChecked(info, view, src, history);
    const text = formatTop(formatEnv(info, view), v, { radix, ...limits });
    const n = history ? history.record(view, v) : 1;
    return `$${n} = ${text}`;
  });
}

export interface EvaluatedExpression {
  /** Type as printed (`int`, `@shared int *`, `struct Particle`). */
  type: string;
  /** Contents when readable. */
  bytes?: Uint8Array;
  /** The value as `print` shows it (or `<error: ...>`). */
  text: string;
  /** For an lvalue in memory: canonical state space (a generic address resolved) and address. */
  space?: string;
  address?: bigint;
  /** For a value that lives in a register (most scalars of a -G build): the PTX register. */
  register?: string;
  size: number;
}

/** Evaluate for `watch` and front ends: the value plus, for lvalues, where it is. */
export function evaluateExpression(info: DebugInfo, view: ThreadView, expr: string, history?: ValueHistory): EvaluatedExpression {
  return guarded(() => {
    const v = evaluateChecked(info, view, expr, history);
    const size = sizeOf(v.type) ?? 0;
    let text: string;
    try {
      text = formatTop(formatEnv(info, view), v);
    } catch (e) {
      if (!(e instanceof PrintError)) throw e;
      text = `<error: ${e.message}>`;
    }
    const out: EvaluatedExpression = { type: displayType(v.type), text, size };
    try {
      if (v.unavailable === undefined && size > 0) out.bytes = contents(view, v).slice();
    } catch (e) {
      if (!(e instanceof PrintError)) throw e;
    }
    if (v.place.kind === 'register') out.register = v.place.name;
    if (v.place.kind === 'memory' && !v.bits) {
      const c = canonicalPlace(v.place.space, v.place.address);
      out.space = c.space;
      out.address = c.address;
    }
    return out;
  });
}

export function infoLocals(info: DebugInfo, view: ThreadView, options: Omit<FormatOptions, 'radix'> = {}): string {
  return guarded(() => infoLocalsImpl(info, view, options));
}

export function infoArgs(info: DebugInfo, view: ThreadView, options: Omit<FormatOptions, 'radix'> = {}): string {
  return guarded(() => infoArgsImpl(info, view, options));
}

export function infoVariables(info: DebugInfo, view: ThreadView, options: Omit<FormatOptions, 'radix'> = {}): string {
  return guarded(() => infoVariablesImpl(info, view, options));
}

export function variableTree(info: DebugInfo, view: ThreadView, maxChildren?: number, options: Omit<FormatOptions, 'radix'> = {}): { locals: VarNode[]; args: VarNode[]; globals: VarNode[] } {
  return guarded(() => variableTreeImpl(info, view, maxChildren, options));
}

/**
 * gdb's "Value returned is $N = ..." after `finish`: `bytes` (the callee's return slot just before
 * its `ret`) shown in the DWARF return type of `fn`; undefined for a void function or without
 * debug information.
 */
export function printReturnValue(info: DebugInfo, view: ThreadView, fn: string, bytes: Uint8Array, history?: ValueHistory): string | undefined {
  try {
    const f = info.scopes.functions().find((x) => x.linkageName === fn || x.name === fn);
    if (!f) return undefined;
    const type = info.scopes.types.typeOfAttr(f.die);
    const size = sizeOf(type);
    if (type.kind === 'void' || !size || size > bytes.length) return undefined;
    const v = bytesValue(type, bytes.slice(0, size));
    const text = formatTop(formatEnv(info, view), v);
    const n = history ? history.record(view, v) : 1;
    return `$${n} = ${text}`;
  } catch (e) {
    if (e instanceof PrintError) return undefined;
    throw e;
  }
}

/**
 * gdb's `whatis EXPR` (the type as named) and `ptype EXPR` (typedefs resolved and one level of
 * struct/union/enum spelled out).
 */
export function describeType(info: DebugInfo, view: ThreadView, expr: string, expand: boolean, history?: ValueHistory): string {
  return guarded(() => {
    // gdb's whatis/ptype take a type name as well as an expression
    const type = typeFromSource({ info, view, history }, expr) ?? evaluateChecked(info, view, expr, history).type;
    if (!expand) return `type = ${displayType(type)}`;
    return `type = ${spellType(type)}`;
  });
}

function spellType(t: DwarfType): string {
  const r = resolveType(t);
  // pointers to an aggregate keep the aggregate spelled out, as gdb's ptype does
  let stars = '';
  let base: DwarfType = r;
  while (base.kind === 'pointer') { stars += ' *'; base = resolveType(base.target); }
  if (base.kind === 'struct' || base.kind === 'class' || base.kind === 'union') {
    const body = base.members.map((m) => {
      // C declarators put array bounds after the name: `short hist[4];`
      const t = displayType(m.type);
      const arr = /^(.*?) ?((?:\[\d*\])+)$/.exec(t);
      const decl = arr ? `${arr[1]} ${m.name ?? ''}${arr[2]}` : m.name === undefined ? t : `${t} ${m.name}`;
      return `    ${decl}${m.bitSize !== undefined ? ` : ${m.bitSize}` : ''};`;
    }).join('\n');
    return `${base.kind} ${base.name ?? ''} {\n${body}\n}${stars}`.replace(/ +\{/, ' {');
  }
  if (base.kind === 'enum') {
    return `enum ${base.name ?? ''} {${base.enumerators.map((e) => e.name).join(', ')}}${stars}`;
  }
  return displayType(r);
}

/**
 * A function's declaration as gdb's `info functions` prints it, from its DWARF: return type,
 * `name` (the caller's print name, `scale<float, 4>`) and the parameter types in gdb's spelling
 * (`void saxpy(int, float, const float *, float *)`); undefined without a DWARF subprogram.
 */
export function functionSignature(info: DebugInfo, linkageName: string, name: string): string | undefined {
  try {
    const f = info.scopes.functions().find((x) => x.linkageName === linkageName);
    if (!f) return undefined;
    const ret = displayType(info.scopes.types.typeOfAttr(f.die));
    const params = f.variables.filter((v) => v.kind === 'parameter').map((v) => v.typeName);
    return `${ret} ${name}(${params.join(', ')})`;
  } catch (e) {
    if (e instanceof PrintError) return undefined;
    throw e;
  }
}
