/**
 * Scopes: subprograms, lexical blocks and inlined subroutines with their pc ranges, and the API
 * "which variables are in scope at this pc / at (function, instruction index)".
 *
 * Addresses are whatever the resolver produced (see assemble.ts). With the default resolver,
 * instruction i of function f is at `f << 32 | i` and DWARF ranges are half-open [low, high).
 */
import { addressClassKey, DW_AT, DW_TAG } from './constants.js';
import type { Dwarf, LocationDescription } from './dwarf.js';
import { evaluate, type EvalContext, type EvalResult, type Operation } from './expr.js';
import type { Die, DieNode } from './info.js';
import type { Range } from './lists.js';
import { typeName, TypeTable, type DwarfType } from './types.js';

export type ScopeKind = 'subprogram' | 'lexical_block' | 'inlined_subroutine';

export interface VariableInfo {
  readonly name: string;
  readonly kind: 'parameter' | 'variable';
  /** The concrete DIE (with the location). */
  readonly die: Die;
  /** The DIE holding name/type/decl (the abstract origin for inlined copies, else `die`). */
  readonly declaration: Die;
  readonly type: DwarfType;
  /** gdb spelling of the type. */
  readonly typeName: string;
  /** CUDA DW_AT_address_class code, and its short name ('reg', 'local', 'param', 'shared', ...). */
  readonly addressClass: number | undefined;
  readonly space: string | undefined;
  readonly location: LocationDescription | undefined;
  readonly declFile: string | undefined;
  readonly declLine: number | undefined;
}

export interface Scope {
  readonly kind: ScopeKind;
  readonly die: Die;
  /** Subprogram / inlined function name; undefined for lexical blocks. */
  readonly name: string | undefined;
  /** Empty when the DIE has no pc attributes (then it covers its parent's range). */
  readonly ranges: readonly Range[];
  readonly variables: readonly VariableInfo[];
  readonly children: readonly Scope[];
  readonly parent: Scope | undefined;
}

export interface FunctionInfo extends Scope {
  readonly kind: 'subprogram';
  /** DW_AT_MIPS_linkage_name / DW_AT_linkage_name: the PTX function name. */
  readonly linkageName: string | undefined;
  readonly frameBase: LocationDescription | undefined;
}

export interface VisibleVariable extends VariableInfo {
  /** The scope declaring it, and how far out it is (0 = innermost scope containing the pc). */
  readonly scope: Scope;
  readonly depth: number;
  /** A variable of the same name in an inner scope hides this one. */
  readonly shadowed: boolean;
  /** Operations describing the location at this pc; undefined when it has none here. */
  readonly ops: readonly Operation[] | undefined;
}

export function rangesContain(ranges: readonly Range[], pc: bigint): boolean {
  return ranges.some((r) => pc >= r.begin.address && pc < r.end.address);
}

/** The location expression that applies at `pc` (a list picks its covering entry). */
export function locationOpsAt(dwarf: Dwarf, die: Die, loc: LocationDescription | undefined, pc: bigint): readonly Operation[] | undefined {
  if (!loc) return undefined;
  if (loc.kind === 'expression') return loc.ops;
  let fallback: readonly Operation[] | undefined;
  for (const e of loc.entries) {
    if (e.isDefault) { fallback = dwarf.expression(die.unit, e.expression).ops; continue; }
    if (pc >= e.begin.address && pc < e.end.address) return dwarf.expression(die.unit, e.expression).ops;
  }
  return fallback;
}

export class ScopeIndex {
  readonly types: TypeTable;
  private funcs: FunctionInfo[] | undefined;

  constructor(readonly dwarf: Dwarf, types?: TypeTable) {
    this.types = types ?? new TypeTable(dwarf);
  }

  /** All subprograms with code (concrete, with pc ranges), in DIE order. */
  functions(): readonly FunctionInfo[] {
    if (this.funcs) return this.funcs;
    const out: FunctionInfo[] = [];
    for (const u of this.dwarf.units()) {
      const root = u.root();
      if (!root) continue;
      const visit = (n: DieNode): void => {
        for (const c of n.children) {
          if (c.die.tag === DW_TAG.subprogram) {
            const ranges = this.dwarf.pcRanges(c.die);
            if (ranges.length) out.push(this.buildScope(c, undefined) as FunctionInfo);
          } else if (c.die.tag === DW_TAG.namespace || c.die.tag === DW_TAG.module) visit(c);
        }
      };
      visit(root);
    }
    this.funcs = out;
    return out;
  }

  /** The function whose linkage name (PTX name) or DW_AT_name is `name`. */
  functionNamed(name: string): FunctionInfo | undefined {
    const fs = this.functions();
    return fs.find((f) => f.linkageName === name) ?? fs.find((f) => f.name === name);
  }

  functionAt(pc: bigint): FunctionInfo | undefined {
    return this.functions().find((f) => rangesContain(f.ranges, pc));
  }

  /** Scopes containing pc, innermost first (the last is the function). */
  scopesAt(pc: bigint): Scope[] {
    const f = this.functionAt(pc);
    if (!f) return [];
    const chain: Scope[] = [f];
    let cur: Scope = f;
    for (;;) {
      const next: Scope | undefined = cur.children.find((c) => c.ranges.length === 0 || rangesContain(c.ranges, pc));
      if (!next) break;
      chain.push(next);
      cur = next;
    }
    return chain.reverse();
  }

  private globalList: VariableInfo[] | undefined;

