/**
 * C types for expression evaluation, on top of the DWARF type model (dwarf/src/types.ts): the
 * synthetic types an expression needs (literals, casts, `&x`, registers, CUDA built-ins) are
 * plain `DwarfType` objects without a DIE, so printing and sizing work the same for both.
 */
import { ADDR_CLASS, addressClassKey, DW_AT, DW_ATE } from '../../../dwarf/src/index.js';
import { resolveType, sizeOf, typeName, type AggregateType, type DwarfType, type Member, type PointerType } from '../../../dwarf/src/index.js';
import type { SpaceName } from '../types.js';
import type { Declarator } from './parser.js';

function base(name: string, encoding: number, byteSize: number): DwarfType {
  return { kind: 'base', name, encoding, byteSize, die: undefined };
}

export const T = {
  void: { kind: 'void', name: 'void', die: undefined } as DwarfType,
  bool: base('bool', DW_ATE.boolean, 1),
  char: base('char', DW_ATE.signed_char, 1),
  schar: base('signed char', DW_ATE.signed_char, 1),
  uchar: base('unsigned char', DW_ATE.unsigned_char, 1),
  short: base('short', DW_ATE.signed, 2),
  ushort: base('unsigned short', DW_ATE.unsigned, 2),
  int: base('int', DW_ATE.signed, 4),
  uint: base('unsigned int', DW_ATE.unsigned, 4),
  long: base('long', DW_ATE.signed, 8),
  ulong: base('unsigned long', DW_ATE.unsigned, 8),
  llong: base('long long', DW_ATE.signed, 8),
  ullong: base('unsigned long long', DW_ATE.unsigned, 8),
  float: base('float', DW_ATE.float, 4),
  double: base('double', DW_ATE.float, 8),
};

/** Spellings of the C base types (after sorting specifier words) → type. */
export const BASE_TYPES: ReadonlyMap<string, DwarfType> = new Map([
  ['void', T.void], ['bool', T.bool], ['_Bool', T.bool], ['char', T.char], ['signed char', T.schar],
  ['unsigned char', T.uchar], ['short', T.short], ['short int', T.short], ['signed short', T.short],
  ['unsigned short', T.ushort], ['unsigned short int', T.ushort], ['int', T.int], ['signed', T.int],
  ['signed int', T.int], ['unsigned', T.uint], ['unsigned int', T.uint], ['long', T.long], ['long int', T.long],
  ['signed long', T.long], ['unsigned long', T.ulong], ['unsigned long int', T.ulong], ['long long', T.llong],
  ['long long int', T.llong], ['signed long long', T.llong], ['unsigned long long', T.ullong],
  ['unsigned long long int', T.ullong], ['float', T.float], ['double', T.double], ['long double', T.double],
  ['size_t', T.ulong], ['int8_t', T.schar], ['uint8_t', T.uchar], ['int16_t', T.short], ['uint16_t', T.ushort],
  ['int32_t', T.int], ['uint32_t', T.uint], ['int64_t', T.long], ['uint64_t', T.ulong],
]);

function struct3(name: string): AggregateType {
  const m = (n: string, offset: number) => ({ name: n, type: T.uint, offset, bitSize: undefined, bitOffset: undefined, isBase: false });
  return { kind: 'struct', name, byteSize: 12, members: [m('x', 0), m('y', 4), m('z', 8)], declaration: false, die: undefined };
}

/** CUDA's vector types of the built-in variables (threadIdx is a uint3, blockDim a dim3). */
export const UINT3 = struct3('uint3');
export const DIM3 = struct3('dim3');

/** CUDA address-class code of a state space (the pointee space of a pointer type). */
export function addressClassOf(space: SpaceName): number {
  return space === 'generic' ? ADDR_CLASS.generic : ADDR_CLASS[space];
}

export function pointerTo(target: DwarfType, space: SpaceName | undefined): PointerType {
  return { kind: 'pointer', target, addressClass: space === undefined ? undefined : addressClassOf(space), byteSize: 8, die: undefined };
}

export function arrayOf(element: DwarfType, n: number): DwarfType {
  return { kind: 'array', element, dims: [n], die: undefined };
}

