/**
 * The debug information of one program, for `print` and `info locals`: the decoded DWARF, its
 * scopes and types, and name indexes (types for casts, enumerators). Built once per program;
 * never throws: a module without DWARF (an -O3 build) or with damaged DWARF gives a DebugInfo
 * that knows fewer names, and the problems are in `warnings`.
 */
import { DW_TAG } from '../../../dwarf/src/index.js';
import { Dwarf } from '../../../dwarf/src/index.js';
import { ScopeIndex, type Scope, type VariableInfo, type VisibleVariable } from '../../../dwarf/src/index.js';
import type { DwarfType, EnumType } from '../../../dwarf/src/index.js';
import type { Program } from '../../ptx/resolve.js';
import { RegisterDefs } from './regdefs.js';
import { moduleDwarf } from '../../ptx/dwarf.js';

/** A variable with static storage declared inside a function (a `__shared__` array in a kernel). */
export interface StaticVariable {
  readonly function: string;
  readonly variable: VariableInfo;
}

const TYPE_TAGS: ReadonlySet<number> = new Set([
  DW_TAG.base_type, DW_TAG.structure_type, DW_TAG.class_type, DW_TAG.union_type, DW_TAG.enumeration_type, DW_TAG.typedef,
]);

const built = new WeakMap<Program, DebugInfo>();

export class DebugInfo {
  private typeIndex: Map<string, DwarfType> | undefined;
  private enumIndex: Map<string, { type: EnumType; value: bigint }> | undefined;
  private staticList: StaticVariable[] | undefined;
  private readonly own: string[] = [];
  /** Which registers may have been written before an instruction (see regdefs.ts). */
  readonly regdefs = new RegisterDefs();

  private constructor(readonly program: Program, readonly dwarf: Dwarf, readonly scopes: ScopeIndex) {}

  /** The program's debug information, built once per program and shared. */
  static fromProgram(program: Program): DebugInfo {
    let d = built.get(program);
    if (!d) {
      const dwarf = moduleDwarf(program.module);
      d = new DebugInfo(program, dwarf, new ScopeIndex(dwarf));
      built.set(program, d);
    }
    return d;
  }

  /** DWARF problems found so far (decoding is lazy: the list grows as scopes are visited). */
  get warnings(): string[] {
    return [...this.dwarf.warnings.list, ...this.own];
  }

  /** True when the module has DWARF describing functions (a -G build). */
  get hasVariables(): boolean {
    return this.guard(() => this.scopes.functions().length > 0, false);
  }

  /** Variables visible at instruction `pc` of PTX function `fn`, innermost scope first. */
  visible(fn: string, pc: number): VisibleVariable[] {
    return this.guard(() => this.scopes.variablesAtInstruction(fn, pc), []);
  }

  /** Compile-unit-level variables (`__device__`, `__constant__`, file-scope `__shared__`). */
  globals(): readonly VariableInfo[] {
    return this.guard(() => this.scopes.globals(), []);
  }

  /** Static-storage variables declared in function scopes (kernel-scope `__shared__` arrays). */
  statics(): readonly StaticVariable[] {
    if (this.staticList) return this.staticList;
    const out: StaticVariable[] = [];
    this.guard(() => {
      for (const f of this.scopes.functions()) {
        const name = f.name ?? f.linkageName ?? '?';
        const visit = (s: Scope): void => {
          for (const v of s.variables) {
            if (v.space === 'shared' || v.space === 'global' || v.space === 'const') out.push({ function: name, variable: v });
          }
          for (const c of s.children) visit(c);
        };
        visit(f);
      }
      return undefined;
    }, undefined);
    this.staticList = out;
    return out;
  }

  /** A type by its C name (`Particle`, `struct Particle`, `u32`, `unsigned int`). */
  namedType(name: string): DwarfType | undefined {
    this.buildIndexes();
    return this.typeIndex!.get(name);
  }

  enumerator(name: string): { type: EnumType; value: bigint } | undefined {
    this.buildIndexes();
    return this.enumIndex!.get(name);
  }

  /** Record a problem found while evaluating (a location that cannot be used). */
  warn(text: string): void {
    if (!this.own.includes(text) && this.own.length < 100) this.own.push(text);
  }

  private buildIndexes(): void {
    if (this.typeIndex) return;
    const types = new Map<string, DwarfType>();
    const enums = new Map<string, { type: EnumType; value: bigint }>();
    this.guard(() => {
      for (const die of this.dwarf.allDies()) {
        if (!TYPE_TAGS.has(die.tag)) continue;
        const name = die.name;
        if (name === undefined) continue;
        const t = this.scopes.types.typeOf(die);
        const tagWord = die.tag === DW_TAG.structure_type ? 'struct' : die.tag === DW_TAG.class_type ? 'class'
          : die.tag === DW_TAG.union_type ? 'union' : die.tag === DW_TAG.enumeration_type ? 'enum' : undefined;
        const complete = !((t.kind === 'struct' || t.kind === 'class' || t.kind === 'union') && t.declaration);
        for (const key of tagWord ? [name, `${tagWord} ${name}`] : [name]) {
          if (!types.has(key) || complete) types.set(key, t);
        }
        if (t.kind === 'enum') for (const e of t.enumerators) if (!enums.has(e.name)) enums.set(e.name, { type: t, value: e.value });
      }
      return undefined;
    }, undefined);
    this.typeIndex = types;
    this.enumIndex = enums;
  }

  /** Run a DWARF query; an unexpected exception becomes a warning and the fallback. */
  private guard<R>(f: () => R, fallback: R): R {
    try {
      return f();
    } catch (e) {
      this.warn(`internal error while reading DWARF: ${e instanceof Error ? e.message : String(e)}`);
      return fallback;
    }
  }
}
