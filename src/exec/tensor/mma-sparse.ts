/**
 * mma.sp.sync.aligned and mma.sp::ordered_metadata (PTX ISA, "Matrix multiply-accumulate operation
 * using mma.sp instruction with sparse matrix A"), the sm_80 forms: f16/bf16 m16n8k16/k32, tf32
 * m16n8k8/k16, s8/u8 m16n8k32/k64, s4/u4 m16n8k64/k128 (.satfinite optional) and, for sm_89
 * targets, e4m3/e5m2 m16n8k64.
 *
 * A is M x K with half of each row zero; the registers hold only the kept half, laid out as the
 * dense A of an m16n8k(K/2) mma of the same type (the ISA's firstcol = tig * chunk per register).
 * Which columns the kept values came from is in the metadata `e`: a 4-bit field per chunk of a
 * row (2:4 for f16/bf16/s8/u8/fp8: two 2-bit indices, the first for the lower kept value;
 * 1:2 for tf32: 0b0100 keeps column 0, 0b1110 column 1; 4:8 pairs for s4/u4: two 2-bit indices of
 * two-wide sub-chunks). Every metadata register covers four chunks of row groupID (bits 0-15) and
 * the same four chunks of row groupID+8 (bits 16-31); rows needing 1, 2 or 4 registers take them
 * from the thread the selector `f` names (0..3), the pair 2f, 2f+1 (f = 0, 1), or all four
 * threads of the group (f = 0), lower chunks from the lower thread. B, C and D are as in the dense
 * mma of shape m16n8kK. Invalid metadata (two equal indices) is undefined in the ISA; here both
 * values add into that column. The product itself is mma.ts's (exact products, one rounding).
 */
import type { Exec } from '../compiled.js';
import { type Ctx, fail, src } from '../compile/operands.js';
import type { Warp } from '../state.js';
import type { Pos } from './layouts.js';
import { accumulatorsFit, buildMma, checkFp8Target, IN_BITS, mmaTypes } from './mma.js';

/** Per input type: elements per metadata chunk, and the K of the two shapes (sm_80; fp8 sm_89). */
const SPARSE: Record<string, { chunk: number; ks: readonly number[] }> = {
  f16: { chunk: 4, ks: [16, 32] }, bf16: { chunk: 4, ks: [16, 32] },
  tf32: { chunk: 2, ks: [8, 16] },
  s8: { chunk: 4, ks: [32, 64] }, u8: { chunk: 4, ks: [32, 64] },
  s4: { chunk: 8, ks: [64, 128] }, u4: { chunk: 8, ks: [64, 128] },
  e4m3: { chunk: 4, ks: [64] }, e5m2: { chunk: 4, ks: [64] },
};

const FAMILIES = [['s8', 'u8'], ['s4', 'u4'], ['e4m3', 'e5m2']];

const g = (l: number): number => l >> 2;
const t = (l: number): number => l & 3;

export function compileMmaSparse(ctx: Ctx): Exec {
  const mods = ctx.ins.mods;
  const what = `'mma.${mods.join('.')}'`;
  const shape = mods.find((m) => /^m\d+n\d+k\d+$/.test(m)) ?? fail(ctx, `${what} needs a shape`);
  const ty = mmaTypes(mods) ?? fail(ctx, `${what}: expected .dtype.atype.btype.ctype`);
  const { dt, at, bt, ct } = ty;
  const kind = SPARSE[at];
  const K = Number(/^m16n8k(\d+)$/.exec(shape)?.[1] ?? NaN);
  if (!kind || !kind.ks.includes(K)) {
    return fail(ctx, `${what}: mma.sp takes ${Object.entries(SPARSE).map(([k, v]) => `.${k} with ${v.ks.map((x) => `.m16n8k${x}`).join('/')}`).join(', ')}`);
  }
  const bits = IN_BITS[at]!;
  // A and B share the type, except that .s8/.u8, .s4/.u4 and .e4m3/.e5m2 mix within their family
  if (at !== bt && !FAMILIES.some((f) => f.includes(at) && f.includes(bt))) {
    return fail(ctx, `${what}: A is .${at} but B is .${bt}`);
  }
  if (!mods.includes('row') || !mods.includes('col')) return fail(ctx, `${what} needs .row.col`);
  if (!accumulatorsFit(at, dt, ct)) return fail(ctx, `${what}: accumulator types do not fit the input type`);
  if (at === 'f16' && dt !== ct) return fail(ctx, `${what}: .dtype must be the same as .ctype for this shape`);
  const integer = at[0] === 's' || at[0] === 'u';
  const satfinite = mods.includes('satfinite');
  if (satfinite && !integer) return fail(ctx, `${what}: .satfinite applies to integer mma.sp only`);
  checkFp8Target(ctx, what, at, bt);
  const ops = ctx.ins.operands;
  if (ops.length !== 6) return fail(ctx, `${what}: expected d, a, b, c, e (metadata), f (sparsity selector)`);
  const E = src(ctx, ops[4], 'b32');
  const fop = ops[5];
  if (fop?.kind !== 'int') return fail(ctx, `${what}: the sparsity selector must be an integer constant`);
  const sel = Number(fop.value);
  // chunks per row, four per metadata register half: 1, 2 or 4 contributing threads
  const slabs = K / kind.chunk / 4;
  const maxSel = slabs === 1 ? 3 : slabs === 2 ? 1 : 0;
  if (!(sel >= 0 && sel <= maxSel)) {
    return fail(ctx, `${what}: sparsity selector ${fop.value} is out of range: ${maxSel === 0 ? 'it must be 0 (all four threads of a group hold metadata)' : maxSel === 1 ? 'it must be 0 (threads 0, 1 of a group) or 1 (threads 2, 3)' : 'it must be 0..3 (the thread of a group that holds the metadata)'}`);
  }
  const per = 32 / bits;
  const keptPerChunk = kind.chunk === 2 ? 1 : kind.chunk === 4 ? 2 : 4;
  // the kept half of A as a dense m16n8k(K/2) fragment; B as the dense m16n8kK one
  const a: Pos = (l, i) => { const j = Math.floor(i / per); return [g(l) + (j & 1) * 8, (j >> 1) * 4 * per + t(l) * per + (i % per)]; };
  const b: Pos = (l, i) => [Math.floor(i / per) * 4 * per + t(l) * per + (i % per), g(l)];
  const c: Pos = (l, i) => [g(l) + (i >= 2 ? 8 : 0), t(l) * 2 + (i & 1)];
  const expandA = (w: Warp, row: number, ccol: number): number => {
    const chunk = Math.floor(ccol / keptPerChunk), within = ccol % keptPerChunk;
    const slab = chunk >> 2;
    const lane = (row & 7) * 4 + (slabs === 1 ? sel : slabs === 2 ? 2 * sel + slab : slab);
    const nib = (w.u32[E + 2 * lane]! >>> ((row >= 8 ? 16 : 0) + (chunk & 3) * 4)) & 0xf;
    if (keptPerChunk === 1) return chunk * 2 + ((nib & 3) >> 1); // tf32: index pair (0,1) or (2,3) in 16-bit halves
    const idx = within < keptPerChunk / 2 ? nib & 3 : nib >> 2;
    return keptPerChunk === 2 ? chunk * 4 + idx : chunk * 8 + idx * 2 + (within & 1);
  };
  return buildMma(ctx, {
    m: 16, n: 8, k: K, bits, at, bt, dt, ct, aElems: K / 4, a, bElems: K / 4, b, cElems: 4, c, xor: false, satfinite, expandA,
  });
}
