/**
 * `info locals`, `info args`, `info variables` and the TUI's variables tree. Variables are
 * grouped by where they live (`@register`, `@local`, `@param`, `@shared`, `@global`, `@const`),
 * each group in gdb's order (innermost scope first) and gdb's `name = value` lines. A variable
 * whose location does not cover the pc shows `<optimized out>`; one whose location cannot be
 * used (damaged DWARF) shows `<error: ...>`; DWARF warnings are mentioned once at the end.
 */
import type { VariableInfo } from '../../../dwarf/src/index.js';
import { resolveType, sizeOf } from '../../../dwarf/src/index.js';
import type { ThreadView } from '../types.js';
import { arrayParts, category, displayType, pointeeSpace, shownMembers, spaceOfClass } from './ctypes.js';
import type { DebugInfo } from './debuginfo.js';
import { PrintError } from './errors.js';
import { arrayElements, formatValue, type FormatEnv, type FormatOptions } from './format.js';
import { staticValue, visibleValue } from './locate.js';
import { canonicalPlace, makeSymbolizer } from './places.js';
import { memoryValue, readInteger, subValue, type Value } from './value.js';

export interface VarNode {
  name: string;
  type: string;
  /** Where the value lives: register, local, param, shared, global, const, generic. */
  space: string;
  value: string;
  children?: VarNode[];
}

const GROUP_ORDER = ['register', 'local', 'param', 'shared', 'global', 'const', 'generic'];

interface Entry {
  readonly name: string;
  readonly value: Value;
  readonly group: string;
}

function env(info: DebugInfo, view: ThreadView, options: FormatOptions = {}): FormatEnv {
  return { view, symbolize: makeSymbolizer(info, view), options };
}

/** The group of a variable: where its value actually is, else its declared address class. */
function groupOf(v: Value, declared: string | undefined): string {
  if (v.place.kind === 'register') return 'register';
  if (v.place.kind === 'memory') return canonicalPlace(v.place.space, v.place.address).space;
  if (declared === undefined || declared === 'reg') return 'register';
  return spaceOfClass(declared) ?? declared;
}

function globalKeys(info: DebugInfo): Set<number> {
  return new Set(info.globals().map((g) => g.die.sectionOffset));
}

function localEntries(info: DebugInfo, view: ThreadView, kind: 'parameter' | 'variable'): Entry[] {
  const cu = globalKeys(info);
  const out: Entry[] = [];
  for (const v of info.visible(view.function, view.pc)) {
    if (cu.has(v.die.sectionOffset)) continue;
    // info args: the function's own parameters; parameters of inlined scopes count as locals.
    const isArg = v.kind === 'parameter' && v.scope.kind === 'subprogram';
    if ((kind === 'parameter') !== isArg) continue;
    const value = visibleValue(info, view, v);
    out.push({ name: v.name, value, group: groupOf(value, v.space) });
  }
  return out;
}

function staticEntries(info: DebugInfo, view: ThreadView): Entry[] {
  const out: Entry[] = [];
  const add = (name: string, v: VariableInfo): void => {
    const value = staticValue(info, view, v);
    out.push({ name, value, group: groupOf(value, v.space) });
  };
  for (const g of info.globals()) add(g.name, g);
  for (const s of info.statics()) add(`${s.function}::${s.variable.name}`, s.variable);
  return out;
}

function render(info: DebugInfo, view: ThreadView, entries: readonly Entry[], empty: string, options: FormatOptions = {}): string {
  if (entries.length === 0) return withWarnings(info, empty);
  const e = env(info, view, options);
  const groups = [...new Set(entries.map((x) => x.group))].sort((a, b) => rank(a) - rank(b));
  const lines: string[] = [];
  for (const g of groups) {
    lines.push(`@${g}:`);
    for (const x of entries) if (x.group === g) lines.push(`${x.name} = ${safeFormat(e, x.value)}`);
  }
  return withWarnings(info, lines.join('\n'));
}

function rank(group: string): number {
  const i = GROUP_ORDER.indexOf(group);
  return i < 0 ? GROUP_ORDER.length : i;
}

function safeFormat(e: FormatEnv, v: Value): string {
  try {
    return formatValue(e, v);
  } catch (err) {
    return `<error: ${err instanceof Error ? err.message : String(err)}>`;
  }
}

function withWarnings(info: DebugInfo, text: string): string {
  const w = info.warnings;
  if (w.length === 0) return text;
  return `${text}\nwarning: ${w.length} problem${w.length === 1 ? '' : 's'} in the DWARF of this module; some variables may be missing or unavailable. First: ${w[0]}`;
}

function noSymbols(info: DebugInfo, view: ThreadView): boolean {
  return !info.hasVariables || info.scopes.instructionAddress(view.function, view.pc) === undefined;
}

