/**
 * mma.sync.aligned for the half-precision sm_80 shapes (m16n8k8, m16n8k16; f16/bf16 inputs, f32 or
 * f16 accumulators). A warp-collective: every lane's fragment registers are gathered into whole
 * tiles, multiplied, and scattered back, all before any destination is written.
 * Products of f16/bf16 values are exact in a double; the sum is formed in double and rounded once
 * to the accumulator type (the ISA leaves the accumulation order unspecified).
 */
import type { ROperand } from '../../ptx/resolve.js';
import type { CInstr, Exec } from '../compiled.js';
import { type Ctx, dst, fail, src } from '../compile.js';
import { bf16ToF32, f16ToF32, toF16 } from '../float/half.js';
import { RN } from '../float/round.js';
import type { Warp } from '../state.js';
import { aF16, bF16, cAcc } from './layouts.js';

const M = 16, N = 8;
const TA = new Float64Array(M * 16);
const TB = new Float64Array(16 * N);
const TC = new Float64Array(M * N);

function regList(ctx: Ctx, op: ROperand | undefined, n: number, what: string, isDst: boolean, type: string): number[] {
  if ((op?.kind !== 'vec' && op?.kind !== 'list') || op.items.length !== n) fail(ctx, `mma ${what} must be a list of ${n} registers`);
  return op.items.map((it) => (isDst ? dst(ctx, it) : src(ctx, it, type)));
}

export function compileMma(ctx: Ctx, _c: CInstr): Exec {
  const mods = ctx.ins.mods;
  const shape = mods.find((m) => /^m\d+n\d+k\d+$/.test(m));
  const types = mods.filter((m) => /^(f16|bf16|f32|f64|tf32|s8|u8|s4|u4|b1|s32|e4m3|e5m2)$/.test(m));
  const what = `'mma.${mods.join('.')}'`;
  if (shape !== 'm16n8k16' && shape !== 'm16n8k8') return fail(ctx, `${what} is not supported yet (shapes m16n8k8/m16n8k16 with f16/bf16 inputs are)`);
  if (!mods.includes('row') || !mods.includes('col')) return fail(ctx, `${what}: this shape needs .row.col`);
  let dt: string, at: string, bt: string, ct: string;
  if (types.length === 4) [dt, at, bt, ct] = types as [string, string, string, string];
  else if (types.length === 2 && types[1] === 'bf16') { dt = ct = types[0]!; at = bt = 'bf16'; }
  else return fail(ctx, `${what} is not supported yet`);
  if ((at !== 'f16' && at !== 'bf16') || at !== bt) return fail(ctx, `${what} is not supported yet (A/B types f16 or bf16)`);
  if (!((dt === 'f32' || dt === 'f16') && (ct === 'f32' || ct === 'f16'))) return fail(ctx, `${what}: accumulators must be f32 or f16`);
  if (at === 'bf16' && (dt !== 'f32' || ct !== 'f32')) return fail(ctx, `${what}: bf16 needs f32 accumulators`);
  const K = shape === 'm16n8k16' ? 16 : 8;
  const ops = ctx.ins.operands;
  const dRegs = regList(ctx, ops[0], dt === 'f32' ? 4 : 2, 'D', true, dt);
  const aRegs = regList(ctx, ops[1], K / 4, 'A', false, 'b32');
  const bRegs = regList(ctx, ops[2], K / 8, 'B', false, 'b32');
  const cRegs = regList(ctx, ops[3], ct === 'f32' ? 4 : 2, 'C', false, ct === 'f32' ? 'f32' : 'b32');
  const dec = at === 'bf16' ? bf16ToF32 : f16ToF32;
  const half = (u: Uint32Array, regs: number[], l: number, i: number): number => {
    const w = u[regs[i >> 1]! + 2 * l]!;
    return dec(i & 1 ? w >>> 16 : w & 0xffff);
  };
  return (w: Warp, m: number) => {
    // fragments of inactive lanes are undefined on hardware (the instruction requires the full warp);
    // reading them as registers hold them is the deterministic choice
    void m;
    const u = w.u32, f = w.f32;
    for (let l = 0; l < 32; l++) {
      for (let i = 0; i < K / 2; i++) { const p = aF16(K, l, i); TA[p.row * K + p.col] = half(u, aRegs, l, i); }
      for (let i = 0; i < K / 4; i++) { const p = bF16(K, l, i); TB[p.row * N + p.col] = half(u, bRegs, l, i); }
      for (let i = 0; i < 4; i++) {
        const p = cAcc(l, i);
        TC[p.row * N + p.col] = ct === 'f32' ? f[cRegs[i]! + 2 * l]! : half(u, cRegs, l, i);
      }
    }
    for (let l = 0; l < 32; l++) {
      let packed = 0;
      for (let i = 0; i < 4; i++) {
        const p = cAcc(l, i);
        let s = TC[p.row * N + p.col]!;
        for (let k = 0; k < K; k++) s += TA[p.row * K + k]! * TB[k * N + p.col]!;
        if (dt === 'f32') f[dRegs[i]! + 2 * l] = Math.fround(s);
        else {
          const h = toF16(s, RN);
          packed = i & 1 ? (packed | (h << 16)) >>> 0 : h;
          if (i & 1) u[dRegs[i >> 1]! + 2 * l] = packed;
        }
      }
    }
  };
}
