/**
 * The evaluator: expression trees to Values, with C semantics (integer promotions, usual
 * arithmetic conversions, pointer arithmetic scaled by the pointee size) and gdb's rules and
 * messages where C has none (`*5` reads an int at address 5, `p.x` on a pointer dereferences).
 * Reading never changes the machine.
 *
 * Names resolve like gdb: variables in scope at the pc (innermost first), then compile-unit
 * variables, CUDA built-ins (threadIdx, blockIdx, blockDim, gridDim, warpSize), enumerators,
 * and finally PTX symbols without debug info (`'x' has unknown type; cast it to its declared type`).
 */
import type { VisibleVariable } from '../../../dwarf/src/index.js';
import { resolveType, sizeOf, typeName, type DwarfType, type PointerType } from '../../../dwarf/src/index.js';
import type { SpaceName, ThreadView } from '../types.js';
import { compare, floatResult, floatValue, intLiteral, intResult, intValue, pointerValue, promote } from './arith.js';
import {
  applyDeclarator, arrayOf, arrayParts, BASE_TYPES, canonicalBase, category, DIM3, findMember, hasPointer, isIntegral,
  isSigned, pointeeSpace, pointerTo, registerCType, T, UINT3, alignOf,
} from './ctypes.js';
import type { DebugInfo } from './debuginfo.js';
import { PrintError } from './errors.js';
import type { ValueHistory } from './history.js';
import { staticValue, visibleValue } from './locate.js';
import { parseExpression, parseTypeName, type Expr, type TypeSpec } from './parser.js';
import { convertSpace } from './places.js';
import { bigintBytes, bytesValue, contents, memoryValue, readFloat, readInteger, subValue, unavailableMessage, type Value } from './value.js';

export interface EvalEnv {
  readonly info: DebugInfo;
  readonly view: ThreadView;
  readonly history: ValueHistory | undefined;
}

/** A PTX variable without DWARF: usable through a cast or `&`, like gdb's minimal symbols. */
const NO_DEBUG_TYPE: DwarfType = { kind: 'unknown', name: '<data variable, no debug info>', die: undefined };

const VECTOR_SPECIALS: ReadonlyMap<string, DwarfType> = new Map([['tid', UINT3], ['ntid', DIM3], ['ctaid', UINT3], ['nctaid', DIM3]]);
const BUILTINS: ReadonlyMap<string, string> = new Map([['threadIdx', 'tid'], ['blockIdx', 'ctaid'], ['blockDim', 'ntid'], ['gridDim', 'nctaid']]);
const SPACES: ReadonlyMap<string, SpaceName> = new Map([
  ['global', 'global'], ['shared', 'shared'], ['local', 'local'], ['const', 'const'], ['constant', 'const'],
  ['param', 'param'], ['parameter', 'param'], ['generic', 'generic'],
]);

/** `src` as a type alone (`whatis Particle`, `ptype decltype(p.mass)`), resolved; undefined when it is an expression. */
export function typeFromSource(env: EvalEnv, src: string): DwarfType | undefined {
  const ev = new Evaluator(env);
  const spec = parseTypeName(src, (n) => ev.isTypeName(n));
  return spec ? ev.typeOf(spec) : undefined;
}

/** Parse and evaluate `src` for the view's thread and frame. */
export function evaluateSource(env: EvalEnv, src: string): Value {
  const ev = new Evaluator(env);
  const tree = parseExpression(src, (n) => ev.isTypeName(n));
  return ev.eval(tree);
}

export class Evaluator {
  private visibleCache: VisibleVariable[] | undefined;
  /** Names of PTX symbols evaluated without debug info, for gdb's "has unknown type" message. */
  private readonly noDebug = new WeakMap<Value, string>();

  constructor(private readonly env: EvalEnv) {}

  private get view(): ThreadView {
    return this.env.view;
  }

  private visible(): VisibleVariable[] {
    // A thread that has exited has no frame: only module variables are visible.
    this.visibleCache ??= this.view.frames.length === 0 ? [] : this.env.info.visible(this.view.function, this.view.pc);
    return this.visibleCache;
  }

  isTypeName(name: string): boolean {
    if (this.visible().some((v) => v.name === name)) return false;
    return this.env.info.namedType(name) !== undefined || BASE_TYPES.has(name) || name === 'uint3' || name === 'dim3';
  }

