/**
 * The type model: DWARF type DIEs turned into a small tree of types with sizes, plus `typeName()`
 * printing C declarators the way gdb does (`int *`, `float [16][16]`, `int (*)[4]`, `struct Pair`)
 * or the way llvm-dwarfdump does (`float[16][16]`, `Pair`, `int *const`).
 *
 * Types are built lazily and memoised per DIE. Structs/unions/classes/enums are registered before
 * their members are built (pointers, qualifiers and typedefs too), so legitimate recursion
 * (`struct Node { Node *next; }`) resolves to the same object; a re-entry whose chain passes
 * through no struct/union/class/enum (a pointer or typedef chain leading back to itself) is a
 * cyclic type reference: it is reported and replaced by an `unknown` type, never looped on.
 */
import { addressClassKey, DW_AT, DW_TAG, tagName } from './constants.js';
import type { Dwarf } from './dwarf.js';
import type { Die } from './info.js';

export interface Member {
  readonly name: string | undefined;
  readonly type: DwarfType;
  /** Byte offset in the enclosing aggregate (undefined if not given, e.g. union members = 0). */
  readonly offset: number;
  /** Bit field: size in bits, and bit offset from the start of the member's storage (LSB numbering). */
  readonly bitSize: number | undefined;
  readonly bitOffset: number | undefined;
  /** An inheritance entry (base class subobject). */
  readonly isBase: boolean;
}

export interface Enumerator {
  readonly name: string;
  readonly value: bigint;
}

export type DwarfType =
  | { readonly kind: 'base'; readonly name: string; readonly encoding: number; readonly byteSize: number; readonly die: Die | undefined }
  | { readonly kind: 'void'; readonly name: string; readonly die: Die | undefined }
  | PointerType
  | QualifiedType
  | TypedefType
  | {
      readonly kind: 'array';
      readonly element: DwarfType;
      /** Element counts per dimension, outermost first; undefined for an unknown bound (`[]`). */
      readonly dims: readonly (number | undefined)[];
      readonly die: Die | undefined;
    }
  | AggregateType
  | EnumType
  | { readonly kind: 'function'; readonly returnType: DwarfType; readonly params: readonly DwarfType[]; readonly variadic: boolean; readonly die: Die | undefined }
  | { readonly kind: 'ptrToMember'; readonly target: DwarfType; readonly containing: DwarfType | undefined; readonly die: Die | undefined }
  | { readonly kind: 'unknown'; readonly name: string; readonly die: Die | undefined };

export interface PointerType {
  readonly kind: 'pointer' | 'reference' | 'rvalueReference';
  readonly target: DwarfType;
  /** CUDA address class of the pointee's space (12 = generic), if given. */
  readonly addressClass: number | undefined;
  readonly byteSize: number;
  readonly die: Die | undefined;
}

export interface QualifiedType {
  readonly kind: 'const' | 'volatile' | 'restrict' | 'atomic';
  readonly target: DwarfType;
  readonly die: Die | undefined;
}

export interface TypedefType {
  readonly kind: 'typedef';
  readonly name: string;
  readonly target: DwarfType;
  readonly die: Die | undefined;
}

export interface AggregateType {
  readonly kind: 'struct' | 'class' | 'union';
  readonly name: string | undefined;
  readonly byteSize: number | undefined;
  readonly members: readonly Member[];
  readonly declaration: boolean;
  readonly die: Die | undefined;
}

export interface EnumType {
  readonly kind: 'enum';
  readonly name: string | undefined;
  readonly byteSize: number | undefined;
  readonly underlying: DwarfType | undefined;
  readonly enumerators: readonly Enumerator[];
  readonly die: Die | undefined;
}

const AGGREGATE_TAGS: ReadonlySet<number> = new Set([DW_TAG.structure_type, DW_TAG.class_type, DW_TAG.union_type, DW_TAG.enumeration_type]);

export const VOID: DwarfType = { kind: 'void', name: 'void', die: undefined };

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Builds and caches the types of one Dwarf object. */
export class TypeTable {
  private readonly memo = new Map<number, DwarfType>();
  private readonly stack: { key: number; aggregate: boolean }[] = [];

  constructor(readonly dwarf: Dwarf) {}

  /** The type a DIE refers to with DW_AT_type (void when absent). */
  typeOfAttr(die: Die, name: number = DW_AT.type): DwarfType {
    if (!die.has(name)) return VOID;
    const t = die.ref(name);
    return t ? this.typeOf(t) : { kind: 'unknown', name: '<bad type reference>', die: undefined };
  }

