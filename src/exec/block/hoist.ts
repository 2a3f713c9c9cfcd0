/**
 * Hoisted shared-memory loads of a fused segment (gen.ts fusedSegment), grouped by address
 * register: a tiled kernel's inner product reads `[%r7]`, `[%r7+4]`, ... `[%r7+60]` and `[%r8]`,
 * `[%r8+64]`, ..., so one check per register and lane (the lowest address aligned, the highest
 * inside the user part of shared memory, no wrap-around) stands for every load of the group. Where
 * the group's check refuses a lane that each load's own check would pass (an address wrapping past
 * 2^32), the segment runs its split form, which checks each load alone: refusing more is safe.
 *
 * A loaded word goes to the register file and stays in a local for the loop's later reads; an f32
 * read of it reads memory's Float32Array at the same index (the same bits, NaN payloads included),
 * instead of the register just written.
 */
import { Space } from '../memory.js';
import type { LaneCache } from './lanes.js';
import type { MemSpec } from './memspec.js';

/** Loads of one address register, size and offset alignment: one check covers them all. */
export interface SharedGroup {
  readonly reg: number;
  readonly size: number;
  /** Lowest offset, and bytes from it to the end of the highest load. */
  min: number;
  span: number;
  /** The generated local holding the lane's address register (set by groupStart). */
  q: string;
}

/**
 * The group of each hoisted load that can join one (by its index in the segment): unguarded
 * shared loads with a 32-bit address register. Others keep their own check.
 */
export function sharedGroups(loads: ReadonlyMap<number, { readonly s: MemSpec; readonly guarded: boolean }>): Map<number, SharedGroup> {
  const byKey = new Map<string, SharedGroup>();
  const out = new Map<number, SharedGroup>();
  for (const [k, { s, guarded }] of loads) {
    if (guarded || s.space !== Space.Shared || !s.reg32) continue;
    const key = `${s.reg}|${s.size}|${((s.lo % s.size) + s.size) % s.size}`;
    let g = byKey.get(key);
    if (g === undefined) byKey.set(key, g = { reg: s.reg, size: s.size, min: s.lo, span: s.size, q: '' });
    const hi = Math.max(g.min + g.span, s.lo + s.size);
    g.min = Math.min(g.min, s.lo);
    g.span = hi - g.min;
    out.set(k, g);
  }
  return out;
}

/** A group's check for one lane (no effect but $Hbad): every address of the group aligned and in the user part of shared memory. */
export function groupCheck(g: SharedGroup): string {
  return `{ const lo = U[${g.reg} + o] + ${g.min}; if (lo < 0 || lo + ${g.span} > $SU || (lo & ${g.size - 1}) !== 0) $Hbad = true; }`;
}

/** The statement that reads the group's address register into its local, first in the lane loop (no instruction of the segment wrote it yet). */
export function groupStart(g: SharedGroup, cache: LaneCache): string {
  g.q = cache.local();
  return `${g.q} = U[${g.reg} + o];`;
}

/** Load `s` of group `g` for one lane, from shared memory's views $SBu/$SBf, into the register file and the cache. */
export function groupLoad(g: SharedGroup, s: MemSpec, cache: LaneCache): string {
  const idx = `((${g.q} + ${s.lo}) >>> 2)`;
  const lo = cache.local();
  let hi = '0';
  let out = `${lo} = $SBu[${idx}] | 0;`;
  if (s.size === 8) {
    hi = cache.local();
    out += ` ${hi} = $SBu[${idx} + 1] | 0;`;
  } else if (s.signed) {
    hi = `(${lo} >> 31)`;
  }
  out += ` ${cache.store(s.data, `U[${s.data} + o] = ${lo}; U[${s.data} + o + 1] = ${hi};`)}`;
  cache.loaded(s.data, [lo, hi], s.size === 4 ? `$SBf[${idx}]` : undefined);
  return out;
}
