/**
 * DWARF constants (versions 2–5 plus the vendor values nvcc/ptxas use), kept *open* like gimli's:
 * a constant is a plain number and naming it never fails — unknown values print as
 * "unknown DW_AT 0x…" (or the vendor range name), so new or vendor codes never crash a decoder.
 */

function table(entries: readonly (readonly [string, number])[]): ReadonlyMap<number, string> {
  const m = new Map<number, string>();
  for (const [name, value] of entries) if (!m.has(value)) m.set(value, name);
  return m;
}
function reverse(m: ReadonlyMap<number, string>): ReadonlyMap<string, number> {
  const r = new Map<string, number>();
  for (const [v, n] of m) r.set(n, v);
  return r;
}
function hex(v: number): string {
  return '0x' + v.toString(16);
}

// ---- tags -------------------------------------------------------------------------------------

export const DW_TAG = {
  array_type: 0x01, class_type: 0x02, entry_point: 0x03, enumeration_type: 0x04, formal_parameter: 0x05,
  imported_declaration: 0x08, label: 0x0a, lexical_block: 0x0b, member: 0x0d, pointer_type: 0x0f,
  reference_type: 0x10, compile_unit: 0x11, string_type: 0x12, structure_type: 0x13, subroutine_type: 0x15,
  typedef: 0x16, union_type: 0x17, unspecified_parameters: 0x18, variant: 0x19, common_block: 0x1a,
  common_inclusion: 0x1b, inheritance: 0x1c, inlined_subroutine: 0x1d, module: 0x1e, ptr_to_member_type: 0x1f,
  set_type: 0x20, subrange_type: 0x21, with_stmt: 0x22, access_declaration: 0x23, base_type: 0x24,
  catch_block: 0x25, const_type: 0x26, constant: 0x27, enumerator: 0x28, file_type: 0x29, friend: 0x2a,
  namelist: 0x2b, namelist_item: 0x2c, packed_type: 0x2d, subprogram: 0x2e, template_type_parameter: 0x2f,
  template_value_parameter: 0x30, thrown_type: 0x31, try_block: 0x32, variant_part: 0x33, variable: 0x34,
  volatile_type: 0x35, dwarf_procedure: 0x36, restrict_type: 0x37, interface_type: 0x38, namespace: 0x39,
  imported_module: 0x3a, unspecified_type: 0x3b, partial_unit: 0x3c, imported_unit: 0x3d, condition: 0x3f,
  shared_type: 0x40, type_unit: 0x41, rvalue_reference_type: 0x42, template_alias: 0x43, coarray_type: 0x44,
  generic_subrange: 0x45, dynamic_type: 0x46, atomic_type: 0x47, call_site: 0x48, call_site_parameter: 0x49,
  skeleton_unit: 0x4a, immutable_type: 0x4b,
  GNU_template_template_param: 0x4106, GNU_template_parameter_pack: 0x4107,
  GNU_formal_parameter_pack: 0x4108, GNU_call_site: 0x4109, GNU_call_site_parameter: 0x410a,
} as const;

const TAG_NAMES = table(Object.entries(DW_TAG).map(([k, v]) => ['DW_TAG_' + k, v] as const));

export function tagName(tag: number): string {
  return TAG_NAMES.get(tag) ?? (tag >= 0x4080 && tag <= 0xffff ? `DW_TAG_lo_user+${hex(tag - 0x4080)}` : `unknown DW_TAG ${hex(tag)}`);
}
export function tagByName(name: string): number | undefined {
  return TAG_BY_NAME.get(name);
}
const TAG_BY_NAME = reverse(TAG_NAMES);

// ---- attributes -------------------------------------------------------------------------------

