/**
 * Values as gdb prints them: `{x = 1, y = 2.5}`, `{0 <repeats 11 times>, 5}` (runs longer than
 * `repeats` elements, gdb's `set print repeats 10`), at most `maxElements` elements then `...`
 * (`set print elements 200`), char arrays as strings with the trailing NUL dropped, chars as
 * `65 'A'`, bools as true/false, enums by name, floats with `%.9g`/`%.17g` (gdb's DECIMAL_DIG
 * choice: float 0.1 → 0.100000001), and pointers as `(type) 0x...` at top level only.
 *
 * Pointers into an explicit state space print as `(@shared int *) 0x40` (cuda-gdb style); the
 * generic pointers nvcc gives every C pointer print as `(int *) 0x7e0000000040`, the window in
 * the high word telling the space; both get gdb's `<symbol+offset>` when they point into a
 * variable.
 */
import { resolveType, sizeOf, type AggregateType, type DwarfType, type EnumType } from '../../../dwarf/src/index.js';
import type { SpaceName, ThreadView } from '../types.js';
import { arrayParts, category, displayType, isSigned, pointeeSpace, shownMembers } from './ctypes.js';
import { PrintError } from './errors.js';
import {
  contents, fetchContents, hex, MAX_VALUE_SIZE, memoryValue, OPTIMIZED_OUT, rawBits, readFloat, readInteger, subValue, type Value,
} from './value.js';

export type Radix = 'x' | 'd' | 'u' | 'o' | 't' | 'c' | 'z';

export interface FormatOptions {
  readonly radix?: Radix | undefined;
  /** gdb `print elements`. */
  readonly maxElements?: number;
  /** gdb `print repeats`: runs longer than this collapse to `<repeats N times>`. */
  readonly repeats?: number;
  /** gdb `print pretty`: struct members one per line, indented two spaces per level. */
  readonly pretty?: boolean;
  /** gdb `print address` (default on); off: pointers show only their `<symbol>`, references only the value. */
  readonly addresses?: boolean;
}

export interface FormatEnv {
  readonly view: ThreadView;
  /** `<name+offset>` for an address inside a known variable. */
  symbolize?(space: SpaceName, address: bigint): string | undefined;
  /** The user's print settings (`set print ...`), under the options of each call. */
  readonly options?: FormatOptions;
}

interface Ctx {
  readonly env: FormatEnv;
  readonly radix: Radix | undefined;
  readonly maxElements: number;
  readonly repeats: number;
  readonly pretty: boolean;
  readonly addresses: boolean;
  depth: number;
}

/** Bytes fetched at once for an array held in memory (repeats are detected within it). */
const ARRAY_PREFIX_BYTES = 1 << 20;

/** A value at the top of `print`: pointers get their type in front, errors are thrown. */
export function formatTop(env: FormatEnv, v: Value, opts: FormatOptions = {}): string {
  const ctx = makeCtx(env, opts);
  if (v.unavailable !== undefined) return v.unavailable === OPTIMIZED_OUT ? '<optimized out>' : `<error: ${v.unavailable}>`;
  const c = category(v.type);
  if (c === 'pointer' && ctx.radix === undefined) {
    const r = resolveType(v.type);
    if (r.kind === 'pointer' && !isCharLike(r.target)) {
      const addr = readInteger(env.view, v);
      // gdb prints "(type) " then the pointer, which is nothing without addresses or a symbol
      return `(${displayType(v.type)}) ${pointerText(ctx, r, addr)}`;
    }
    // gdb's c_value_print prefixes a reference the same way: `(int &) @0x7f0000000108: 42`
    if (r.kind === 'reference' || r.kind === 'rvalueReference') return `(${displayType(v.type)}) ${format(ctx, v)}`;
  }
  if (c === 'function') return `{${displayType(v.type)}} ${v.place.kind === 'memory' ? hex(v.place.address) : '?'}`;
  // Unreadable memory at the top is an error, as gdb reports it ("Cannot access memory at
  // address 0x..."), not a value full of <error: ...> parts.
  if (v.place.kind === 'memory' && !v.bytes && c !== 'void') {
    const n = sizeOf(v.type);
    if (n !== undefined && n > 0) contents(env.view, v, 0, Math.min(n, MAX_VALUE_SIZE));
  }
  return format(ctx, v);
}

/** A value inside a listing (`info locals`, a struct member): no pointer type prefix. */
export function formatValue(env: FormatEnv, v: Value, opts: FormatOptions = {}): string {
  return format(makeCtx(env, opts), v);
}

