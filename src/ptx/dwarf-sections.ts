/**
 * Assembles the `.section` directives of a PTX module into DWARF section bytes.
 *
 * Each `.b8/.b16/.b32/.b64` datum is written little-endian. A datum that names a symbol becomes a
 * relocation, resolved against the module:
 *
 * - a label in a function body (`$L__func_begin0`, `$L__tmp3`) → the instruction it precedes,
 *   as (function name, instruction index); the index counts `Instruction` statements only
 *   (labels, `.loc`, declarations and pragmas are not counted; nested `{ }` blocks are walked in
 *   order). A label after the last instruction gets index = instruction count (one past the end).
 * - a function name → its instruction 0;
 * - a variable (module-scope `.global/.shared/.const`, a function's `.param`, a variable declared
 *   in a function body such as `.local __local_depot0`) → (name, state space, owning function);
 * - another section (`.debug_abbrev`, `.debug_loc+16`) or a label inside a section → that
 *   section offset (+ addend). Each DWARF section starts at offset 0 of its own.
 *
 * A `SymbolResolver` turns instructions and variables into addresses. The engine supplies its own;
 * `defaultResolver` is used when decoding without an engine:
 *
 * - instruction `i` of the function with index `f` (index among functions *with a body*, in module
 *   order) is at address `f << 32 | i`, so pc ranges of one function are comparable and
 *   `[low_pc, high_pc)` is a half-open range of instruction indices;
 * - a variable is at `1 << 63 | spaceCode << 40 | ordinal << 8` where spaceCode is its CUDA
 *   address class (ADDR_CLASS) and ordinal its position in declaration order: a distinct,
 *   recognisable value; decoded values keep the symbol name anyway.
 *
 * Unresolvable symbols, values that don't fit their datum width and malformed sections produce
 * warnings naming section and offset; the datum then holds its addend (or the truncated value).
 */
import type { FunctionDecl, PtxModule, Section, Statement, VarDecl } from './ast.js';
import { ADDR_CLASS, Warnings, type Relocation, type RelocTarget, type SectionData } from '../../dwarf/src/index.js';

export interface InstructionRef {
  readonly function: string;
  /** Position of the function among the module's functions with a body. */
  readonly functionIndex: number;
  /** Index of the instruction, counting instructions only (0-based). */
  readonly instruction: number;
}

export interface VariableRef {
  readonly name: string;
  /** PTX state space: 'global', 'shared', 'const', 'param', 'local', ... */
  readonly space: string;
  /** The function declaring it (params, body variables), or undefined for module scope. */
  readonly function: string | undefined;
  /** Declaration order among all resolvable variables of the module. */
  readonly ordinal: number;
}

/** The engine's side of relocation: addresses for instructions and variables. */
export interface SymbolResolver {
  instructionAddress(ref: InstructionRef): bigint;
  variableAddress(ref: VariableRef): bigint;
}

const SPACE_CODE: Readonly<Record<string, number>> = {
  reg: ADDR_CLASS.reg, sreg: ADDR_CLASS.sreg, const: ADDR_CLASS.const, global: ADDR_CLASS.global,
  local: ADDR_CLASS.local, param: ADDR_CLASS.param, shared: ADDR_CLASS.shared, surf: ADDR_CLASS.surf,
  tex: ADDR_CLASS.tex, sampler: ADDR_CLASS.tex_sampler,
};

/** Synthetic addresses (see the module comment). */
export const defaultResolver: SymbolResolver = {
  instructionAddress: (ref) => (BigInt(ref.functionIndex) << 32n) | BigInt(ref.instruction),
  variableAddress: (ref) =>
    (1n << 63n) | (BigInt(SPACE_CODE[ref.space] ?? 0) << 40n) | (BigInt(ref.ordinal & 0xffffffff) << 8n),
};

/** Decompose a default-resolver address back into (function index, instruction index). */
export function splitDefaultAddress(addr: bigint): { functionIndex: number; instruction: number } {
  return { functionIndex: Number((addr >> 32n) & 0x7fffffffn), instruction: Number(addr & 0xffffffffn) };
}

/** Where every label, function and variable of a module is (built once per module). */
export class SymbolTable {
  readonly labels = new Map<string, InstructionRef>();
  readonly functions = new Map<string, InstructionRef & { readonly instructionCount: number }>();
  readonly variables = new Map<string, VariableRef>();
  /** Functions with a body, in module order (their index is `functionIndex`). */
  readonly functionList: FunctionDecl[] = [];
  /** `.file` index → path. */
  readonly files = new Map<number, string>();

  constructor(readonly module: PtxModule) {
    let ordinal = 0;
    const addVar = (v: VarDecl, fn: string | undefined): void => {
      if (v.space === 'reg' || v.space === 'sreg') return;
      if (!this.variables.has(v.name)) this.variables.set(v.name, { name: v.name, space: v.space, function: fn, ordinal: ordinal++ });
    };
    for (const item of module.items) {
      if (item.kind === 'var') addVar(item, undefined);
      else if (item.kind === 'file') this.files.set(item.index, item.path);
    }
    for (const item of module.items) {
      if (item.kind !== 'function' || item.body === undefined) continue;
      const functionIndex = this.functionList.length;
      this.functionList.push(item);
      for (const p of item.params) addVar(p, item.name);
      for (const r of item.rets) addVar(r, item.name);
      let count = 0;
      const walk = (body: readonly Statement[]): void => {
        for (const s of body) {
          switch (s.kind) {
            case 'instr': count++; break;
            case 'label':
              if (!this.labels.has(s.name)) this.labels.set(s.name, { function: item.name, functionIndex, instruction: count });
              break;
            case 'var': addVar(s, item.name); break;
            case 'block': walk(s.body); break;
            default: break;
          }
        }
      };
      walk(item.body);
      this.functions.set(item.name, { function: item.name, functionIndex, instruction: 0, instructionCount: count });
    }
  }
}