  eval(e: Expr): Value {
    switch (e.k) {
      case 'int': return intLiteral(e.value, e.suffix, e.radix);
      case 'float': return e.single ? floatValue(Math.fround(e.value), T.float) : floatValue(e.value, T.double);
      case 'char': return intValue(BigInt(e.value), T.char);
      case 'ident': return this.identifier(e.name);
      case 'reg': return this.register(e.name, e.sigil);
      case 'history': {
        const h = this.env.history;
        if (!h) throw new PrintError('History is not available here.');
        return e.absolute !== undefined ? h.get(e.absolute) : h.back(e.back);
      }
      case 'unary': return this.unary(e.op, e.e);
      case 'binary': return this.binary(e.op, e.l, e.r);
      case 'cond': return this.truth(this.eval(e.c)) ? this.eval(e.a) : this.eval(e.b);
      case 'cast': return this.cast(this.eval(e.e), this.typeOf(e.type));
      case 'sizeofType': return sizeValue(this.typeOf(e.type));
      case 'sizeof': return sizeValue(this.eval(e.e).type);
      case 'alignofType': return alignValue(this.typeOf(e.type));
      case 'alignof': return alignValue(this.eval(e.e).type);
      case 'at': return this.at(e.type, this.eval(e.e));
      case 'index': return this.index(this.eval(e.e), this.eval(e.i));
      case 'member': return this.member(this.eval(e.e), e.name, e.arrow);
    }
  }

  // ---- names ----------------------------------------------------------------------------------

  private identifier(name: string): Value {
    const info = this.env.info;
    const v = this.visible().find((x) => x.name === name && !x.shadowed);
    if (v) return visibleValue(info, this.view, v);
    const g = info.globals().find((x) => x.name === name);
    if (g) return staticValue(info, this.view, g);
    const scoped = /^(.+)::([A-Za-z_]\w*)$/.exec(name);
    if (scoped) {
      const st = info.statics().find((x) => x.function === scoped[1] && x.variable.name === scoped[2]);
      if (st) return staticValue(info, this.view, st.variable);
    }
    const special = BUILTINS.get(name);
    if (special) return this.vectorSpecial(special);
    if (name === 'warpSize') return intValue(32n, T.int);
    if (name === 'true' || name === 'false') return intValue(name === 'true' ? 1n : 0n, T.bool);
    if (name === 'nullptr' || name === 'NULL') return bytesValue(pointerTo(T.void, undefined), bigintBytes(0n, 8));
    const en = info.enumerator(name);
    if (en) return bytesValue(en.type, bigintBytes(en.value, sizeOf(en.type) ?? 4));
    const sym = this.view.symbolAddress(name);
    if (sym) {
      const v = memoryValue(NO_DEBUG_TYPE, sym.space, sym.address);
      this.noDebug.set(v, name);
      return v;
    }
    throw new PrintError(`No symbol "${name}" in current context.`);
  }

  private register(name: string, sigil: '$' | '%'): Value {
    const view = this.view;
    const reg = '%' + name;
    const rt = view.registerType(reg);
    if (rt !== undefined) {
      const bits = view.readRegister(reg);
      if (bits === undefined) throw new PrintError(`Register ${sigil}${name} is not available in this frame.`);
      const t = registerCType(rt);
      return bytesValue(t, bigintBytes(bits, sizeOf(t) ?? 8), { kind: 'register', name: reg });
    }
    const vec = VECTOR_SPECIALS.get(name);
    if (vec) return this.vectorSpecial(name);
    const [base, comp] = splitComponent(name);
    const n = view.readSpecial(base, comp);
    if (n !== undefined) return intValue(BigInt(n), T.uint);
    if (sigil === '$') {
      // gdb's convenience names: the PTX instruction index stands in for the program counter
      if (name === 'pc') return intValue(BigInt(view.pc), T.ulong);
      if (name === 'sp') {
        const sp = view.registerType('%SP') !== undefined ? view.readRegister('%SP') : undefined;
        if (sp === undefined) throw new PrintError('No stack pointer ($sp) in this frame: the function keeps no local stack.');
        return intValue(sp, T.ulong);
      }
      const conv = this.env.history?.convenience(name);
      if (conv) return conv;
      if (name.startsWith('_')) throw new PrintError(`$${name} is void (not set yet).`);
    }
    throw new PrintError(`Invalid register or special register "${sigil}${name}".`);
  }

