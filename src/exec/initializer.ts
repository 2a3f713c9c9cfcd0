/**
 * Where each scalar of a variable's initializer goes: a flat list of (byte offset, scalar type)
 * in declaration order, through arrays, vectors and struct fields (packed, as varSize lays them
 * out), so that `{7, 2.5, -3}` for a struct of (s32, f32, s16) fills 4 + 4 + 2 bytes, not 3 bytes.
 */
import type { StructDecl, VarDecl } from '../ptx/ast.js';
import { varSize } from '../ptx/resolve.js';
import { typeSize } from '../ptx/types.js';

export interface Slot { readonly off: number; readonly type: string }

export function initializerSlots(decl: VarDecl, structs: Map<string, StructDecl>, limit: number): Slot[] {
  const out: Slot[] = [];
  const elemSize = (d: VarDecl): number => {
    const st = structs.get(d.type);
    const one = st ? varSize({ ...d, dims: [], vector: 1 }, structs) : typeSize(d.type) || 1;
    return one * (d.vector === 3 ? 4 : d.vector);
  };
  const count = (d: VarDecl): number => d.dims.reduce<number>((n, x) => n * (x ?? 0), 1) || (d.dims.length ? 0 : 1);
  const walk = (d: VarDecl, base: number, depth: number): void => {
    if (depth > 16) return; // a struct that contains itself: nothing sensible to fill
    const st = structs.get(d.type);
    const n = d.dims.length && d.dims.includes(null) ? Math.floor((limit - base) / Math.max(1, elemSize(d))) : count(d);
    for (let i = 0; i < n && out.length < limit; i++) {
      const at = base + i * elemSize(d);
      if (st) {
        let off = at;
        for (const f of st.fields) {
          walk(f, off, depth + 1);
          if (!st.isUnion) off += varSize(f, structs);
        }
      } else {
        const s = typeSize(d.type) || 1;
        for (let k = 0; k < Math.max(1, d.vector === 3 ? 3 : d.vector); k++) out.push({ off: at + k * s, type: d.type });
      }
    }
  };
  walk(decl, 0, 0);
  return out;
}