  /** The type described by a type DIE. */
  typeOf(die: Die): DwarfType {
    const key = die.sectionOffset;
    const i = this.stack.findIndex((e) => e.key === key);
    if (i >= 0) {
      // Re-entered while building: legitimate only through a struct/class/union/enum, whose
      // (partially built) object is already registered.
      const viaAggregate = this.stack.slice(i).some((e) => e.aggregate);
      const shell = this.memo.get(key);
      if (viaAggregate && shell) return shell;
      this.dwarf.warnings.add('.debug_info', key, `cyclic type reference through 0x${key.toString(16).padStart(8, '0')} (${tagName(die.tag)})`);
      return { kind: 'unknown', name: '<cyclic type>', die };
    }
    const done = this.memo.get(key);
    if (done) return done;
    this.stack.push({ key, aggregate: AGGREGATE_TAGS.has(die.tag) });
    try {
      const t = this.build(die);
      this.memo.set(key, t);
      return t;
    } catch (e) {
      this.dwarf.warnings.error(e, '.debug_info', key);
      const t: DwarfType = { kind: 'unknown', name: '<bad type>', die };
      this.memo.set(key, t);
      return t;
    } finally {
      this.stack.pop();
    }
  }

  /** Register a partially built type so references through an aggregate can reach it. */
  private shell<T extends DwarfType>(die: Die, t: T): T {
    this.memo.set(die.sectionOffset, t);
    return t;
  }

  private build(die: Die): DwarfType {
    const tag = die.tag;
    const addrSize = die.unit.header.addressSize;
    switch (tag) {
      case DW_TAG.base_type:
        return { kind: 'base', name: die.name ?? '<anonymous>', encoding: die.udata(DW_AT.encoding) ?? 0, byteSize: die.udata(DW_AT.byte_size) ?? 0, die };
      case DW_TAG.unspecified_type:
        return { kind: 'void', name: die.name ?? 'void', die };
      case DW_TAG.pointer_type: case DW_TAG.reference_type: case DW_TAG.rvalue_reference_type: {
        const t: Mutable<PointerType> = this.shell(die, {
          kind: tag === DW_TAG.pointer_type ? 'pointer' : tag === DW_TAG.reference_type ? 'reference' : 'rvalueReference',
          target: VOID, addressClass: die.udata(DW_AT.address_class), byteSize: die.udata(DW_AT.byte_size) ?? addrSize, die,
        });
        t.target = this.typeOfAttr(die);
        return t;
      }
      case DW_TAG.const_type: case DW_TAG.volatile_type: case DW_TAG.restrict_type: case DW_TAG.atomic_type: {
        const t: Mutable<QualifiedType> = this.shell(die, {
          kind: tag === DW_TAG.const_type ? 'const' : tag === DW_TAG.volatile_type ? 'volatile' : tag === DW_TAG.restrict_type ? 'restrict' : 'atomic',
          target: VOID, die,
        });
        t.target = this.typeOfAttr(die);
        return t;
      }
      case DW_TAG.typedef: {
        const t: Mutable<TypedefType> = this.shell(die, { kind: 'typedef', name: die.name ?? '<anonymous>', target: VOID, die });
        t.target = this.typeOfAttr(die);
        return t;
      }
      case DW_TAG.array_type: {
        const element = this.typeOfAttr(die);
        const dims: (number | undefined)[] = [];
        for (const c of this.children(die)) {
          if (c.tag === DW_TAG.subrange_type) dims.push(subrangeCount(c));
          else if (c.tag === DW_TAG.enumeration_type) {
            const e = this.typeOf(c);
            dims.push(e.kind === 'enum' ? e.enumerators.length : undefined);
          }
        }
        if (dims.length === 0) dims.push(undefined);
        return { kind: 'array', element, dims, die };
      }
      case DW_TAG.structure_type: case DW_TAG.class_type: case DW_TAG.union_type: {
        const members: Member[] = [];
        const t: Mutable<AggregateType> = this.shell(die, {
          kind: tag === DW_TAG.structure_type ? 'struct' : tag === DW_TAG.class_type ? 'class' : 'union',
          name: die.name, byteSize: die.udata(DW_AT.byte_size), members, declaration: die.flag(DW_AT.declaration), die,
        });
        for (const c of this.children(die)) {
          if (c.tag !== DW_TAG.member && c.tag !== DW_TAG.inheritance) continue;
          if (c.tag === DW_TAG.member && c.flag(DW_AT.external)) continue; // static member
          members.push(this.member(c, t.byteSize));
        }
        return t;
      }
      case DW_TAG.enumeration_type: {
        const enumerators: Enumerator[] = [];
        const t: Mutable<EnumType> = this.shell(die, {
          kind: 'enum', name: die.name, byteSize: die.udata(DW_AT.byte_size), underlying: undefined, enumerators, die,
        });
        if (die.has(DW_AT.type)) t.underlying = this.typeOfAttr(die);
        for (const c of this.children(die)) {
          if (c.tag === DW_TAG.enumerator) enumerators.push({ name: c.name ?? '?', value: c.sdata(DW_AT.const_value) ?? 0n });
        }
        return t;
      }
      case DW_TAG.subroutine_type: {
        const params: DwarfType[] = [];
        let variadic = false;
        for (const c of this.children(die)) {
          if (c.tag === DW_TAG.formal_parameter) params.push(this.typeOfAttr(c));
          else if (c.tag === DW_TAG.unspecified_parameters) variadic = true;
        }
        return { kind: 'function', returnType: this.typeOfAttr(die), params, variadic, die };
      }
      case DW_TAG.ptr_to_member_type: {
        const containing = die.has(DW_AT.containing_type) ? this.typeOfAttr(die, DW_AT.containing_type) : undefined;
        return { kind: 'ptrToMember', target: this.typeOfAttr(die), containing, die };
      }
      default:
        return { kind: 'unknown', name: die.name ?? `<${tagName(tag)}>`, die };
    }
  }