function makeCtx(env: FormatEnv, given: FormatOptions): Ctx {
  const opts = { ...env.options, ...given };
  return {
    env, radix: opts.radix, maxElements: opts.maxElements ?? 200, repeats: opts.repeats ?? 10,
    pretty: opts.pretty ?? false, addresses: opts.addresses ?? true, depth: 0,
  };
}

function format(ctx: Ctx, v: Value): string {
  if (v.unavailable !== undefined) return v.unavailable === OPTIMIZED_OUT ? '<optimized out>' : `<error: ${v.unavailable}>`;
  if (ctx.depth > 32) return '...';
  try {
    return formatInner(ctx, v);
  } catch (e) {
    if (e instanceof PrintError) return `<error: ${e.message}>`;
    throw e;
  }
}

function formatInner(ctx: Ctx, v: Value): string {
  const view = ctx.env.view;
  const r = resolveType(v.type);
  switch (category(v.type)) {
    case 'aggregate': return aggregate(ctx, fetchContents(view, v), r as AggregateType);
    case 'array': return array(ctx, v, r as DwarfType & { kind: 'array' });
    case 'pointer': {
      const p = r as DwarfType & { kind: 'pointer' | 'reference' | 'rvalueReference' };
      const addr = readInteger(view, v);
      if (ctx.radix) return integer(ctx, addr, 8, false);
      if (p.kind !== 'pointer') {
        const target = memoryValue(p.target, pointeeSpace(p), addr);
        return ctx.addresses ? `@${hex(addr)}: ${format(ctx, target)}` : format(ctx, target);
      }
      if (isCharLike(p.target) && addr !== 0n) return `${ctx.addresses ? hex(addr) + ' ' : ''}${cString(ctx, pointeeSpace(p), addr)}`;
      return pointerText(ctx, p, addr);
    }
    case 'int': {
      const size = sizeOf(v.type) ?? 0;
      return integer(ctx, readInteger(view, v), size, isSigned(v.type));
    }
    case 'char': {
      const n = readInteger(view, v);
      if (ctx.radix && ctx.radix !== 'c') return integer(ctx, n, 1, isSigned(v.type));
      return `${n} ${charLiteral(Number(n) & 0xff)}`;
    }
    case 'bool': {
      const n = readInteger(view, v);
      if (ctx.radix) return integer(ctx, n, sizeOf(v.type) ?? 1, false);
      return n === 0n ? 'false' : n === 1n ? 'true' : n.toString();
    }
    case 'float': {
      const size = sizeOf(v.type) as 4 | 8;
      if (ctx.radix) return integer(ctx, rawBits(view, v), size, false);
      return formatFloat(readFloat(view, v), size, rawBits(view, v));
    }
    case 'enum': {
      const n = readInteger(view, v);
      if (ctx.radix) return integer(ctx, n, sizeOf(v.type) ?? 4, isSigned(v.type));
      return enumText(r as EnumType, n);
    }
    case 'void': return 'void';
    case 'other':
      if (r.kind === 'unknown') throw new PrintError(`the type is unknown (${r.name})`);
      break;
    case 'function': return `{${displayType(v.type)}} ${v.place.kind === 'memory' ? hex(v.place.address) : '?'}`;
  }
  // Types without a C rendering (e.g. 16-byte integers): the bytes, most significant first.
  const b = contents(view, v);
  return '0x' + Array.from(b).reverse().map((x) => x.toString(16).padStart(2, '0')).join('');
}

function pointerText(ctx: Ctx, p: DwarfType & { kind: 'pointer' | 'reference' | 'rvalueReference' }, addr: bigint): string {
  const space = pointeeSpace(p);
  // 0 is null only for generic pointers; a state-space address 0 is the space's first byte.
  const sym = addr !== 0n || space !== 'generic' ? ctx.env.symbolize?.(space, addr) : undefined;
  // gdb's print_address_demangle: without addresses only the symbol (or nothing) is left
  if (!ctx.addresses) return sym ? `<${sym}>` : '';
  return sym ? `${hex(addr)} <${sym}>` : hex(addr);
}

