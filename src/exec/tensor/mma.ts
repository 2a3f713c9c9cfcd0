/**
 * mma.sync.aligned for the sm_80 shapes with f16/bf16 (m16n8k8, m16n8k16), tf32 (m16n8k4, m16n8k8),
 * s8/u8 (m8n8k16, m16n8k16, m16n8k32), s4/u4 (m8n8k32, m16n8k32, m16n8k64), b1 (m8n8k128,
 * m16n8k128, m16n8k256 with .xor.popc / .and.popc), f64 (m8n8k4) and, for sm_89 targets, .e4m3/.e5m2
 * (m16n8k32, f32 accumulators) inputs; mma.sp is in mma-sparse.ts, and mma-select.ts picks among them. A warp-collective: every lane's fragment
 * registers are gathered into whole tiles (layouts.ts), multiplied, and scattered back, all
 * before any destination is written (D may alias C).
 * Floating point: products of f16/bf16/tf32 values are exact in a double; the sum is formed in
 * double and rounded once to the accumulator type (the ISA leaves the accumulation order open);
 * fp8 values are decoded exactly (E4M3: bias 7, S.1111.111 NaN, no infinities; E5M2: IEEE-like).
 * tf32 operands ignore the low 13 mantissa bits of their f32 registers. Integer: exact sum,
 * wrapping to s32, or clamped with .satfinite.
 */
import type { ROperand } from '../../ptx/resolve.js';
import type { CInstr, Exec } from '../compiled.js';
import { type Ctx, dst, fail, src, targetSm } from '../compile/operands.js';
import { bitsToF32 } from '../float/bits.js';
import { bf16ToF32, f16ToF32, toF16 } from '../float/half.js';
import { RN } from '../float/round.js';
import type { Warp } from '../state.js';
import { E4M3, E5M2, fp8ToNumber } from '../float/fp8.js';
import { geometry, type Pos } from './layouts.js';

const TA = new Float64Array(16 * 256);
const TB = new Float64Array(256 * 8);
const TC = new Float64Array(16 * 8);

export const IN_BITS: Record<string, number> = { f16: 16, bf16: 16, tf32: 32, s8: 8, u8: 8, s4: 4, u4: 4, b1: 1, f64: 64, e4m3: 8, e5m2: 8 };

export function regList(ctx: Ctx, op: ROperand | undefined, n: number, what: string, isDst: boolean, type: string): number[] {
  if ((op?.kind !== 'vec' && op?.kind !== 'list') || op.items.length !== n) fail(ctx, `mma ${what} must be a list of ${n} registers`);
  return op.items.map((it) => (isDst ? dst(ctx, it) : src(ctx, it, type)));
}

/** Decoder of one A/B element from its bit field (already shifted down); fp8 values are exact. */
export function decoder(type: string): (bits: number) => number {
  switch (type) {
    case 'e4m3': return (b) => fp8ToNumber(b & 0xff, E4M3);
    case 'e5m2': return (b) => fp8ToNumber(b & 0xff, E5M2);
    case 'f16': return f16ToF32;
    case 'bf16': return bf16ToF32;
    case 'tf32': return (b) => bitsToF32((b & 0xffffe000) >>> 0);
    case 's8': return (b) => (b << 24) >> 24;
    case 's4': return (b) => (b << 28) >> 28;
    case 'u4': return (b) => b & 0xf;
    case 'b1': return (b) => b & 1;
    default: return (b) => b & 0xff;
  }
}

/** .e4m3/.e5m2 operands need sm_89 (PTX ISA, mma "Target ISA Notes"); a module without a target is taken as allowed. */
export function checkFp8Target(ctx: Ctx, what: string, at: string, bt: string): void {
  if (!FP8.has(at) && !FP8.has(bt)) return;
  const sm = targetSm(ctx);
  if (sm !== undefined && sm < 89) fail(ctx, `${what}: .e4m3/.e5m2 operands need sm_89 or higher; the module's .target is sm_${sm}`);
}

export const FP8 = new Set(['e4m3', 'e5m2']);

/** D, A, B, C types of `mma...dtype.atype.btype.ctype` (bf16/tf32 also as `.f32.bf16`), or undefined. */
export function mmaTypes(mods: readonly string[]): { dt: string; at: string; bt: string; ct: string } | undefined {
  const types = mods.filter((m) => /^(f16|bf16|f32|f64|tf32|s8|u8|s4|u4|b1|s32|e4m3|e5m2)$/.test(m));
  if (types.length === 4) return { dt: types[0]!, at: types[1]!, bt: types[2]!, ct: types[3]! };
  if (types.length === 2 && (types[1] === 'bf16' || types[1] === 'tf32')) return { dt: types[0]!, at: types[1], bt: types[1], ct: types[0]! };
  return undefined;
}

/** Whether D and C types fit the input type (PTX ISA, mma syntax tables). */
export function accumulatorsFit(at: string, dt: string, ct: string): boolean {
  const bits = IN_BITS[at] ?? 0;
  if (bits <= 8 && !FP8.has(at)) return dt === 's32' && ct === 's32';
  if (at === 'f64') return dt === 'f64' && ct === 'f64';
  if (at === 'f16') return (dt === 'f32' || dt === 'f16') && (ct === 'f32' || ct === 'f16');
  return dt === 'f32' && ct === 'f32';
}