export interface AssembledSections {
  readonly sections: ReadonlyMap<string, SectionData>;
  readonly symbols: SymbolTable;
}

/** Byte offset of each datum of a section (index i → offset of datum i; last entry = size). */
function datumOffsets(s: Section): number[] {
  const offs: number[] = [];
  let o = 0;
  for (const d of s.data) {
    offs.push(o);
    o += d.width;
  }
  offs.push(o);
  return offs;
}

/**
 * Assemble every `.section` of `module`. Two sections of the same name are concatenated in order
 * (as an assembler would). Never throws; problems go to `warnings`.
 */
export function assembleSections(
  module: PtxModule,
  resolver: SymbolResolver = defaultResolver,
  warnings: Warnings = new Warnings(),
  symbols: SymbolTable = new SymbolTable(module),
): AssembledSections {
  // Group sections by name; record the base offset of each piece and of each section label.
  const pieces = new Map<string, { section: Section; base: number; offsets: number[] }[]>();
  const sectionLabels = new Map<string, { section: string; offset: number }>();
  const sizes = new Map<string, number>();
  for (const item of module.items) {
    if (item.kind !== 'section') continue;
    const offsets = datumOffsets(item);
    const base = sizes.get(item.name) ?? 0;
    const list = pieces.get(item.name) ?? [];
    list.push({ section: item, base, offsets });
    pieces.set(item.name, list);
    sizes.set(item.name, base + offsets[offsets.length - 1]!);
    for (const l of item.labels) sectionLabels.set(l.name, { section: item.name, offset: base + (offsets[l.datum] ?? offsets[offsets.length - 1]!) });
  }

  const out = new Map<string, SectionData>();
  for (const [name, list] of pieces) {
    const bytes = new Uint8Array(sizes.get(name) ?? 0);
    const view = new DataView(bytes.buffer);
    const relocations = new Map<number, Relocation>();
    for (const { section, base, offsets } of list) {
      section.data.forEach((d, i) => {
        const at = base + offsets[i]!;
        let value: bigint;
        if (d.kind === 'num') {
          value = d.value;
        } else {
          const target = resolveTarget(d.name, symbols, sectionLabels, sizes);
          let addr: bigint;
          switch (target.kind) {
            case 'label': addr = resolver.instructionAddress(target); break;
            case 'function': addr = resolver.instructionAddress({ ...target, instruction: 0 }); break;
            case 'variable': addr = resolver.variableAddress(symbols.variables.get(d.name)!); break;
            case 'section': addr = BigInt(target.sectionOffset); break;
            case 'unresolved':
              warnings.add(name, at, `bad relocation '${d.name}': no label, variable, function or section of that name`);
              addr = 0n;
              break;
          }
          value = addr + d.addend;
          const masked = BigInt.asUintN(d.width * 8, value);
          if (masked !== value && BigInt.asIntN(d.width * 8, value) !== value) {
            warnings.add(name, at, `bad relocation '${d.name}': value 0x${value.toString(16)} does not fit in ${d.width} byte(s)`);
          }
          relocations.set(at, { offset: at, width: d.width, symbol: d.name, addend: d.addend, target, value: masked });
        }
        const v = BigInt.asUintN(d.width * 8, value);
        if (d.kind === 'num' && v !== value && BigInt.asIntN(d.width * 8, value) !== value) {
          warnings.add(name, at, `value ${value} does not fit in .b${d.width * 8}; truncated`);
        }
        switch (d.width) {
          case 1: view.setUint8(at, Number(v)); break;
          case 2: view.setUint16(at, Number(v), true); break;
          case 4: view.setUint32(at, Number(v), true); break;
          case 8: view.setBigUint64(at, v, true); break;
        }
      });
    }
    out.set(name, { name, bytes, relocations });
  }
  return { sections: out, symbols };
}

function resolveTarget(
  name: string,
  symbols: SymbolTable,
  sectionLabels: ReadonlyMap<string, { section: string; offset: number }>,
  sizes: ReadonlyMap<string, number>,
): RelocTarget {
  const label = symbols.labels.get(name);
  if (label) return { kind: 'label', function: label.function, functionIndex: label.functionIndex, instruction: label.instruction };
  const v = symbols.variables.get(name);
  if (v) return { kind: 'variable', space: v.space, function: v.function };
  const f = symbols.functions.get(name);
  if (f) return { kind: 'function', function: f.function, functionIndex: f.functionIndex };
  const sl = sectionLabels.get(name);
  if (sl) return { kind: 'section', section: sl.section, sectionOffset: sl.offset };
  // A section name: `.debug_abbrev`, `.debug_line` (made by ptxas, absent from the PTX) etc.
  if (name.startsWith('.debug_') || sizes.has(name)) return { kind: 'section', section: name, sectionOffset: 0 };
  return { kind: 'unresolved' };
}