/** Space a pointer of this type points into: an explicit CUDA class, else generic. */
export function pointeeSpace(t: PointerType): SpaceName {
  const k = t.addressClass === undefined ? undefined : addressClassKey(t.addressClass);
  switch (k) {
    case 'global': case 'shared': case 'local': case 'const': case 'param': return k;
    default: return 'generic';
  }
}

/** The state space a variable's DW_AT_address_class names ('reg' and unknown → undefined). */
export function spaceOfClass(k: string | undefined): SpaceName | undefined {
  switch (k) {
    case 'global': case 'shared': case 'local': case 'const': case 'param': case 'generic': return k;
    default: return undefined;
  }
}

/** The element type and count of an array type's first dimension (inner dimensions stay an array). */
export function arrayParts(t: DwarfType & { kind: 'array' }): { element: DwarfType; count: number | undefined } {
  if (t.dims.length <= 1) return { element: t.element, count: t.dims[0] };
  return { element: { kind: 'array', element: t.element, dims: t.dims.slice(1), die: undefined }, count: t.dims[0] };
}

export type Category = 'int' | 'bool' | 'char' | 'float' | 'enum' | 'pointer' | 'array' | 'aggregate' | 'void' | 'function' | 'other';

/** What kind of value a type holds (typedefs and qualifiers stripped). */
export function category(t: DwarfType): Category {
  const r = resolveType(t);
  switch (r.kind) {
    case 'base':
      switch (r.encoding) {
        case DW_ATE.boolean: return 'bool';
        case DW_ATE.float: return r.byteSize === 4 || r.byteSize === 8 ? 'float' : 'other';
        case DW_ATE.signed_char: case DW_ATE.unsigned_char: return r.byteSize === 1 ? 'char' : 'int';
        case DW_ATE.signed: case DW_ATE.unsigned: case DW_ATE.UTF: case DW_ATE.address: return r.byteSize >= 1 && r.byteSize <= 8 ? 'int' : 'other';
        default: return 'other';
      }
    case 'enum': return 'enum';
    case 'pointer': case 'reference': case 'rvalueReference': return 'pointer';
    case 'array': return 'array';
    case 'struct': case 'class': case 'union': return 'aggregate';
    case 'void': return 'void';
    case 'function': return 'function';
    default: return 'other';
  }
}

/** Integer-like (int, bool, char, enum): arithmetic operands after promotion. */
export function isIntegral(t: DwarfType): boolean {
  const c = category(t);
  return c === 'int' || c === 'bool' || c === 'char' || c === 'enum';
}

export function isSigned(t: DwarfType): boolean {
  const r = resolveType(t);
  if (r.kind === 'base') return r.encoding === DW_ATE.signed || r.encoding === DW_ATE.signed_char;
  if (r.kind === 'enum') {
    if (r.underlying) return isSigned(r.underlying);
    return r.enumerators.some((e) => e.value < 0n);
  }
  return false;
}

/** Byte size, with 0 for unsized types (callers that need a size check it). */
export function sizeOrZero(t: DwarfType): number {
  return sizeOf(t) ?? 0;
}

/**
 * A type's name as printed before a value: gdb's C spelling, with cuda-gdb's `@space` in front
 * for pointers into an explicit state space: `(@shared int *)`. Generic pointers (what nvcc
 * emits for every C pointer) carry no qualifier: `(int *)`.
 */
export function displayType(t: DwarfType): string {
  // nvcc compiles CUDA as C++, where gdb names class types without their tag keyword.
  const text = typeName(t).replace(/\b(?:struct|class|union|enum) (?=[A-Za-z_])/g, '');
  const r = resolveType(t);
  if (r.kind === 'pointer' || r.kind === 'reference' || r.kind === 'rvalueReference') {
    const s = pointeeSpace(r);
    if (s !== 'generic') return `@${s} ${text}`;
  }
  return text;
}

// ---- type names in expressions ------------------------------------------------------------------