export const DW_AT = {
  sibling: 0x01, location: 0x02, name: 0x03, ordering: 0x09, subscr_data: 0x0a, byte_size: 0x0b,
  bit_offset: 0x0c, bit_size: 0x0d, element_list: 0x0f, stmt_list: 0x10, low_pc: 0x11, high_pc: 0x12,
  language: 0x13, member: 0x14, discr: 0x15, discr_value: 0x16, visibility: 0x17, import: 0x18,
  string_length: 0x19, common_reference: 0x1a, comp_dir: 0x1b, const_value: 0x1c, containing_type: 0x1d,
  default_value: 0x1e, inline: 0x20, is_optional: 0x21, lower_bound: 0x22, producer: 0x25, prototyped: 0x27,
  return_addr: 0x2a, start_scope: 0x2c, bit_stride: 0x2e, upper_bound: 0x2f, abstract_origin: 0x31,
  accessibility: 0x32, address_class: 0x33, artificial: 0x34, base_types: 0x35, calling_convention: 0x36,
  count: 0x37, data_member_location: 0x38, decl_column: 0x39, decl_file: 0x3a, decl_line: 0x3b,
  declaration: 0x3c, discr_list: 0x3d, encoding: 0x3e, external: 0x3f, frame_base: 0x40, friend: 0x41,
  identifier_case: 0x42, macro_info: 0x43, namelist_item: 0x44, priority: 0x45, segment: 0x46,
  specification: 0x47, static_link: 0x48, type: 0x49, use_location: 0x4a, variable_parameter: 0x4b,
  virtuality: 0x4c, vtable_elem_location: 0x4d, allocated: 0x4e, associated: 0x4f, data_location: 0x50,
  byte_stride: 0x51, entry_pc: 0x52, use_UTF8: 0x53, extension: 0x54, ranges: 0x55, trampoline: 0x56,
  call_column: 0x57, call_file: 0x58, call_line: 0x59, description: 0x5a, binary_scale: 0x5b,
  decimal_scale: 0x5c, small: 0x5d, decimal_sign: 0x5e, digit_count: 0x5f, picture_string: 0x60,
  mutable: 0x61, threads_scaled: 0x62, explicit: 0x63, object_pointer: 0x64, endianity: 0x65,
  elemental: 0x66, pure: 0x67, recursive: 0x68, signature: 0x69, main_subprogram: 0x6a,
  data_bit_offset: 0x6b, const_expr: 0x6c, enum_class: 0x6d, linkage_name: 0x6e,
  string_length_bit_size: 0x6f, string_length_byte_size: 0x70, rank: 0x71, str_offsets_base: 0x72,
  addr_base: 0x73, rnglists_base: 0x74, dwo_name: 0x76, reference: 0x77, rvalue_reference: 0x78,
  macros: 0x79, call_all_calls: 0x7a, call_all_source_calls: 0x7b, call_all_tail_calls: 0x7c,
  call_return_pc: 0x7d, call_value: 0x7e, call_origin: 0x7f, call_parameter: 0x80, call_pc: 0x81,
  call_tail_call: 0x82, call_target: 0x83, call_target_clobbered: 0x84, call_data_location: 0x85,
  call_data_value: 0x86, noreturn: 0x87, alignment: 0x88, export_symbols: 0x89, deleted: 0x8a,
  defaulted: 0x8b, loclists_base: 0x8c,
  MIPS_linkage_name: 0x2007,
  GNU_vector: 0x2107, GNU_template_name: 0x2110, GNU_call_site_value: 0x2111, GNU_all_tail_call_sites: 0x2116,
  GNU_all_call_sites: 0x2117, GNU_pubnames: 0x2134,
} as const;

const AT_NAMES = table(Object.entries(DW_AT).map(([k, v]) => ['DW_AT_' + k, v] as const));
const AT_BY_NAME = reverse(AT_NAMES);

export function attrName(at: number): string {
  return AT_NAMES.get(at) ?? (at >= 0x2000 && at <= 0x3fff ? `DW_AT_lo_user+${hex(at - 0x2000)}` : `unknown DW_AT ${hex(at)}`);
}
export function attrByName(name: string): number | undefined {
  return AT_BY_NAME.get(name);
}

// ---- forms ------------------------------------------------------------------------------------

export const DW_FORM = {
  addr: 0x01, block2: 0x03, block4: 0x04, data2: 0x05, data4: 0x06, data8: 0x07, string: 0x08,
  block: 0x09, block1: 0x0a, data1: 0x0b, flag: 0x0c, sdata: 0x0d, strp: 0x0e, udata: 0x0f,
  ref_addr: 0x10, ref1: 0x11, ref2: 0x12, ref4: 0x13, ref8: 0x14, ref_udata: 0x15, indirect: 0x16,
  sec_offset: 0x17, exprloc: 0x18, flag_present: 0x19, strx: 0x1a, addrx: 0x1b, ref_sup4: 0x1c,
  strp_sup: 0x1d, data16: 0x1e, line_strp: 0x1f, ref_sig8: 0x20, implicit_const: 0x21, loclistx: 0x22,
  rnglistx: 0x23, ref_sup8: 0x24, strx1: 0x25, strx2: 0x26, strx3: 0x27, strx4: 0x28, addrx1: 0x29,
  addrx2: 0x2a, addrx3: 0x2b, addrx4: 0x2c,
  GNU_addr_index: 0x1f01, GNU_str_index: 0x1f02, GNU_ref_alt: 0x1f20, GNU_strp_alt: 0x1f21,
} as const;

