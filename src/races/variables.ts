/**
 * Addresses to names for race reports: a shared or global address → the PTX variable holding
 * it → its DWARF variable (matched by the `DW_OP_addr` relocation symbol) → the element, from
 * the DWARF type: `tile[3][17]`, `cells[2].count`. Launch buffers have no DWARF variable and are
 * named by the launch (`total[0]`). Built lazily: only a run that reports something pays for DWARF.
 */
import { Dwarf, resolveType, ScopeIndex, sizeOf, type DwarfType, type Scope, type VariableInfo } from '../../dwarf/src/index.js';
import { elemSize } from '../exec/launch.js';
import type { Machine } from '../exec/machine.js';
import type { VarInfo } from '../ptx/resolve.js';
import { moduleDwarf } from '../ptx/dwarf.js';

export interface AddressName {
  variable: string | null;
  symbol: string | null;
  symbolOffset: number | null;
  buffer: string | null;
}

/** `[i][j]...` and `.member` path of byte `off` inside a value of type `t`. */
export function elementPath(t: DwarfType, off: number, depth = 0): string {
  if (depth > 16 || off < 0) return '';
  const r = resolveType(t);
  if (r.kind === 'array') {
    const esize = sizeOf(r.element);
    if (!esize) return '';
    const dims = r.dims.length ? r.dims : [undefined];
    // strides per dimension, innermost = element size
    const strides: number[] = new Array<number>(dims.length);
    let s = esize;
    for (let i = dims.length - 1; i >= 0; i--) {
      strides[i] = s;
      s *= dims[i] ?? 1;
    }
    let rest = off;
    let out = '';
    for (let i = 0; i < dims.length; i++) {
      const k = Math.floor(rest / strides[i]!);
      out += `[${k}]`;
      rest -= k * strides[i]!;
    }
    return out + elementPath(r.element, rest, depth + 1);
  }
  if (r.kind === 'struct' || r.kind === 'class' || r.kind === 'union') {
    for (const m of r.members) {
      const size = sizeOf(m.type) ?? 0;
      if (off >= m.offset && off < m.offset + Math.max(size, 1)) {
        const name = m.name ?? (m.isBase ? '<base>' : '<anonymous>');
        return `.${name}${elementPath(m.type, off - m.offset, depth + 1)}`;
      }
    }
  }
  return '';
}

export class AddressNamer {
  private bySymbol: Map<string, VariableInfo> | undefined;

  constructor(private readonly machine: Machine) {}

  /** DWARF variables whose location is the address of a PTX symbol, by that symbol. */
  private symbols(): Map<string, VariableInfo> {
    if (this.bySymbol) return this.bySymbol;
    const map = new Map<string, VariableInfo>();
    try {
      const dwarf = moduleDwarf(this.machine.program.module);
      const scopes = new ScopeIndex(dwarf);
      const add = (v: VariableInfo): void => {
        const loc = v.location;
        if (loc?.kind !== 'expression' || loc.ops.length !== 1) return;
        const sym = loc.ops[0]!.reloc?.symbol;
        if (sym !== undefined && !map.has(sym)) map.set(sym, v);
      };
      const visit = (s: Scope): void => {
        for (const v of s.variables) add(v);
        for (const c of s.children) visit(c);
      };
      for (const f of scopes.functions()) visit(f);
      for (const g of scopes.globals()) add(g);
    } catch {
      // no usable DWARF (an -O3 build): names fall back to PTX symbols
    }
    this.bySymbol = map;
    return map;
  }

  private inVariable(vars: readonly VarInfo[], offset: number, extent: (v: VarInfo, lo: number) => number): { v: VarInfo; rel: number } | undefined {
    // a sized variable wins over an unsized (extern) one starting at the same place
    let dynamic: { v: VarInfo; rel: number } | undefined;
    for (const v of vars) {
      const a = this.machine.addressOf(v);
      if (!a || offset < a.lo || offset >= a.lo + extent(v, a.lo)) continue;
      if (v.size > 0) return { v, rel: offset - a.lo };
      dynamic ??= { v, rel: offset - a.lo };
    }
    return dynamic;
  }

  private named(hit: { v: VarInfo; rel: number } | undefined): AddressName {
    if (!hit) return { variable: null, symbol: null, symbolOffset: null, buffer: null };
    const dv = this.symbols().get(hit.v.name);
    const variable = dv ? `${dv.name}${elementPath(dv.type, hit.rel)}` : null;
    return { variable, symbol: hit.v.name, symbolOffset: hit.rel, buffer: null };
  }

  shared(offset: number): AddressName {
    const size = this.machine.mem.sharedSize;
    // `extern __shared__` arrays have size 0 in PTX and extend to the end of shared memory
    return this.named(this.inVariable(this.machine.program.shared, offset, (v, lo) => (v.size > 0 ? v.size : size - lo)));
  }

  global(offset: number): AddressName {
    const globals = this.machine.program.globals.filter((g) => g.space === 'global');
    const hit = this.inVariable(globals, offset, (v) => v.size);
    if (hit) return this.named(hit);
    for (const b of this.machine.buffers) {
      const es = elemSize(b.type);
      if (offset >= b.alloc.base && offset < b.alloc.base + b.count * es) {
        return { variable: null, symbol: null, symbolOffset: null, buffer: `${b.name}[${Math.floor((offset - b.alloc.base) / es)}]` };
      }
    }
    const a = this.machine.arena.allocationNear(offset);
    if (a && a.kind === 'heap' && offset < a.base + a.size) {
      return { variable: null, symbol: null, symbolOffset: null, buffer: `malloc block +${offset - a.base}` };
    }
    return { variable: null, symbol: null, symbolOffset: null, buffer: null };
  }
}