function aggregate(ctx: Ctx, v: Value, t: AggregateType): string {
  if (t.members.length === 0) return '{<No data fields>}';
  const parts: string[] = [];
  ctx.depth++;
  try {
    for (const m of shownMembers(t.members)) {
      const bits = m.bitSize !== undefined ? { offset: m.bitOffset ?? 0, size: m.bitSize } : undefined;
      const mv = subValue(v, m.type, m.offset, bits);
      const text = format(ctx, mv);
      if (m.isBase) parts.push(`<${typeNameOf(m.type)}> = ${text}`);
      else if (m.name === undefined) parts.push(text);
      else parts.push(`${m.name} = ${text}`);
    }
  } finally {
    ctx.depth--;
  }
  if (!ctx.pretty) return `{${parts.join(', ')}}`;
  // gdb's pretty structs: members at 2 + 2 * recurse spaces, the brace at 2 * recurse
  const inner = ' '.repeat(2 + 2 * ctx.depth);
  return `{\n${parts.map((p) => inner + p).join(',\n')}\n${' '.repeat(2 * ctx.depth)}}`;
}

function typeNameOf(t: DwarfType): string {
  const r = resolveType(t);
  return (r.kind === 'struct' || r.kind === 'class' || r.kind === 'union') && r.name ? r.name : displayType(t);
}

/** Elements of an array value: lazily, from one prefetched block when it is in memory. */
export function arrayElements(view: ThreadView, v: Value, t: DwarfType & { kind: 'array' }): { element: DwarfType; count: number; at(i: number): Value } {
  const { element, count } = arrayParts(t);
  const esize = sizeOf(element) ?? 0;
  const n = count ?? 0;
  let base = v;
  let prefix = n;
  if (v.place.kind === 'memory' && !v.bytes && v.unavailable === undefined && esize > 0) {
    prefix = Math.max(1, Math.min(n, Math.floor(ARRAY_PREFIX_BYTES / esize)));
    const b = view.readMemory(v.place.space, v.place.address, prefix * esize);
    if (b) base = { ...v, bytes: b };
    else prefix = 0;
  }
  return {
    element, count: n,
    at(i: number): Value {
      if (i < prefix && base.bytes) return subValue(base, element, i * esize);
      return subValue({ ...v, bytes: undefined }, element, i * esize);
    },
  };
}

function sameBytes(view: ThreadView, a: Value, b: Value): boolean {
  if (a.unavailable !== undefined || b.unavailable !== undefined) return false;
  try {
    const x = contents(view, a);
    const y = contents(view, b);
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  } catch {
    return false;
  }
}

function array(ctx: Ctx, v: Value, t: DwarfType & { kind: 'array' }): string {
  const view = ctx.env.view;
  const { element, count } = arrayParts(t);
  if (count === undefined) {
    return v.place.kind === 'memory' ? `<array of unknown size at ${v.place.space === 'generic' ? '' : `@${v.place.space} `}${hex(v.place.address)}>` : '{}';
  }
  const els = arrayElements(view, v, t);
  if (isCharLike(element) && (ctx.radix === undefined || ctx.radix === 'c')) {
    const chars: (number | undefined)[] = [];
    for (let i = 0; i < count; i++) {
      try {
        chars.push(Number(readInteger(view, els.at(i))) & 0xff);
      } catch {
        chars.push(undefined);
      }
    }
    if (chars.every((c) => c !== undefined)) return stringText(ctx, chars as number[], false);
  }
  const parts: string[] = [];
  let printed = 0;
  let i = 0;
  ctx.depth++;
  try {
    for (; i < count && printed < ctx.maxElements; i++) {
      const e = els.at(i);
      let rep = i + 1;
      while (rep < count && sameBytes(view, e, els.at(rep))) rep++;
      const reps = rep - i;
      const text = format(ctx, e);
      if (reps > ctx.repeats) {
        parts.push(`${text} <repeats ${reps} times>`);
        i = rep - 1;
        printed += ctx.repeats;
      } else {
        parts.push(text);
        printed++;
      }
    }
  } finally {
    ctx.depth--;
  }
  return `{${parts.join(', ')}${i < count ? '...' : ''}}`;
}

/** A char-like element type: char, signed char, unsigned char (1 byte). */
export function isCharLike(t: DwarfType): boolean {
  return category(t) === 'char';
}

// ---- strings and characters ---------------------------------------------------------------------

const NAMED_ESCAPES: ReadonlyMap<number, string> = new Map([
  [7, '\\a'], [8, '\\b'], [9, '\\t'], [10, '\\n'], [11, '\\v'], [12, '\\f'], [13, '\\r'],
]);

function escapeChar(c: number, quote: string): string {
  const named = NAMED_ESCAPES.get(c);
  if (named) return named;
  if (c === 92) return '\\\\';
  if (String.fromCharCode(c) === quote) return '\\' + quote;
  if (c >= 0x20 && c < 0x7f) return String.fromCharCode(c);
  return '\\' + c.toString(8).padStart(3, '0');
}