/** A tile multiply as the instruction sees it: shapes, types, and how lanes hold A, B and C/D. */
export interface MmaPlan {
  readonly m: number; readonly n: number; readonly k: number;
  /** Bits per A/B element in its register. */
  readonly bits: number;
  readonly at: string; readonly bt: string; readonly dt: string; readonly ct: string;
  /** A elements per lane and where each goes: dense (row, col), or (row, compressed col) when `expandA` is given. */
  readonly aElems: number; readonly a: Pos;
  readonly bElems: number; readonly b: Pos;
  readonly cElems: number; readonly c: Pos;
  readonly xor: boolean; readonly satfinite: boolean;
  /**
   * Sparse A (mma.sp): the column of A that element (row, compressed col) belongs to, read from
   * the warp's metadata registers; elements are added there, the rest of A is zero.
   */
  readonly expandA?: (w: Warp, row: number, ccol: number) => number;
}

/**
 * The lane loop of an mma: every lane's fragment registers gathered into whole tiles, multiplied,
 * and scattered back, all before any destination is written (D may alias C).
 */
export function buildMma(ctx: Ctx, p: MmaPlan): Exec {
  const { n: N, k: K, bits, at, bt, dt, ct, xor, satfinite } = p;
  const per = Math.max(1, 32 / bits);
  const dHalf = dt === 'f16', cHalf = ct === 'f16';
  const ops = ctx.ins.operands;
  const dRegs = regList(ctx, ops[0], dHalf ? p.cElems / 2 : p.cElems, 'D', true, dt);
  const aRegs = regList(ctx, ops[1], Math.ceil(p.aElems / per), 'A', false, bits === 64 ? 'f64' : 'b32');
  const bRegs = regList(ctx, ops[2], Math.ceil(p.bElems / per), 'B', false, bits === 64 ? 'f64' : 'b32');
  const cRegs = regList(ctx, ops[3], cHalf ? p.cElems / 2 : p.cElems, 'C', false, cHalf ? 'b32' : ct);
  const decA = decoder(at), decB = decoder(bt);
  const mask = bits >= 32 ? 0xffffffff : (1 << bits) - 1;
  const field = (u: Uint32Array, regs: number[], l: number, i: number, dec: (b: number) => number): number => {
    const word = u[regs[Math.floor(i / per)]! + 2 * l]!;
    return dec(bits >= 32 ? word : (word >>> ((i % per) * bits)) & mask);
  };
  const expand = p.expandA;
  return (w: Warp, _m: number) => {
    // the instruction requires the whole warp; lanes that are not active contribute their
    // registers as they are (undefined on hardware, deterministic here)
    const u = w.u32, f = w.f32, d = w.f64;
    if (expand) TA.fill(0, 0, p.m * K);
    for (let l = 0; l < 32; l++) {
      for (let i = 0; i < p.aElems; i++) {
        const [r, c] = p.a(l, i);
        const v = bits === 64 ? d[(aRegs[i]! + 2 * l) >> 1]! : field(u, aRegs, l, i, decA);
        if (expand) TA[r * K + expand(w, r, c)] += v;
        else TA[r * K + c] = v;
      }
      for (let i = 0; i < p.bElems; i++) {
        const [r, c] = p.b(l, i);
        TB[r * N + c] = bits === 64 ? d[(bRegs[i]! + 2 * l) >> 1]! : field(u, bRegs, l, i, decB);
      }
      for (let i = 0; i < p.cElems; i++) {
        const [r, c] = p.c(l, i);
        let v: number;
        if (cHalf) { const word = u[cRegs[i >> 1]! + 2 * l]!; v = f16ToF32(i & 1 ? word >>> 16 : word & 0xffff); }
        else if (ct === 'f32') v = f[cRegs[i]! + 2 * l]!;
        else if (ct === 'f64') v = d[(cRegs[i]! + 2 * l) >> 1]!;
        else v = w.i32[cRegs[i]! + 2 * l]!;
        TC[r * N + c] = v;
      }
    }
    for (let l = 0; l < 32; l++) {
      let packed = 0;
      for (let i = 0; i < p.cElems; i++) {
        const [r, c] = p.c(l, i);
        let s = TC[r * N + c]!;
        if (xor) for (let k = 0; k < K; k++) s += TA[r * K + k]! !== TB[k * N + c]! ? 1 : 0;
        else for (let k = 0; k < K; k++) s += TA[r * K + k]! * TB[k * N + c]!;
        if (dHalf) {
          const h = toF16(s, RN);
          packed = i & 1 ? (packed | (h << 16)) >>> 0 : h;
          if (i & 1) u[dRegs[i >> 1]! + 2 * l] = packed;
        } else if (dt === 'f32') f[dRegs[i]! + 2 * l] = Math.fround(s);
        else if (dt === 'f64') d[(dRegs[i]! + 2 * l) >> 1] = s;
        else {
          // |s| < 2^53: the integer sum is exact; s32 wraps, or clamps with .satfinite
          const v = satfinite ? Math.min(2147483647, Math.max(-2147483648, s)) : s | 0;
          w.i32[dRegs[i]! + 2 * l] = v;
        }
      }
    }
  };
}
