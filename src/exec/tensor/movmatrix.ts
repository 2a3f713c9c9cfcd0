/**
 * movmatrix.sync.aligned.m8n8.trans.b16: transposes an 8x8 tile of 16-bit elements held across the
 * warp in the ldmatrix fragment layout (lane l: row l/4, columns 2(l%4), 2(l%4)+1). Every source is
 * read before any destination is written.
 */
import type { CInstr, Exec } from '../compiled.js';
import { type Ctx, dst, fail, src } from '../compile/operands.js';
import type { Warp } from '../state.js';

const SNAP = new Uint32Array(32);

/** Element (r, c) of the tile from the snapshot of the source registers. */
function at(r: number, c: number): number {
  const w = SNAP[r * 4 + (c >> 1)]!;
  return c & 1 ? w >>> 16 : w & 0xffff;
}

export function compileMovmatrix(ctx: Ctx, _c: CInstr): Exec {
  const mods = ctx.ins.mods;
  if (!mods.includes('trans') || !mods.includes('m8n8') || !mods.includes('b16')) return fail(ctx, `'movmatrix.${mods.join('.')}' is not supported (only .m8n8.trans.b16 exists)`);
  const D = dst(ctx, ctx.ins.operands[0]);
  const A = src(ctx, ctx.ins.operands[1], 'b32');
  return (w: Warp, m: number) => {
    const u = w.u32;
    for (let l = 0; l < 32; l++) SNAP[l] = u[A + 2 * l]!;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const g = l >> 2, c = 2 * (l & 3);
      u[D + 2 * l] = (at(c, g) | (at(c + 1, g) << 16)) >>> 0;
    }
  };
}
