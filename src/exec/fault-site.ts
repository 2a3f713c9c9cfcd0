/**
 * Names the allocation an out-of-bounds global access hit or ran past, the way a CUDA programmer
 * thinks of it: `out[255]; out has 255 elements (1020 bytes)` instead of a bare address.
 */
import type { Allocation, GlobalArena } from './memory.js';

/** Accesses farther than this from every allocation are wild pointers, not overruns. */
const NEAR_BYTES = 1 << 20;

export interface ElementInfo { name: string; elemSize: number; count: number }

/**
 * Describe global offset `off` relative to the nearest live allocation, or undefined when none is
 * near. `elements` gives element sizes of launch buffers (by allocation base); other allocations
 * (.global variables, malloc blocks) are described in bytes.
 */
export function describeGlobalOffset(arena: GlobalArena, off: number, elements: ReadonlyMap<number, ElementInfo>): string | undefined {
  // a stale pointer into freed memory still quarantined: a use after free of that allocation
  const gone = arena.freedAt(off);
  if (gone) {
    const rel = off - gone.base;
    const where = rel < gone.size ? `${rel} bytes into` : `${rel - gone.size} bytes past the end of`;
    return `${where} \`${gone.name}\` (${gone.size} bytes), which was freed${gone.freedBy ? ` ${gone.freedBy}` : ''}: a use after free`;
  }
  let below: Allocation | undefined;
  let above: Allocation | undefined;
  for (const a of arena.allocs) {
    if (a.freed) continue;
    if (a.base <= off) { if (!below || a.base > below.base) below = a; }
    else if (!above || a.base < above.base) above = a;
  }
  const distBelow = below ? off - (below.base + below.size) : Infinity;
  const distAbove = above ? above.base - off : Infinity;
  const a = distBelow <= distAbove ? below : above;
  if (!a || Math.min(distBelow, distAbove) > NEAR_BYTES) return undefined;
  const rel = off - a.base;
  const el = elements.get(a.base);
  const label = a.kind === 'heap' ? `malloc block at 0x${a.base.toString(16)}` : a.name;
  if (el && rel % el.elemSize === 0) {
    return `${el.name}[${rel / el.elemSize}]; \`${el.name}\` has ${el.count} element${el.count === 1 ? '' : 's'} (${a.size} bytes)`;
  }
  const where = rel >= 0 ? `${rel} bytes past the start of` : `${-rel} bytes before`;
  return `${where} \`${label}\` (${a.size} bytes)`;
}