  private vectorSpecial(name: string): Value {
    const b = new Uint8Array(12);
    const dv = new DataView(b.buffer);
    for (let c = 0; c < 3; c++) {
      const n = this.view.readSpecial(name, c);
      if (n === undefined) throw new PrintError(`Special register %${name} is not available.`);
      dv.setUint32(c * 4, n >>> 0, true);
    }
    return bytesValue(VECTOR_SPECIALS.get(name)!, b);
  }

  // ---- types ----------------------------------------------------------------------------------

  typeOf(spec: TypeSpec): DwarfType {
    const info = this.env.info;
    const w = spec.words;
    let base: DwarfType | undefined;
    if (spec.decltype) {
      base = this.eval(spec.decltype).type;
    } else if (w[0] === 'struct' || w[0] === 'union' || w[0] === 'enum' || w[0] === 'class') {
      base = info.namedType(`${w[0]} ${w[1]}`) ?? info.namedType(w[1]!);
      if (!base) throw new PrintError(`No ${w[0]} type named ${w[1]}.`);
    } else if (w.length === 1 && (w[0] === 'uint3' || w[0] === 'dim3') && !info.namedType(w[0])) {
      base = w[0] === 'uint3' ? UINT3 : DIM3;
    } else if (w.length === 1 && info.namedType(w[0]!)) {
      base = info.namedType(w[0]!);
    } else {
      const canon = canonicalBase(w);
      base = canon === undefined ? undefined : info.namedType(canon) ?? BASE_TYPES.get(canon);
      if (!base) throw new PrintError(`No symbol "${spec.text}" in current context.`);
    }
    let space: SpaceName | undefined;
    if (spec.space !== undefined) {
      space = SPACES.get(spec.space);
      if (!space) throw new PrintError(`Unknown address space "@${spec.space}" (use @global, @shared, @local, @const, @param or @generic).`);
      if (!hasPointer(spec.declarator)) throw new PrintError(`An address space qualifier needs a pointer type, as in (@${spec.space} int *).`);
    }
    return applyDeclarator(base!, spec.declarator, space);
  }

  // ---- operators ------------------------------------------------------------------------------

  private unary(op: string, inner: Expr): Value {
    if (op === '&') return this.addressOf(this.eval(inner));
    const v = this.eval(inner);
    switch (op) {
      case '*': return this.deref(v);
      case '!': return intValue(this.truth(v) ? 0n : 1n, T.bool);
      case '-': case '+': {
        const n = this.number(v);
        if (n.kind === 'float') return floatValue(op === '-' ? -n.v : n.v, n.type);
        return intValue(op === '-' ? -n.v : n.v, n.type);
      }
      case '~': {
        const n = this.number(v);
        if (n.kind === 'float') throw new PrintError('Argument to complement operation not an integer, boolean.');
        return intValue(~n.v, n.type);
      }
      default: throw new PrintError(`Unknown operator ${op}.`);
    }
  }

