/**
 * mma.sync.aligned for the sm_80 shapes with f16/bf16 (m16n8k8, m16n8k16), tf32 (m16n8k4, m16n8k8),
 * s8/u8 (m8n8k16, m16n8k16, m16n8k32), s4/u4 (m8n8k32, m16n8k32, m16n8k64), b1 (m8n8k128,
 * m16n8k128, m16n8k256 with .xor.popc / .and.popc) and f64 (m8n8k4) inputs. A warp-collective: every lane's fragment
 * registers are gathered into whole tiles (layouts.ts), multiplied, and scattered back, all
 * before any destination is written (D may alias C).
 * Floating point: products of f16/bf16/tf32 values are exact in a double; the sum is formed in
 * double and rounded once to the accumulator type (the ISA leaves the accumulation order open).
 * tf32 operands ignore the low 13 mantissa bits of their f32 registers. Integer: exact sum,
 * wrapping to s32, or clamped with .satfinite.
 */
import type { ROperand } from '../../ptx/resolve.js';
import type { CInstr, Exec } from '../compiled.js';
import { type Ctx, dst, fail, src } from '../compile/operands.js';
import { bitsToF32 } from '../float/bits.js';
import { bf16ToF32, f16ToF32, toF16 } from '../float/half.js';
import { RN } from '../float/round.js';
import type { Warp } from '../state.js';
import { geometry } from './layouts.js';
import { compileMma884 } from './mma884.js';

const TA = new Float64Array(16 * 256);
const TB = new Float64Array(256 * 8);
const TC = new Float64Array(16 * 8);

const IN_BITS: Record<string, number> = { f16: 16, bf16: 16, tf32: 32, s8: 8, u8: 8, s4: 4, u4: 4, b1: 1, f64: 64 };

function regList(ctx: Ctx, op: ROperand | undefined, n: number, what: string, isDst: boolean, type: string): number[] {
  if ((op?.kind !== 'vec' && op?.kind !== 'list') || op.items.length !== n) fail(ctx, `mma ${what} must be a list of ${n} registers`);
  return op.items.map((it) => (isDst ? dst(ctx, it) : src(ctx, it, type)));
}

/** Decoder of one A/B element from its bit field (already shifted down). */
function decoder(type: string): (bits: number) => number {
  switch (type) {
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

export function compileMma(ctx: Ctx, _c: CInstr): Exec {
  const mods = ctx.ins.mods;
  const what = `'mma.${mods.join('.')}'`;
  const shape = mods.find((m) => /^m\d+n\d+k\d+$/.test(m)) ?? fail(ctx, `${what} needs a shape`);
  const types = mods.filter((m) => /^(f16|bf16|f32|f64|tf32|s8|u8|s4|u4|b1|s32|e4m3|e5m2)$/.test(m));
  let dt: string, at: string, bt: string, ct: string;
  if (types.length === 4) [dt, at, bt, ct] = types as [string, string, string, string];
  else if (types.length === 2 && (types[1] === 'bf16' || types[1] === 'tf32')) { dt = ct = types[0]!; at = bt = types[1]; }
  else return fail(ctx, `${what} is not supported yet`);
  if (shape === 'm8n8k4' && at === 'f16' && bt === 'f16') return compileMma884(ctx, _c, dt, ct);
  const bits = IN_BITS[at];
  const geo = bits === undefined ? undefined : geometry(shape, bits);
  if (!geo || (at !== bt && !(bits <= 8 && bits > 1 && IN_BITS[bt] === bits))) return fail(ctx, `${what} is not supported yet`);
  // .b1: each product is a AND b or a XOR b of two bits, summed (.popc); the ISA requires the pair
  const xor = mods.includes('xor');
  if (bits === 1 && (!mods.includes('popc') || xor === mods.includes('and'))) return fail(ctx, `${what}: .b1 needs .xor.popc or .and.popc`);
  if (!mods.includes('row') || !mods.includes('col')) return fail(ctx, `${what}: this shape needs .row.col`);
  const integer = bits <= 8;
  const accOk = integer ? dt === 's32' && ct === 's32'
    : at === 'f64' ? dt === 'f64' && ct === 'f64'
      : at === 'f16' ? (dt === 'f32' || dt === 'f16') && (ct === 'f32' || ct === 'f16')
        : dt === 'f32' && ct === 'f32';
  if (!accOk) return fail(ctx, `${what}: accumulator types do not fit the input type`);
  const satfinite = mods.includes('satfinite');
  const { m: M, n: N, k: K } = geo;
  const per = Math.max(1, 32 / bits);
  const dHalf = dt === 'f16', cHalf = ct === 'f16';
  const ops = ctx.ins.operands;
  const dRegs = regList(ctx, ops[0], dHalf ? geo.cElems / 2 : geo.cElems, 'D', true, dt);
  const aRegs = regList(ctx, ops[1], Math.ceil(geo.aElems / per), 'A', false, bits === 64 ? 'f64' : 'b32');
  const bRegs = regList(ctx, ops[2], Math.ceil(geo.bElems / per), 'B', false, bits === 64 ? 'f64' : 'b32');
  const cRegs = regList(ctx, ops[3], cHalf ? geo.cElems / 2 : geo.cElems, 'C', false, cHalf ? 'b32' : ct);
  const decA = decoder(at), decB = decoder(bt);
  const mask = bits >= 32 ? 0xffffffff : (1 << bits) - 1;
  const field = (u: Uint32Array, regs: number[], l: number, i: number, dec: (b: number) => number): number => {
    const word = u[regs[Math.floor(i / per)]! + 2 * l]!;
    return dec(bits >= 32 ? word : (word >>> ((i % per) * bits)) & mask);
  };
  return (w: Warp, _m: number) => {
    // the instruction requires the whole warp; lanes that are not active contribute their
    // registers as they are (undefined on hardware, deterministic here)
    const u = w.u32, f = w.f32, d = w.f64;
    for (let l = 0; l < 32; l++) {
      for (let i = 0; i < geo.aElems; i++) {
        const [r, c] = geo.a(l, i);
        TA[r * K + c] = bits === 64 ? d[(aRegs[i]! + 2 * l) >> 1]! : field(u, aRegs, l, i, decA);
      }
      for (let i = 0; i < geo.bElems; i++) {
        const [r, c] = geo.b(l, i);
        TB[r * N + c] = bits === 64 ? d[(bRegs[i]! + 2 * l) >> 1]! : field(u, bRegs, l, i, decB);
      }
      for (let i = 0; i < geo.cElems; i++) {
        const [r, c] = geo.c(l, i);
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
      for (let i = 0; i < geo.cElems; i++) {
        const [r, c] = geo.c(l, i);
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
    void M;
  };
}