const FORM_NAMES = table(Object.entries(DW_FORM).map(([k, v]) => ['DW_FORM_' + k, v] as const));

export function formName(form: number): string {
  return FORM_NAMES.get(form) ?? `unknown DW_FORM ${hex(form)}`;
}

// ---- base type encodings, languages, misc -----------------------------------------------------

export const DW_ATE = {
  address: 0x01, boolean: 0x02, complex_float: 0x03, float: 0x04, signed: 0x05, signed_char: 0x06,
  unsigned: 0x07, unsigned_char: 0x08, imaginary_float: 0x09, packed_decimal: 0x0a, numeric_string: 0x0b,
  edited: 0x0c, signed_fixed: 0x0d, unsigned_fixed: 0x0e, decimal_float: 0x0f, UTF: 0x10, UCS: 0x11, ASCII: 0x12,
} as const;
const ATE_NAMES = table(Object.entries(DW_ATE).map(([k, v]) => ['DW_ATE_' + k, v] as const));
export function encodingName(v: number): string {
  return ATE_NAMES.get(v) ?? `unknown DW_ATE ${hex(v)}`;
}

const LANG_NAMES = table([
  ['DW_LANG_C89', 0x01], ['DW_LANG_C', 0x02], ['DW_LANG_Ada83', 0x03], ['DW_LANG_C_plus_plus', 0x04],
  ['DW_LANG_Cobol74', 0x05], ['DW_LANG_Cobol85', 0x06], ['DW_LANG_Fortran77', 0x07], ['DW_LANG_Fortran90', 0x08],
  ['DW_LANG_Pascal83', 0x09], ['DW_LANG_Modula2', 0x0a], ['DW_LANG_Java', 0x0b], ['DW_LANG_C99', 0x0c],
  ['DW_LANG_Ada95', 0x0d], ['DW_LANG_Fortran95', 0x0e], ['DW_LANG_PLI', 0x0f], ['DW_LANG_ObjC', 0x10],
  ['DW_LANG_ObjC_plus_plus', 0x11], ['DW_LANG_UPC', 0x12], ['DW_LANG_D', 0x13], ['DW_LANG_Python', 0x14],
  ['DW_LANG_OpenCL', 0x15], ['DW_LANG_Go', 0x16], ['DW_LANG_Modula3', 0x17], ['DW_LANG_Haskell', 0x18],
  ['DW_LANG_C_plus_plus_03', 0x19], ['DW_LANG_C_plus_plus_11', 0x1a], ['DW_LANG_OCaml', 0x1b],
  ['DW_LANG_Rust', 0x1c], ['DW_LANG_C11', 0x1d], ['DW_LANG_Swift', 0x1e], ['DW_LANG_Julia', 0x1f],
  ['DW_LANG_Dylan', 0x20], ['DW_LANG_C_plus_plus_14', 0x21], ['DW_LANG_Fortran03', 0x22],
  ['DW_LANG_Fortran08', 0x23], ['DW_LANG_RenderScript', 0x24], ['DW_LANG_BLISS', 0x25],
]);
export function languageName(v: number): string {
  return LANG_NAMES.get(v) ?? `unknown DW_LANG ${hex(v)}`;
}

const INL_NAMES = table([
  ['DW_INL_not_inlined', 0], ['DW_INL_inlined', 1], ['DW_INL_declared_not_inlined', 2], ['DW_INL_declared_inlined', 3],
]);
export function inlineName(v: number): string {
  return INL_NAMES.get(v) ?? `unknown DW_INL ${hex(v)}`;
}

const ACCESS_NAMES = table([['DW_ACCESS_public', 1], ['DW_ACCESS_protected', 2], ['DW_ACCESS_private', 3]]);
export function accessibilityName(v: number): string {
  return ACCESS_NAMES.get(v) ?? `unknown DW_ACCESS ${hex(v)}`;
}

// ---- CUDA address classes (PTX interoperability guide §5.2) ------------------------------------

/** NVIDIA `DW_AT_address_class` codes. */
export const ADDR_CLASS = {
  code: 1, reg: 2, sreg: 3, const: 4, global: 5, local: 6, param: 7, shared: 8, surf: 9, tex: 10,
  tex_sampler: 11, generic: 12,
} as const;
export type AddressClassName = keyof typeof ADDR_CLASS;

const ADDR_CLASS_NAMES = new Map<number, AddressClassName>(
  (Object.entries(ADDR_CLASS) as [AddressClassName, number][]).map(([k, v]) => [v, k]),
);