  private binary(op: string, le: Expr, re: Expr): Value {
    if (op === '&&') return intValue(this.truth(this.eval(le)) && this.truth(this.eval(re)) ? 1n : 0n, T.bool);
    if (op === '||') return intValue(this.truth(this.eval(le)) || this.truth(this.eval(re)) ? 1n : 0n, T.bool);
    const l = this.eval(le);
    const r = this.eval(re);
    if (op === '@') return this.artificialArray(l, r);
    const lp = this.pointerish(l);
    const rp = this.pointerish(r);
    if (lp || rp) return this.pointerBinary(op, l, r, lp, rp);
    const a = this.number(l);
    const b = this.number(r);
    if (op === '<<' || op === '>>') {
      if (a.kind === 'float' || b.kind === 'float') throw new PrintError('Integer only operation requested on a floating point value.');
      const width = BigInt((sizeOf(a.type) ?? 4) * 8);
      const s = b.v;
      const v = s < 0n || s >= width ? 0n : op === '<<' ? a.v << s : a.v >> s;
      return intValue(v, a.type);
    }
    if (a.kind === 'float' || b.kind === 'float') {
      const t = floatResult(a.type, b.type);
      const x = Number(a.v);
      const y = Number(b.v);
      const round = (z: number): number => (sizeOf(t) === 4 ? Math.fround(z) : z);
      switch (op) {
        case '+': return floatValue(round(x + y), t);
        case '-': return floatValue(round(x - y), t);
        case '*': return floatValue(round(x * y), t);
        case '/': return floatValue(round(x / y), t);
        case '%': case '&': case '|': case '^': throw new PrintError('Integer only operation requested on a floating point value.');
        default: return intValue(compare(op, x, y) ? 1n : 0n, T.bool);
      }
    }
    const t = intResult(a.type, b.type);
    const signed = isSigned(t);
    const bits = (sizeOf(t) ?? 4) * 8;
    const conv = (v: bigint): bigint => (signed ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v));
    const x = conv(a.v);
    const y = conv(b.v);
    switch (op) {
      case '+': return intValue(x + y, t);
      case '-': return intValue(x - y, t);
      case '*': return intValue(x * y, t);
      case '/': if (y === 0n) throw new PrintError('Division by zero'); return intValue(x / y, t);
      case '%': if (y === 0n) throw new PrintError('Division by zero'); return intValue(x % y, t);
      case '&': return intValue(x & y, t);
      case '|': return intValue(x | y, t);
      case '^': return intValue(x ^ y, t);
      default: return intValue(compare(op, x, y) ? 1n : 0n, T.bool);
    }
  }

  /** Pointer arithmetic and comparisons (arrays in memory decay to pointers). */
  private pointerBinary(op: string, l: Value, r: Value, lp: PointerParts | undefined, rp: PointerParts | undefined): Value {
    if (lp && rp) {
      if (op === '-') {
        const sz = BigInt(Math.max(1, sizeOf(lp.type.target) ?? 1));
        return intValue((BigInt.asIntN(64, lp.address) - BigInt.asIntN(64, rp.address)) / sz, T.long);
      }
      if (['==', '!=', '<', '>', '<=', '>='].includes(op)) {
        // Pointers into different spaces compare as generic addresses (what cvta.to.generic gives).
        const sa = pointeeSpace(lp.type);
        const sb = pointeeSpace(rp.type);
        const x = sa === sb ? lp.address : convertSpace(lp.address, sa, 'generic');
        const y = sa === sb ? rp.address : convertSpace(rp.address, sb, 'generic');
        return intValue(compare(op, x, y) ? 1n : 0n, T.bool);
      }
      throw new PrintError(`Invalid operation ${op} on two pointers.`);
    }
    const p = (lp ?? rp)!;
    const other = this.number(lp ? r : l);
    if (other.kind === 'float') throw new PrintError('Pointer arithmetic needs an integer operand.');
    if (['==', '!='].includes(op) || (['<', '>', '<=', '>='].includes(op))) {
      const [x, y] = lp ? [p.address, other.v] : [other.v, p.address];
      return intValue(compare(op, x, y) ? 1n : 0n, T.bool);
    }
    const scale = BigInt(Math.max(1, sizeOf(p.type.target) ?? 1));
    if (op === '+') return pointerValue(p.type, p.address + other.v * scale);
    if (op === '-' && lp) return pointerValue(p.type, p.address - other.v * scale);
    throw new PrintError(`Invalid operation ${op} on a pointer.`);
  }

  private artificialArray(l: Value, r: Value): Value {
    const n = this.number(r);
    if (n.kind === 'float' || n.v <= 0n) throw new PrintError(`Only values in memory can be extended with '@', by a positive count.`);
    if (l.place.kind !== 'memory') throw new PrintError("Only values in memory can be extended with '@'.");
    const t = arrayOf(l.type, Number(n.v));
    return memoryValue(t, l.place.space, l.place.address);
  }

  /** Values of symbols without debug info can only be cast or have their address taken. */
  private known(v: Value): Value {
    if (v.type === NO_DEBUG_TYPE) throw new PrintError(`'${this.noDebug.get(v) ?? '?'}' has unknown type; cast it to its declared type`);
    return v;
  }

  /** gdb's `{TYPE} ADDR`: the object of TYPE at ADDR (an array given as ADDR stands for its first element's address). */
  private at(spec: TypeSpec, addr: Value): Value {
    this.known(addr);
    let space: SpaceName = 'generic';
    if (spec.space !== undefined) {
      const s = SPACES.get(spec.space);
      if (!s) throw new PrintError(`Unknown address space "@${spec.space}" (use @global, @shared, @local, @const, @param or @generic).`);
      space = s;
    }
    const t = this.typeOf({ ...spec, space: undefined });
    let a = addr;
    if (category(a.type) === 'array') a = this.addressOf(a);
    const c = category(a.type);
    if (c === 'pointer') {
      if (spec.space === undefined) space = pointeeSpace(resolveType(a.type) as PointerType);
    } else if (!isIntegral(a.type)) throw new PrintError('Invalid cast.');
    return memoryValue(t, space, BigInt.asUintN(64, readInteger(this.view, a)));
  }

  private deref(v: Value): Value {
    this.known(v);
    const c = category(v.type);
    if (c === 'pointer') {
      const p = resolveType(v.type) as PointerType;
      const tc = category(p.target);
      if (tc === 'void') throw new PrintError('Attempt to take contents of a non-pointer value.');
      return memoryValue(p.target, pointeeSpace(p), readInteger(this.view, v));
    }
    if (c === 'array') {
      const { element } = arrayParts(resolveType(v.type) as DwarfType & { kind: 'array' });
      return subValue(v, element, 0);
    }
    if (isIntegral(v.type)) return memoryValue(T.int, 'generic', BigInt.asUintN(64, readInteger(this.view, v)));
    throw new PrintError('Attempt to take contents of a non-pointer value.');
  }

  private addressOf(v: Value): Value {
    if (v.bits) throw new PrintError('Attempt to take address of value not located in memory.');
    if (v.place.kind === 'register') throw new PrintError(`Address requested for a value in register ${v.place.name}.`);
    if (v.place.kind !== 'memory') {
      if (v.unavailable !== undefined) throw new PrintError(unavailableMessage(v));
      throw new PrintError('Attempt to take address of value not located in memory.');
    }
    return pointerValue(pointerTo(v.type, v.place.space), v.place.address);
  }

  private index(a: Value, i: Value): Value {
    this.known(a);
    this.known(i);
    if (category(a.type) !== 'array' && category(a.type) !== 'pointer' && (category(i.type) === 'array' || category(i.type) === 'pointer')) [a, i] = [i, a];
    const n = this.number(i);
    if (n.kind === 'float') throw new PrintError('Array subscript is not an integer.');
    const c = category(a.type);
    if (c === 'array') {
      const { element, count } = arrayParts(resolveType(a.type) as DwarfType & { kind: 'array' });
      const esize = sizeOf(element) ?? 0;
      if (a.place.kind !== 'memory' && (n.v < 0n || (count !== undefined && n.v >= BigInt(count)))) throw new PrintError('no such vector element');
      return subValue(a, element, Number(n.v) * esize);
    }
    if (c === 'pointer') {
      const p = resolveType(a.type) as PointerType;
      if (category(p.target) === 'void') throw new PrintError('Attempt to take contents of a non-pointer value.');
      const scale = BigInt(sizeOf(p.target) ?? 1);
      return memoryValue(p.target, pointeeSpace(p), BigInt.asUintN(64, readInteger(this.view, a) + n.v * scale));
    }
    throw new PrintError(`cannot subscript something of type \`${typeText(a.type)}'`);
  }

  private member(v: Value, name: string, arrow: boolean): Value {
    let s = this.known(v);
    if (category(s.type) === 'pointer') s = this.deref(s);
    else if (arrow) throw new PrintError(`The -> operator needs a pointer; use . for ${typeText(v.type)}.`);
    const r = resolveType(s.type);
    if (r.kind !== 'struct' && r.kind !== 'class' && r.kind !== 'union') {
      throw new PrintError('Attempt to extract a component of a value that is not a structure.');
    }
    const found = findMember(r.members, name, 0);
    if (!found) throw new PrintError(`There is no member named ${name}.`);
    const m = found.member;
    const bits = m.bitSize !== undefined ? { offset: m.bitOffset ?? 0, size: m.bitSize } : undefined;
    return subValue(s, m.type, found.offset, bits);
  }

  // ---- conversions ----------------------------------------------------------------------------

  cast(v: Value, t: DwarfType): Value {
    const c = category(t);
    const view = this.view;
    if (v.type === NO_DEBUG_TYPE) {
      if (v.place.kind !== 'memory') throw new PrintError('Invalid cast.');
      return memoryValue(t, v.place.space, v.place.address);
    }
    if (v.unavailable !== undefined) throw new PrintError(unavailableMessage(v));
    switch (c) {
      case 'void': return bytesValue(t, new Uint8Array(0));
      case 'int': case 'char': case 'bool': case 'enum': {
        const n = this.number(v);
        let x: bigint;
        if (n.kind === 'float') x = Number.isFinite(n.v) ? BigInt(Math.trunc(n.v)) : 0n;
        else x = n.v;
        if (c === 'bool') x = x !== 0n || (n.kind === 'float' && n.v !== 0) ? 1n : 0n;
        return intValue(x, t);
      }
      case 'float': {
        const n = this.number(v);
        const x = Number(n.v);
        return floatValue(sizeOf(t) === 4 ? Math.fround(x) : x, t);
      }
      case 'pointer': {
        const target = resolveType(t) as PointerType;
        const p = this.pointerish(v);
        if (p) return pointerValue(t, convertSpace(p.address, pointeeSpace(p.type), pointeeSpace(target)));
        const n = this.number(v);
        if (n.kind === 'float') throw new PrintError('Invalid cast.');
        return pointerValue(t, BigInt.asUintN(64, n.v));
      }
      case 'aggregate': case 'array': {
        if (sizeOf(t) !== sizeOf(v.type)) throw new PrintError('Invalid cast.');
        if (v.place.kind === 'memory' && !v.bytes) return memoryValue(t, v.place.space, v.place.address);
        return bytesValue(t, contents(view, v), v.place);
      }
      default:
        throw new PrintError('Invalid cast.');
    }
  }

  /** An integer or floating operand after C's integer promotions. */
  private number(v: Value): Num {
    this.known(v);
    if (v.unavailable !== undefined) throw new PrintError(unavailableMessage(v));
    const c = category(v.type);
    if (c === 'float') return { kind: 'float', v: readFloat(this.view, v), type: resolveType(v.type) };
    if (c === 'pointer') return { kind: 'int', v: readInteger(this.view, v), type: T.ulong };
    if (!isIntegral(v.type)) throw new PrintError('Argument to arithmetic operation not a number or boolean.');
    const x = readInteger(this.view, v);
    return { kind: 'int', v: x, type: promote(v) };
  }

  private truth(v: Value): boolean {
    const p = this.pointerish(v);
    if (p) return p.address !== 0n;
    const n = this.number(v);
    return n.kind === 'float' ? n.v !== 0 : n.v !== 0n;
  }

  /** A pointer operand: pointers, and arrays in memory (which decay to a pointer to element 0). */
  private pointerish(v: Value): PointerParts | undefined {
    this.known(v);
    const c = category(v.type);
    if (c === 'pointer') {
      const r = resolveType(v.type);
      if (r.kind !== 'pointer') return undefined;
      return { type: r, address: readInteger(this.view, v) };
    }
    if (c === 'array' && v.place.kind === 'memory') {
      const { element } = arrayParts(resolveType(v.type) as DwarfType & { kind: 'array' });
      return { type: pointerTo(element, v.place.space), address: v.place.address };
    }
    return undefined;
  }
}

interface PointerParts {
  readonly type: PointerType;
  readonly address: bigint;
}

type Num = { kind: 'int'; v: bigint; type: DwarfType } | { kind: 'float'; v: number; type: DwarfType };

// ---- helpers ------------------------------------------------------------------------------------

function sizeValue(t: DwarfType): Value {
  const n = sizeOf(t);
  if (n === undefined) throw new PrintError(`The size of ${typeText(t)} is not known.`);
  return intValue(BigInt(n), T.ulong);
}

/** gdb's alignof: the type's DWARF alignment, else its natural one (a struct's: its widest member's). */
function alignValue(t: DwarfType): Value {
  const n = alignOf(t);
  if (n === undefined) throw new PrintError(`The alignment of ${typeText(t)} is not known.`);
  return intValue(BigInt(n), T.ulong);
}

function typeText(t: DwarfType): string {
  return typeName(t);
}

function splitComponent(name: string): [string, number] {
  const m = /^(\w+)\.([xyzw])$/.exec(name);
  if (!m) return [name, 0];
  return [m[1]!, 'xyzw'.indexOf(m[2]!)];
}