export function infoLocals(info: DebugInfo, view: ThreadView, options: FormatOptions = {}): string {
  if (view.frames.length === 0) return 'No frame selected.';
  if (noSymbols(info, view)) return withWarnings(info, 'No symbol table info available.');
  return render(info, view, localEntries(info, view, 'variable'), 'No locals.', options);
}

export function infoArgs(info: DebugInfo, view: ThreadView, options: FormatOptions = {}): string {
  if (view.frames.length === 0) return 'No frame selected.';
  if (noSymbols(info, view)) return withWarnings(info, 'No symbol table info available.');
  return render(info, view, localEntries(info, view, 'parameter'), 'No arguments.', options);
}

/** Module variables (`__device__`, `__constant__`, `__shared__`, kernel-scope statics) with values. */
export function infoVariables(info: DebugInfo, view: ThreadView, options: FormatOptions = {}): string {
  if (!info.hasVariables) {
    // No DWARF (-O3 build): list the PTX variables, which `print (int)name` can still read.
    const vars = [...view.program.globals, ...view.program.shared];
    if (vars.length === 0) return withWarnings(info, 'No variables.');
    const lines = ['All defined variables (no debug info; cast them to read, e.g. print *(int *)&name):'];
    for (const v of vars) {
      const a = view.symbolAddress(v.name);
      lines.push(`${v.name} @${v.space} ${a ? '0x' + a.address.toString(16) : '?'}, ${v.size} bytes`);
    }
    return withWarnings(info, lines.join('\n'));
  }
  return render(info, view, staticEntries(info, view), 'No variables.', options);
}

// ---- the variables pane -------------------------------------------------------------------------

const MAX_DEPTH = 4;

/** Locals, arguments and module variables as trees (structs and arrays expanded, bounded). */
export function variableTree(info: DebugInfo, view: ThreadView, maxChildren = 64, options: FormatOptions = {}): { locals: VarNode[]; args: VarNode[]; globals: VarNode[] } {
  if (!info.hasVariables) return { locals: [], args: [], globals: [] };
  const e = env(info, view, options);
  const build = (xs: readonly Entry[]): VarNode[] => xs.map((x) => node(e, x.name, x.value, x.group, 0, maxChildren));
  const inScope = view.frames.length > 0 && info.scopes.instructionAddress(view.function, view.pc) !== undefined;
  return {
    locals: inScope ? build(localEntries(info, view, 'variable')) : [],
    args: inScope ? build(localEntries(info, view, 'parameter')) : [],
    globals: build(staticEntries(info, view)),
  };
}

function node(e: FormatEnv, name: string, v: Value, space: string, depth: number, max: number): VarNode {
  const n: VarNode = { name, type: displayType(v.type), space, value: safeFormat(e, v) };
  if (v.unavailable !== undefined || depth >= MAX_DEPTH) return n;
  try {
    const kids = children(e, name, v, space, depth, max);
    if (kids.length) n.children = kids;
  } catch (err) {
    if (!(err instanceof PrintError)) throw err;
  }
  return n;
}

function children(e: FormatEnv, name: string, v: Value, space: string, depth: number, max: number): VarNode[] {
  const r = resolveType(v.type);
  const out: VarNode[] = [];
  switch (category(v.type)) {
    case 'aggregate': {
      if (r.kind !== 'struct' && r.kind !== 'class' && r.kind !== 'union') return out;
      for (const m of shownMembers(r.members)) {
        const bits = m.bitSize !== undefined ? { offset: m.bitOffset ?? 0, size: m.bitSize } : undefined;
        const label = m.isBase ? `<${displayType(m.type)}>` : m.name ?? '<anonymous>';
        out.push(node(e, label, subValue(v, m.type, m.offset, bits), space, depth + 1, max));
      }
      return out;
    }
    case 'array': {
      if (r.kind !== 'array') return out;
      const { count } = arrayParts(r);
      if (count === undefined) return out;
      const els = arrayElements(e.view, v, r);
      const shown = Math.min(count, max);
      for (let i = 0; i < shown; i++) out.push(node(e, `[${i}]`, els.at(i), space, depth + 1, max));
      if (count > shown) out.push({ name: '...', type: '', space, value: `${count - shown} more element${count - shown === 1 ? '' : 's'}` });
      return out;
    }
    case 'pointer': {
      if (r.kind !== 'pointer' || depth >= 2) return out;
      const tc = category(r.target);
      if (tc === 'void' || tc === 'function' || sizeOf(r.target) === undefined) return out;
      const addr = readInteger(e.view, v);
      if (addr === 0n) return out;
      const target = memoryValue(r.target, pointeeSpace(r), addr);
      const c = canonicalPlace(pointeeSpace(r), addr);
      out.push(node(e, `*${name}`, target, c.space, depth + 1, max));
      return out;
    }
    default:
      return out;
  }
}

