/**
 * Which mma.sync form an instruction is (dense sm_80 shapes: mma.ts; m8n8k4 f16: mma884.ts; mma.sp:
 * mma-sparse.ts), with the checks the ISA puts on its type and layout modifiers. Its own module
 * so that the builders it picks among import nothing back from it (no import cycle).
 */
import type { CInstr, Exec } from '../compiled.js';
import { type Ctx, fail } from '../compile/operands.js';
import { geometry } from './layouts.js';
import { accumulatorsFit, buildMma, checkFp8Target, FP8, IN_BITS, mmaTypes } from './mma.js';
import { compileMma884 } from './mma884.js';
import { compileMmaSparse } from './mma-sparse.js';

export function compileMma(ctx: Ctx, c: CInstr): Exec {
  const mods = ctx.ins.mods;
  if (mods.some((m) => m === 'sp' || m.startsWith('sp::'))) return compileMmaSparse(ctx);
  const what = `'mma.${mods.join('.')}'`;
  const shape = mods.find((m) => /^m\d+n\d+k\d+$/.test(m)) ?? fail(ctx, `${what} needs a shape`);
  const ty = mmaTypes(mods) ?? fail(ctx, `${what} is not supported yet`);
  const { dt, at, bt, ct } = ty;
  if (shape === 'm8n8k4' && at === 'f16' && bt === 'f16') return compileMma884(ctx, c, dt, ct);
  const bits = IN_BITS[at];
  const fp8 = FP8.has(at) || FP8.has(bt);
  // .e4m3/.e5m2 (either operand, mixed allowed) share the 8-bit fragment layout of .s8/.u8
  if (fp8 && (!FP8.has(at) || !FP8.has(bt) || shape !== 'm16n8k32')) return fail(ctx, `${what}: .e4m3/.e5m2 mma takes both operands in .e4m3/.e5m2 and shape .m16n8k32`);
  const geo = bits === undefined ? undefined : geometry(shape, bits);
  if (!geo || (at !== bt && !fp8 && !(bits! <= 8 && bits! > 1 && IN_BITS[bt] === bits))) return fail(ctx, `${what} is not supported yet`);
  // .b1: each product is a AND b or a XOR b of two bits, summed (.popc); the ISA requires the pair
  const xor = mods.includes('xor');
  if (bits === 1 && (!mods.includes('popc') || xor === mods.includes('and'))) return fail(ctx, `${what}: .b1 needs .xor.popc or .and.popc`);
  if (!mods.includes('row') || !mods.includes('col')) return fail(ctx, `${what}: this shape needs .row.col`);
  if (!accumulatorsFit(at, dt, ct)) return fail(ctx, `${what}: accumulator types do not fit the input type`);
  checkFp8Target(ctx, what, at, bt);
  return buildMma(ctx, {
    m: geo.m, n: geo.n, k: geo.k, bits: geo.bits, at, bt, dt, ct, aElems: geo.aElems, a: geo.a, bElems: geo.bElems, b: geo.b,
    cElems: geo.cElems, c: geo.c, xor, satfinite: mods.includes('satfinite'),
  });
}