/** Short name of a CUDA address class ('shared'), or undefined for an unknown code. */
export function addressClassKey(code: number): AddressClassName | undefined {
  return ADDR_CLASS_NAMES.get(code);
}
/** `ADDR_shared_space`, or "unknown DW_ADDR 0x…". */
export function addressClassName(code: number): string {
  const k = ADDR_CLASS_NAMES.get(code);
  return k === undefined ? `unknown DW_ADDR ${hex(code)}` : `ADDR_${k}_space`;
}

// ---- unit types (DWARF 5) ---------------------------------------------------------------------

export const DW_UT = {
  compile: 0x01, type: 0x02, partial: 0x03, skeleton: 0x04, split_compile: 0x05, split_type: 0x06,
} as const;

// ---- location/range list entry kinds (DWARF 5) -----------------------------------------------

export const DW_LLE = {
  end_of_list: 0, base_addressx: 1, startx_endx: 2, startx_length: 3, offset_pair: 4, default_location: 5,
  base_address: 6, start_end: 7, start_length: 8,
} as const;
export const DW_RLE = {
  end_of_list: 0, base_addressx: 1, startx_endx: 2, startx_length: 3, offset_pair: 4, base_address: 5,
  start_end: 6, start_length: 7,
} as const;

// ---- expression operations --------------------------------------------------------------------

export const DW_OP = {
  addr: 0x03, deref: 0x06, const1u: 0x08, const1s: 0x09, const2u: 0x0a, const2s: 0x0b, const4u: 0x0c,
  const4s: 0x0d, const8u: 0x0e, const8s: 0x0f, constu: 0x10, consts: 0x11, dup: 0x12, drop: 0x13,
  over: 0x14, pick: 0x15, swap: 0x16, rot: 0x17, xderef: 0x18, abs: 0x19, and: 0x1a, div: 0x1b,
  minus: 0x1c, mod: 0x1d, mul: 0x1e, neg: 0x1f, not: 0x20, or: 0x21, plus: 0x22, plus_uconst: 0x23,
  shl: 0x24, shr: 0x25, shra: 0x26, xor: 0x27, bra: 0x28, eq: 0x29, ge: 0x2a, gt: 0x2b, le: 0x2c,
  lt: 0x2d, ne: 0x2e, skip: 0x2f, lit0: 0x30, reg0: 0x50, breg0: 0x70, regx: 0x90, fbreg: 0x91,
  bregx: 0x92, piece: 0x93, deref_size: 0x94, xderef_size: 0x95, nop: 0x96, push_object_address: 0x97,
  call2: 0x98, call4: 0x99, call_ref: 0x9a, form_tls_address: 0x9b, call_frame_cfa: 0x9c,
  bit_piece: 0x9d, implicit_value: 0x9e, stack_value: 0x9f, implicit_pointer: 0xa0, addrx: 0xa1,
  constx: 0xa2, entry_value: 0xa3, const_type: 0xa4, regval_type: 0xa5, deref_type: 0xa6,
  xderef_type: 0xa7, convert: 0xa8, reinterpret: 0xa9,
  GNU_push_tls_address: 0xe0, GNU_uninit: 0xf0, GNU_encoded_addr: 0xf1, GNU_implicit_pointer: 0xf2,
  GNU_entry_value: 0xf3, GNU_const_type: 0xf4, GNU_regval_type: 0xf5, GNU_deref_type: 0xf6,
  GNU_convert: 0xf7, GNU_reinterpret: 0xf9, GNU_parameter_ref: 0xfa, GNU_addr_index: 0xfb,
  GNU_const_index: 0xfc,
} as const;

const OP_NAMES: ReadonlyMap<number, string> = (() => {
  const m = new Map<number, string>();
  for (const [k, v] of Object.entries(DW_OP)) m.set(v, 'DW_OP_' + k);
  for (let i = 0; i < 32; i++) {
    m.set(0x30 + i, `DW_OP_lit${i}`);
    m.set(0x50 + i, `DW_OP_reg${i}`);
    m.set(0x70 + i, `DW_OP_breg${i}`);
  }
  return m;
})();

export function opName(op: number): string {
  return OP_NAMES.get(op) ?? (op >= 0xe0 ? `DW_OP_lo_user+${hex(op - 0xe0)}` : `unknown DW_OP ${hex(op)}`);
}
export function opByName(name: string): number | undefined {
  for (const [v, n] of OP_NAMES) if (n === name) return v;
  return undefined;
}