  private member(c: Die, aggregateSize: number | undefined): Member {
    const type = this.typeOfAttr(c);
    let offset = 0;
    const loc = this.dwarf.attr(c, DW_AT.data_member_location);
    if (loc?.kind === 'constant') offset = Number(loc.value);
    else if (loc?.kind === 'expression') {
      // nvcc: DW_OP_plus_uconst N. Accept constu/plus too.
      let acc = 0n;
      for (const op of loc.ops) {
        if (op.name === 'DW_OP_plus_uconst' || op.name === 'DW_OP_constu' || op.name === 'DW_OP_consts') acc += op.operands[0] ?? 0n;
      }
      offset = Number(acc);
    }
    const bitSize = c.udata(DW_AT.bit_size);
    let bitOffset: number | undefined;
    const dataBitOffset = c.udata(DW_AT.data_bit_offset);
    if (dataBitOffset !== undefined) {
      offset = Math.floor(dataBitOffset / 8);
      bitOffset = dataBitOffset % 8;
    } else if (bitSize !== undefined) {
      // DWARF 2/3 DW_AT_bit_offset counts from the most significant bit of the storage unit.
      const storage = c.udata(DW_AT.byte_size) ?? sizeOf(type) ?? aggregateSize ?? 4;
      const msbOffset = c.udata(DW_AT.bit_offset) ?? 0;
      bitOffset = storage * 8 - msbOffset - bitSize;
    }
    return { name: c.name, type, offset, bitSize, bitOffset, isBase: c.tag === DW_TAG.inheritance };
  }

  private children(die: Die): Die[] {
    const node = die.unit.nodeAt(die.offset);
    return node ? node.children.map((n) => n.die) : [];
  }
}

function subrangeCount(sr: Die): number | undefined {
  const count = sr.udata(DW_AT.count);
  if (count !== undefined) return count;
  const ub = sr.sdata(DW_AT.upper_bound);
  if (ub === undefined) return undefined;
  const lb = sr.sdata(DW_AT.lower_bound) ?? 0n;
  // An unsigned data form holding -1 (0xff.., "no elements") reads as a large number.
  const upper = sr.raw(DW_AT.upper_bound);
  let u = ub;
  if (upper?.kind === 'data') u = BigInt.asIntN(upper.size * 8, ub);
  return Number(u - lb + 1n);
}