export function charLiteral(c: number): string {
  return `'${escapeChar(c, "'")}'`;
}

/**
 * gdb's generic_printstr: the last NUL of a full array is dropped; runs longer than the repeat
 * threshold become `'c' <repeats N times>` segments; at most maxElements characters.
 */
function stringText(ctx: Pick<Ctx, 'maxElements' | 'repeats'>, chars: readonly number[], truncated: boolean): string {
  let len = chars.length;
  if (!truncated && len > 0 && chars[len - 1] === 0) len--;
  if (len === 0) return '""';
  const segs: string[] = [];
  let cur = '';
  let printed = 0;
  let i = 0;
  for (; i < len && printed < ctx.maxElements; i++) {
    const c = chars[i]!;
    let rep = i + 1;
    while (rep < len && chars[rep] === c) rep++;
    const reps = rep - i;
    if (reps > ctx.repeats) {
      if (cur) { segs.push(`"${cur}"`); cur = ''; }
      segs.push(`${charLiteral(c)} <repeats ${reps} times>`);
      i = rep - 1;
      printed += ctx.repeats;
    } else {
      cur += escapeChar(c, '"');
      printed++;
    }
  }
  if (cur) segs.push(`"${cur}"`);
  return segs.join(', ') + (i < len || truncated ? '...' : '');
}

/** A whole char array's bytes as `print` shows them (a watchpoint's Old/New values): `"ab\000"`. */
export function charArrayText(chars: readonly number[], opts: FormatOptions = {}): string {
  return stringText({ maxElements: opts.maxElements ?? 200, repeats: opts.repeats ?? 10 }, chars, false);
}

/** The NUL-terminated string a char pointer points at (gdb: `0x... "text"`). */
function cString(ctx: Ctx, space: SpaceName, addr: bigint): string {
  const chars: number[] = [];
  for (let i = 0; i < ctx.maxElements; i++) {
    const b = ctx.env.view.readMemory(space, addr + BigInt(i), 1);
    if (!b) {
      if (i === 0) return `<error: Cannot access memory at address ${hex(addr)}>`;
      break;
    }
    if (b[0] === 0) return stringText(ctx, [...chars, 0], false);
    chars.push(b[0]!);
  }
  return stringText(ctx, chars, chars.length >= ctx.maxElements);
}

// ---- numbers ----------------------------------------------------------------------------------

function integer(ctx: Ctx, n: bigint, size: number, signed: boolean): string {
  const bits = Math.max(1, size) * 8;
  const u = BigInt.asUintN(bits, n);
  switch (ctx.radix) {
    case 'x': return '0x' + u.toString(16);
    case 'z': return '0x' + u.toString(16).padStart(size * 2, '0');
    case 'o': return u === 0n ? '0' : '0' + u.toString(8);
    case 't': return u.toString(2);
    case 'd': return BigInt.asIntN(bits, n).toString();
    case 'u': return u.toString();
    case 'c': return `${BigInt.asIntN(8, n)} ${charLiteral(Number(n & 0xffn))}`;
    default: return (signed ? BigInt.asIntN(bits, n) : u).toString();
  }
}

function enumText(t: EnumType, n: bigint): string {
  const hit = t.enumerators.find((e) => e.value === n || BigInt.asUintN(64, e.value) === BigInt.asUintN(64, n));
  return hit ? hit.name : n.toString();
}

/** C's `%.{prec}g`. */
export function formatG(x: number, prec: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const exp = x.toExponential(prec - 1);
  const e = Number(exp.slice(exp.indexOf('e') + 1));
  if (e < -4 || e >= prec) {
    const [mant, ex] = exp.split('e') as [string, string];
    const m = mant.includes('.') ? mant.replace(/\.?0+$/, '') : mant;
    const en = Number(ex);
    return `${m}e${en < 0 ? '-' : '+'}${String(Math.abs(en)).padStart(2, '0')}`;
  }
  const fixed = x.toFixed(Math.max(0, prec - 1 - e));
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

/** A float as gdb prints it: 9 significant digits for float, 17 for double; inf, nan(0x...). */
export function formatFloat(x: number, size: 4 | 8, bits: bigint): string {
  if (Number.isNaN(x)) {
    const neg = size === 4 ? (bits >> 31n) & 1n : (bits >> 63n) & 1n;
    const mant = size === 4 ? bits & 0x7fffffn : bits & 0xfffffffffffffn;
    return `${neg ? '-' : ''}nan(0x${mant.toString(16)})`;
  }
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  return formatG(x, size === 4 ? 9 : 17);
}

