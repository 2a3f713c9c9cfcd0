/**
 * Where values are, in terms the rest of the debugger uses: canonical (space, address) pairs
 * (a generic address resolved to its window's state space, as watchpoints need) and gdb's
 * `<symbol+offset>` for addresses inside a module variable.
 */
import { GLOBAL_HI } from '../../exec/memory.js';
import { spaceOfWindow, windowOf } from '../spaces.js';
import { sizeOf } from '../../../dwarf/src/index.js';
import { genericOf } from '../threadview.js';
import type { SpaceName, ThreadView } from '../types.js';
import type { DebugInfo } from './debuginfo.js';
import { staticValue } from './locate.js';

/** Resolve a generic address to its state space; state-space addresses pass through. */
export function canonicalPlace(space: SpaceName, address: bigint): { space: SpaceName; address: bigint } {
  if (space === 'global') {
    const hi = Number((address >> 32n) & 0xffffn);
    return { space, address: hi === 0 ? (BigInt(GLOBAL_HI) << 32n) | address : address };
  }
  if (space !== 'generic') return { space, address: address & 0xffffffffn };
  const hi = Number((address >> 32n) & 0xffffffffn);
  const lo = address & 0xffffffffn;
  const sp = spaceOfWindow(hi);
  if (sp === undefined) return { space, address };
  return { space: sp, address: sp === 'global' ? address : lo };
}

interface Extent {
  readonly name: string;
  readonly space: SpaceName;
  readonly address: bigint;
  readonly size: number;
}

/** gdb's `<name+offset>` for pointers into `__device__`, `__constant__` and `__shared__` variables. */
export function makeSymbolizer(info: DebugInfo, view: ThreadView): (space: SpaceName, address: bigint) => string | undefined {
  let extents: Extent[] | undefined;
  const build = (): Extent[] => {
    const out: Extent[] = [];
    const vars = [...info.globals(), ...info.statics().map((s) => s.variable)];
    for (const v of vars) {
      const val = staticValue(info, view, v);
      const size = sizeOf(v.type);
      if (val.place.kind !== 'memory' || !size) continue;
      const c = canonicalPlace(val.place.space, val.place.address);
      out.push({ name: v.name, space: c.space, address: c.address, size });
    }
    return out;
  };
  return (space, address) => {
    extents ??= build();
    const c = canonicalPlace(space, address);
    const hit = extents.find((e) => e.space === c.space && c.address >= e.address && c.address < e.address + BigInt(e.size));
    if (!hit) return undefined;
    const off = c.address - hit.address;
    return off === 0n ? hit.name : `${hit.name}+${off}`;
  };
}

/** Convert an address between state spaces like cvta does (generic windows in the high word). */
export function convertSpace(address: bigint, from: SpaceName, to: SpaceName): bigint {
  if (from === to) return address;
  if (to === 'generic') return from === 'global' ? address : genericOf(from, address);
  if (from === 'generic') {
    const hi = Number((address >> 32n) & 0xffffn);
    if (hi === windowOf(to)) return to === 'global' ? address : address & 0xffffffffn;
  }
  return address;
}
