/**
 * mma.sync.aligned.m8n8k4 with .f16 inputs (the sm_70 shape, still valid on sm_80): the warp
 * computes four independent 8x8x4 products, computation q by lanes 4q..4q+3 (low group) and
 * 16+4q..16+4q+3 (high group), with the fragment layouts of the PTX ISA ("Matrix Fragments for
 * mma.m8n8k4 with .f16 floating point type"), A and B in .row or .col layout, C/D in .f16 or .f32.
 * As in mma.ts: products exact, the sum formed in double and rounded once to D's type.
 */
import type { ROperand } from '../../ptx/resolve.js';
import type { CInstr, Exec } from '../compiled.js';
import { type Ctx, dst, fail, src } from '../compile/operands.js';
import { f16ToF32, toF16 } from '../float/half.js';
import { RN } from '../float/round.js';
import type { Warp } from '../state.js';

type Pos = (l: number, i: number) => readonly [number, number];
const hi4 = (l: number): number => (l >= 16 ? 4 : 0);

const A_ROW: Pos = (l, i) => [(l % 4) + hi4(l), i];
const A_COL: Pos = (l, i) => [(i % 4) + hi4(l), l % 4];
const B_ROW: Pos = (l, i) => [l % 4, i + hi4(l)];
const B_COL: Pos = (l, i) => [i, (l % 4) + hi4(l)];
const C_F16: Pos = (l, i) => [(l % 4) + hi4(l), i];
const C_F32: Pos = (l, i) => [(l & 1) + (i & 2) + hi4(l), (i & 4) + (l & 2) + (i & 1)];

/** Per computation q: A 8x4, B 4x8, C 8x8. */
const TA = new Float64Array(4 * 32), TB = new Float64Array(4 * 32), TC = new Float64Array(4 * 64);

function regs(ctx: Ctx, op: ROperand | undefined, n: number, what: string, isDst: boolean, type: string): number[] {
  if ((op?.kind !== 'vec' && op?.kind !== 'list') || op.items.length !== n) fail(ctx, `mma ${what} must be a list of ${n} registers`);
  return op.items.map((it) => (isDst ? dst(ctx, it) : src(ctx, it, type)));
}

export function compileMma884(ctx: Ctx, _c: CInstr, dt: string, ct: string): Exec {
  const mods = ctx.ins.mods;
  const what = `'mma.${mods.join('.')}'`;
  const lay = mods.filter((m) => m === 'row' || m === 'col');
  if (lay.length !== 2) return fail(ctx, `${what} needs .row/.col for A and for B`);
  if ((dt !== 'f16' && dt !== 'f32') || (ct !== 'f16' && ct !== 'f32')) return fail(ctx, `${what}: C and D are .f16 or .f32`);
  const aPos = lay[0] === 'row' ? A_ROW : A_COL;
  const bPos = lay[1] === 'row' ? B_ROW : B_COL;
  const cPos = ct === 'f16' ? C_F16 : C_F32;
  const dPos = dt === 'f16' ? C_F16 : C_F32;
  const ops = ctx.ins.operands;
  const D = regs(ctx, ops[0], dt === 'f16' ? 4 : 8, 'D', true, dt);
  const A = regs(ctx, ops[1], 2, 'A', false, 'b32');
  const B = regs(ctx, ops[2], 2, 'B', false, 'b32');
  const C = regs(ctx, ops[3], ct === 'f16' ? 4 : 8, 'C', false, ct === 'f16' ? 'b32' : 'f32');
  const half = (u: Uint32Array, rs: number[], l: number, i: number): number => {
    const w = u[rs[i >> 1]! + 2 * l]!;
    return f16ToF32(i & 1 ? w >>> 16 : w & 0xffff);
  };
  return (w: Warp, _m: number) => {
    // gather all four computations before writing: D may alias C
    const u = w.u32, f = w.f32;
    for (let l = 0; l < 32; l++) {
      const q = (l >> 2) & 3;
      for (let i = 0; i < 4; i++) {
        const [r, c] = aPos(l, i);
        TA[q * 32 + r * 4 + c] = half(u, A, l, i);
        const [br, bc] = bPos(l, i);
        TB[q * 32 + br * 8 + bc] = half(u, B, l, i);
      }
      for (let i = 0; i < 8; i++) {
        const [r, c] = cPos(l, i);
        TC[q * 64 + r * 8 + c] = ct === 'f16' ? half(u, C, l, i) : f[C[i]! + 2 * l]!;
      }
    }
    for (let l = 0; l < 32; l++) {
      const q = (l >> 2) & 3;
      for (let i = 0; i < 8; i++) {
        const [r, c] = dPos(l, i);
        let s = TC[q * 64 + r * 8 + c]!;
        for (let k = 0; k < 4; k++) s += TA[q * 32 + r * 4 + k]! * TB[q * 32 + k * 8 + c]!;
        if (dt === 'f32') f[D[i]! + 2 * l] = Math.fround(s);
        else {
          const at = D[i >> 1]! + 2 * l;
          const h = toF16(s, RN);
          u[at] = i & 1 ? ((u[at]! & 0xffff) | (h << 16)) >>> 0 : ((u[at]! & 0xffff0000) | h) >>> 0;
        }
      }
    }
  };
}
