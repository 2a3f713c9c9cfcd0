/**
 * Constant slots of a function, for inlining into generated blocks: an immediate operand lives in
 * a slot of the register file that every frame copies from the function's template (compile/
 * slots.ts constBits) and no instruction writes. They are the slots past the PTX registers whose
 * template value is not zero and that are not special registers (filled per frame): scratch slots
 * start at zero, so a zero constant is left to its load, which reads the same zero.
 */
import type { CFunction } from '../compiled.js';
import type { View } from '../codegen.js';

/** By slot base: the template's two words (the same in every lane). */
export type Constants = ReadonlyMap<number, { readonly lo: number; readonly hi: number }>;

export function constantSlots(fn: CFunction): Constants {
  const out = new Map<number, { lo: number; hi: number }>();
  const u32 = new Uint32Array(fn.template);
  const special = new Set(fn.specials.map((s) => s.base));
  for (let base = fn.prog.regs.length * 64; base + 64 <= u32.length; base += 64) {
    if (special.has(base)) continue;
    const lo = u32[base]!, hi = u32[base + 1]!;
    if (lo === 0 && hi === 0) continue;
    let same = true;
    for (let l = 1; l < 32 && same; l++) same = u32[base + 2 * l] === lo && u32[base + 2 * l + 1] === hi;
    if (same) out.set(base, { lo, hi });
  }
  return out;
}

const W = new Uint32Array(2);
const F32 = new Float32Array(W.buffer);
const F64 = new Float64Array(W.buffer);

/** A number as source text that evaluates to exactly it (undefined for NaN: its payload stays in memory). */
function literal(x: number): string | undefined {
  if (Number.isNaN(x)) return undefined;
  return Object.is(x, -0) ? '-0' : String(x);
}

/** The read of source `name` (view `v`) from constant slot `base` as a literal, or undefined when not a constant. */
export function constantRead(consts: Constants, v: View, name: string, base: number): string | undefined {
  const c = consts.get(base);
  if (c === undefined) return undefined;
  W[0] = c.lo; W[1] = c.hi;
  switch (v) {
    case 'i': return `const ${name} = ${c.lo | 0};`;
    case 'u': return `const ${name} = ${c.lo};`;
    case 'p': return `const ${name} = ${c.lo !== 0};`;
    case 'l': return `const ${name}lo = ${c.lo}, ${name}hi = ${c.hi};`;
    case 'f': { const s = literal(F32[0]!); return s === undefined ? undefined : `const ${name} = ${s};`; }
    case 'd': { const s = literal(F64[0]!); return s === undefined ? undefined : `const ${name} = ${s};`; }
    default: return undefined;
  }
}