export function registerCType(ptxType: string): DwarfType {
  switch (ptxType) {
    case 'pred': return T.bool;
    case 's8': return T.schar;
    case 'u8': case 'b8': return T.uchar;
    case 's16': return T.short;
    case 'u16': case 'b16': case 'f16': case 'bf16': return T.ushort;
    case 's32': return T.int;
    case 'u32': case 'b32': case 'f16x2': case 'bf16x2': return T.uint;
    case 'f32': return T.float;
    case 's64': return T.long;
    case 'f64': return T.double;
    default: return T.ulong;
  }
}

export function canonicalBase(words: readonly string[]): string | undefined {
  let unsigned = false;
  let signed = false;
  let longs = 0;
  let short = false;
  let core: string | undefined;
  for (const w of words) {
    if (w === 'unsigned') unsigned = true;
    else if (w === 'signed') signed = true;
    else if (w === 'long') longs++;
    else if (w === 'short') short = true;
    else if (core === undefined) core = w;
    else return undefined;
  }
  if (core === 'float' || core === 'bool' || core === '_Bool' || core === 'void') return unsigned || signed || short || longs ? undefined : core;
  if (core === 'double') return longs === 1 ? 'long double' : longs === 0 ? 'double' : undefined;
  if (core === 'char') {
    if (short || longs) return undefined;
    return unsigned ? 'unsigned char' : signed ? 'signed char' : 'char';
  }
  if (core !== undefined && core !== 'int') return undefined;
  const width = short ? 'short' : longs === 1 ? 'long' : longs === 2 ? 'long long' : longs === 0 ? 'int' : undefined;
  if (!width) return undefined;
  return unsigned ? `unsigned ${width}` : width;
}

export function hasPointer(d: Declarator): boolean {
  return d.pointers > 0 || (d.inner !== undefined && hasPointer(d.inner));
}

/** Build the declared type: pointers, then arrays, then the parenthesised inner declarator. */
export function applyDeclarator(base: DwarfType, d: Declarator, space: SpaceName | undefined): DwarfType {
  let t = base;
  let sp = space;
  for (let i = 0; i < d.pointers; i++) {
    t = pointerTo(t, sp);
    sp = undefined;
  }
  if (d.arrays.length) t = { kind: 'array', element: t, dims: [...d.arrays], die: undefined };
  return d.inner ? applyDeclarator(t, d.inner, sp) : t;
}

/** The members gdb prints of a struct value: all but unnamed bit-fields (padding, with no value of their own). */
export function shownMembers(members: readonly Member[]): readonly Member[] {
  return members.filter((m) => m.name !== undefined || m.bitSize === undefined);
}

/** Member lookup through anonymous members and base classes; offset accumulated. */
export function findMember(members: readonly Member[], name: string, base: number): { member: Member; offset: number } | undefined {
  for (const m of members) if (m.name === name && !m.isBase) return { member: m, offset: base + m.offset };
  for (const m of members) {
    if (m.name !== undefined && !m.isBase) continue;
    const r = resolveType(m.type);
    if (r.kind === 'struct' || r.kind === 'class' || r.kind === 'union') {
      const hit = findMember(r.members, name, base + m.offset);
      if (hit) return hit;
    }
  }
  return undefined;
}

/**
 * A type's alignment as C's alignof gives it (and gdb's `type_align`): DW_AT_alignment where the
 * compiler wrote one, else the natural one: a scalar's size, an array's element's, an aggregate's
 * widest member's (1 when empty); undefined for void and functions.
 */
export function alignOf(t: DwarfType, depth = 0): number | undefined {
  if (depth > 64) return undefined;
  const explicit = t.die?.udata(DW_AT.alignment);
  if (explicit !== undefined) return explicit;
  switch (t.kind) {
    case 'typedef': case 'const': case 'volatile': case 'restrict': case 'atomic': return alignOf(t.target, depth + 1);
    case 'base': return t.byteSize || undefined;
    case 'pointer': case 'reference': case 'rvalueReference': return t.byteSize;
    case 'enum': return t.byteSize;
    case 'ptrToMember': return 8;
    case 'array': return alignOf(t.element, depth + 1);
    case 'struct': case 'class': case 'union': {
      let a = 1;
      for (const m of t.members) a = Math.max(a, alignOf(m.type, depth + 1) ?? 1);
      return a;
    }
    default: return undefined;
  }
}
