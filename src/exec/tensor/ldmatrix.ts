/**
 * ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared.b16: a warp loads 1, 2 or 4 8x8 tiles of
 * 16-bit elements. Threads 8j..8j+7 give the addresses of the 8 rows (16 bytes each) of tile j;
 * lane l then holds, in destination register j, row l/4 elements 2*(l%4) and 2*(l%4)+1 of tile j
 * (with .trans, the same positions of the transposed tile). All rows are read before any
 * register is written.
 */
import type { Exec } from '../compiled.js';
import { type Ctx, dst, fail } from '../compile/operands.js';
import { AH, AL, addrGen, computeAddrs, spaceMod } from '../address.js';
import { Space } from '../memory.js';
import { Access } from '../probe.js';
import type { Warp } from '../state.js';

/** Tiles as [tile][row][col] 16-bit elements. */
const T = new Uint16Array(4 * 64);

export function compileLdmatrix(ctx: Ctx): Exec {
  const mods = ctx.ins.mods;
  const what = `'ldmatrix.${mods.join('.')}'`;
  const n = mods.includes('x4') ? 4 : mods.includes('x2') ? 2 : mods.includes('x1') ? 1 : fail(ctx, `${what} needs .x1, .x2 or .x4`);
  if (!mods.includes('m8n8') || !mods.includes('b16')) return fail(ctx, `${what} is not supported yet (.m8n8 .b16 is)`);
  const trans = mods.includes('trans');
  // without .shared the address is generic (and must point into shared memory)
  const space: Space = spaceMod(mods);
  const ops = ctx.ins.operands;
  const d0 = ops[0];
  const items = d0?.kind === 'vec' || d0?.kind === 'list' ? d0.items : d0 ? [d0] : [];
  if (items.length !== n) return fail(ctx, `${what} needs ${n} destination register(s)`);
  const D = items.map((it) => dst(ctx, it));
  const g = addrGen(ctx, ops[1]);
  return (w: Warp, m: number) => {
    computeAddrs(w, m, g);
    T.fill(0);
    for (let r = 0; r < 8 * n; r++) {
      // a row whose address lane is inactive is undefined on hardware; it reads as zeros here
      if (((m >>> r) & 1) === 0) continue;
      const idx = w.translate(space, AL[r]!, AH[r]!, 16, r, Access.Read);
      const b = w.xbank;
      for (let k = 0; k < 8; k++) T[r * 8 + k] = b.u16[(idx >> 1) + k]!;
    }
    const u = w.u32;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const gr = l >> 2, c2 = 2 * (l & 3);
      for (let j = 0; j < n; j++) {
        const t = j * 64;
        const lo = trans ? T[t + c2 * 8 + gr]! : T[t + gr * 8 + c2]!;
        const hi = trans ? T[t + (c2 + 1) * 8 + gr]! : T[t + gr * 8 + c2 + 1]!;
        u[D[j]! + 2 * l] = (lo | (hi << 16)) >>> 0;
      }
    }
  };
}