/** Size in bytes, or undefined when unknown (void, incomplete types, unknown bounds). */
export function sizeOf(t: DwarfType, depth = 0): number | undefined {
  if (depth > 64) return undefined;
  switch (t.kind) {
    case 'base': return t.byteSize;
    case 'void': case 'function': case 'unknown': return undefined;
    case 'pointer': case 'reference': case 'rvalueReference': return t.byteSize;
    case 'const': case 'volatile': case 'restrict': case 'atomic': case 'typedef': return sizeOf(t.target, depth + 1);
    case 'array': {
      const e = sizeOf(t.element, depth + 1);
      if (e === undefined) return undefined;
      let n = e;
      for (const d of t.dims) {
        if (d === undefined) return undefined;
        n *= d;
      }
      return n;
    }
    case 'struct': case 'class': case 'union': case 'enum': return t.byteSize;
    case 'ptrToMember': return 8;
  }
}

/** Strip typedefs and cv-qualifiers. */
export function resolveType(t: DwarfType): DwarfType {
  for (let i = 0; i < 64; i++) {
    if (t.kind === 'typedef' || t.kind === 'const' || t.kind === 'volatile' || t.kind === 'restrict' || t.kind === 'atomic') t = t.target;
    else return t;
  }
  return t;
}

/** Short CUDA address-class name of a pointer type ('generic', 'shared', ...). */
export function pointerSpace(t: DwarfType): string | undefined {
  return t.kind === 'pointer' || t.kind === 'reference' || t.kind === 'rvalueReference'
    ? (t.addressClass === undefined ? undefined : addressClassKey(t.addressClass) ?? `0x${t.addressClass.toString(16)}`)
    : undefined;
}

export type TypeNameStyle = 'gdb' | 'llvm';

/**
 * The C spelling of a type. 'gdb' (default): `int *`, `float [16][16]`, `int (*)[4]`,
 * `int * const`, `struct Pair`. 'llvm' (llvm-dwarfdump): `float[16][16]`, `int *const`, `Pair`.
 */
export function typeName(t: DwarfType, style: TypeNameStyle = 'gdb'): string {
  return render(t, '', style, 0).trim();
}

function join(base: string, inner: string, style: TypeNameStyle): string {
  if (!inner) return base;
  if (style === 'llvm' && inner.startsWith('[')) return base + inner;
  return `${base} ${inner}`;
}

function render(t: DwarfType, inner: string, style: TypeNameStyle, depth: number): string {
  if (depth > 32) return join('...', inner, style);
  const d = depth + 1;
  switch (t.kind) {
    case 'base': case 'void': case 'unknown': case 'typedef':
      return join(t.name, inner, style);
    case 'struct': case 'class': case 'union': case 'enum': {
      const tagWord = t.kind === 'struct' ? 'struct' : t.kind;
      const name = t.name ?? (style === 'gdb' ? '{...}' : `<anonymous ${tagWord}>`);
      return join(style === 'gdb' ? `${tagWord} ${name}` : name, inner, style);
    }
    case 'pointer': case 'reference': case 'rvalueReference': {
      const sym = t.kind === 'pointer' ? '*' : t.kind === 'reference' ? '&' : '&&';
      const target = t.target;
      const next = sym + inner;
      if (target.kind === 'array' || target.kind === 'function') return render(target, `(${next})`, style, d);
      return render(target, next, style, d);
    }
    case 'const': case 'volatile': case 'restrict': case 'atomic': {
      const q = t.kind === 'atomic' ? '_Atomic' : t.kind;
      const target = t.target;
      if (target.kind === 'pointer' || target.kind === 'reference' || target.kind === 'rvalueReference') {
        return render(target, (style === 'gdb' ? ` ${q}` : q) + (inner ? ` ${inner}` : ''), style, d).replace(/\*\s+(const|volatile|restrict|_Atomic)\b/g, style === 'gdb' ? '* $1' : '*$1');
      }
      if (target.kind === 'array') return render(target, inner, style, d).replace(/^/, `${q} `);
      return `${q} ${render(target, inner, style, d)}`;
    }
    case 'array': {
      const dims = t.dims.map((n) => `[${n === undefined ? '' : n}]`).join('');
      return render(t.element, inner + dims, style, d);
    }
    case 'function': {
      const ps = t.params.map((p) => typeName(p, style));
      if (t.variadic) ps.push('...');
      return render(t.returnType, `${inner}(${ps.length ? ps.join(', ') : 'void'})`, style, d);
    }
    case 'ptrToMember': {
      const c = t.containing ? typeName(t.containing, style) : '?';
      return render(t.target, `${c}::*${inner}`, style, d);
    }
  }
}