  /** Unit-level variables (`.global/.shared/.const` variables, DW_TAG_variable children of the CU). */
  globals(): readonly VariableInfo[] {
    if (this.globalList) return this.globalList;
    const out: VariableInfo[] = [];
    for (const u of this.dwarf.units()) {
      for (const c of u.root()?.children ?? []) {
        if (c.die.tag !== DW_TAG.variable) continue;
        const v = this.variable(c.die, 'variable');
        if (v && v.location) out.push(v);
      }
    }
    this.globalList = out;
    return out;
  }

  /**
   * Variables and parameters visible at pc, innermost scope first; unit-level variables last
   * (their `scope` is the function, `depth` one more than the outermost function scope).
   */
  variablesAt(pc: bigint): VisibleVariable[] {
    const out: VisibleVariable[] = [];
    const seen = new Set<string>();
    const scopes = this.scopesAt(pc);
    if (scopes.length === 0) return out;
    scopes.forEach((scope, depth) => {
      const inner = new Set<string>();
      for (const v of scope.variables) {
        out.push({ ...v, scope, depth, shadowed: seen.has(v.name), ops: locationOpsAt(this.dwarf, v.die, v.location, pc) });
        inner.add(v.name);
      }
      for (const n of inner) seen.add(n);
    });
    const fn = scopes[scopes.length - 1]!;
    for (const g of this.globals()) {
      out.push({ ...g, scope: fn, depth: scopes.length, shadowed: seen.has(g.name), ops: locationOpsAt(this.dwarf, g.die, g.location, pc) });
    }
    return out;
  }

  /**
   * Address of instruction `index` of PTX function `fn` under the Dwarf's resolver, or undefined
   * when the function is unknown (or the Dwarf was not built from a module).
   */
  instructionAddress(fn: string, index: number): bigint | undefined {
    return this.dwarf.symbols?.instructionAddress(fn, index);
  }

  /** Variables visible at instruction `index` (counting instructions only) of PTX function `fn`. */
  variablesAtInstruction(fn: string, index: number): VisibleVariable[] {
    const pc = this.instructionAddress(fn, index);
    return pc === undefined ? [] : this.variablesAt(pc);
  }

  /**
   * Evaluate a visible variable's location at its pc. The frame base defaults to the function's
   * DW_AT_frame_base evaluated with the same context (nvcc: DW_OP_call_frame_cfa).
   */
  evaluateVariable(v: VisibleVariable, ctx: EvalContext = {}): EvalResult {
    if (!v.ops) return { ok: false, error: `${v.name} has no location at this pc`, location: undefined };
    let fn: Scope | undefined = v.scope;
    while (fn && fn.kind !== 'subprogram') fn = fn.parent;
    const fb = (fn as FunctionInfo | undefined)?.frameBase;
    const full: EvalContext = {
      addressSize: v.die.unit.header.addressSize,
      ...ctx,
      frameBase: ctx.frameBase ?? (() => {
        if (!fb || fb.kind !== 'expression') return undefined;
        const r = evaluate(fb.ops, { ...ctx, addressSize: v.die.unit.header.addressSize });
        return r.ok && r.location.kind === 'memory' ? r.location.address : r.ok && r.location.kind === 'value' ? r.location.value : undefined;
      }),
    };
    return evaluate(v.ops, full);
  }

  // ---- building ---------------------------------------------------------------------------------

  private buildScope(n: DieNode, parent: Scope | undefined): Scope {
    const die = n.die;
    const kind: ScopeKind = die.tag === DW_TAG.subprogram ? 'subprogram' : die.tag === DW_TAG.inlined_subroutine ? 'inlined_subroutine' : 'lexical_block';
    const origin = die.ref(DW_AT.abstract_origin) ?? die.ref(DW_AT.specification);
    const variables: VariableInfo[] = [];
    const children: Scope[] = [];
    const scope = {
      kind, die, name: die.name ?? origin?.name, ranges: this.dwarf.pcRanges(die), variables, children, parent,
      ...(kind === 'subprogram'
        ? {
            linkageName: die.string(DW_AT.MIPS_linkage_name) ?? die.string(DW_AT.linkage_name) ??
              origin?.string(DW_AT.MIPS_linkage_name) ?? origin?.string(DW_AT.linkage_name),
            frameBase: this.dwarf.location(die, DW_AT.frame_base),
          }
        : {}),
    } as Scope;
    for (const c of n.children) {
      const t = c.die.tag;
      if (t === DW_TAG.variable || t === DW_TAG.formal_parameter) {
        const v = this.variable(c.die, t === DW_TAG.formal_parameter ? 'parameter' : 'variable');
        if (v) variables.push(v);
      } else if (t === DW_TAG.lexical_block || t === DW_TAG.inlined_subroutine) {
        children.push(this.buildScope(c, scope));
      }
    }
    return scope;
  }

  private variable(die: Die, kind: 'parameter' | 'variable'): VariableInfo | undefined {
    const decl = die.ref(DW_AT.abstract_origin) ?? die.ref(DW_AT.specification) ?? die;
    const name = die.name ?? decl.name;
    if (name === undefined) return undefined;
    const typeDie = die.has(DW_AT.type) ? die : decl;
    const type = this.types.typeOfAttr(typeDie);
    const addressClass = die.udata(DW_AT.address_class) ?? decl.udata(DW_AT.address_class);
    const file = this.dwarf.attr(decl, DW_AT.decl_file);
    return {
      name, kind, die, declaration: decl, type, typeName: typeName(type),
      addressClass, space: addressClass === undefined ? undefined : addressClassKey(addressClass),
      location: this.dwarf.location(die) ?? (decl !== die ? this.dwarf.location(decl) : undefined),
      declFile: file?.kind === 'file' ? file.name : undefined,
      declLine: decl.udata(DW_AT.decl_line),
    };
  }
}
