/**
 * wmma.load / wmma.store / wmma.mma (m16n16k16, m32n8k16, m8n32k16 for f16/bf16/s8/u8 with f16/f32/
 * s32 accumulators; m16n16k8 tf32; m8n8k4 f64; m8n8k32 s4/u4 and m8n8k128 b1, whose elements are
 * packed in memory and registers from the low bits up). The ISA leaves the fragment-to-lane mapping of
 * wmma unspecified (only load, mma and store must agree), so fragments here hold the tile in a
 * simple order: slot e of lane l is element (e*32 + l) mod (rows*cols) of the row-major logical
 * tile. Fragments larger than the tile (f16 A/B hold every element twice) repeat it, so element-wise
 * code over `x[i]` stays consistent. The row/col qualifier of load/store only maps tile to memory.
 */
import type { ROperand } from '../../ptx/resolve.js';
import type { Exec } from '../compiled.js';
import { type Ctx, dst, fail, src } from '../compile/operands.js';
import { bitsToF32 } from '../float/bits.js';
import { bf16ToF32, f16ToF32, toF16 } from '../float/half.js';
import { RN } from '../float/round.js';
import { AH, AL, addrGen, computeAddrs, spaceMod } from '../address.js';
import { Access } from '../probe.js';
import type { Warp } from '../state.js';

const SHAPES: Record<string, [number, number, number]> = {
  m16n16k16: [16, 16, 16], m32n8k16: [32, 8, 16], m8n32k16: [8, 32, 16], m16n16k8: [16, 16, 8], m8n8k4: [8, 8, 4],
  m8n8k32: [8, 8, 32], m8n8k128: [8, 8, 128],
};
const BITS: Record<string, number> = { f16: 16, bf16: 16, s8: 8, u8: 8, s4: 4, u4: 4, b1: 1, tf32: 32, f32: 32, s32: 32, f64: 64 };

/** Tiles as doubles (every element type here is exact in a double). */
const TA = new Float64Array(1024), TB = new Float64Array(1024), TC = new Float64Array(512);

function regs(ctx: Ctx, op: ROperand | undefined, isDst: boolean, type: string): number[] {
  if (op?.kind !== 'vec' && op?.kind !== 'list') return fail(ctx, `${ctx.ins.opcode} needs a register list {..}`);
  return op.items.map((it) => (isDst ? dst(ctx, it) : src(ctx, it, type)));
}

/** Reads slot e of lane l of a fragment of `type` held in `rs` (as a number). */
function getSlot(w: Warp, rs: number[], type: string, l: number, e: number): number {
  const bits = BITS[type]!;
  if (bits === 64) return w.f64[(rs[e]! + 2 * l) >> 1]!;
  if (bits === 32) {
    const v = w.u32[rs[e]! + 2 * l]!;
    return type === 's32' ? v | 0 : type === 'tf32' ? bitsToF32((v & 0xffffe000) >>> 0) : bitsToF32(v);
  }
  const per = 32 / bits;
  const word = w.u32[rs[Math.floor(e / per)]! + 2 * l]!;
  const b = (word >>> ((e % per) * bits)) & ((1 << bits) - 1);
  switch (type) {
    case 'f16': return f16ToF32(b);
    case 'bf16': return bf16ToF32(b);
    case 's8': return (b << 24) >> 24;
    case 's4': return (b << 28) >> 28;
    default: return b;
  }
}

/** Raw bits of slot e (for load/store, which move bit patterns). */
function rawSlot(w: Warp, rs: number[], bits: number, l: number, e: number, hi: boolean): number {
  if (bits >= 32) return w.u32[rs[e]! + 2 * l + (hi ? 1 : 0)]!;
  const per = 32 / bits;
  return (w.u32[rs[Math.floor(e / per)]! + 2 * l]! >>> ((e % per) * bits)) & ((1 << bits) - 1);
}
function setRaw(w: Warp, rs: number[], bits: number, l: number, e: number, v: number, hi: boolean): void {
  if (bits >= 32) { w.u32[rs[e]! + 2 * l + (hi ? 1 : 0)] = v; return; }
  const per = 32 / bits;
  const at = rs[Math.floor(e / per)]! + 2 * l;
  const sh = (e % per) * bits;
  const mask = ((1 << bits) - 1) << sh;
  w.u32[at] = ((w.u32[at]! & ~mask) | ((v << sh) & mask)) >>> 0;
}

export function compileWmma(ctx: Ctx): Exec {
  const mods = ctx.ins.mods;
  const what = `'wmma.${mods.join('.')}'`;
  const shapeName = mods.find((m) => SHAPES[m] !== undefined);
  if (!shapeName) return fail(ctx, `${what} is not supported yet`);
  const [M, N, K] = SHAPES[shapeName]!;
  const kind = mods[0];
  if (kind === 'load' || kind === 'store') return loadStore(ctx, what, kind, M, N, K);
  if (kind === 'mma') return mma(ctx, what, M, N, K);
  return fail(ctx, `${what} is not supported yet`);
}

function loadStore(ctx: Ctx, what: string, kind: string, M: number, N: number, K: number): Exec {
  const mods = ctx.ins.mods;
  const which = mods[1];
  const type = mods.find((m) => BITS[m] !== undefined) ?? fail(ctx, `${what} needs an element type`);
  const [R, C] = which === 'a' ? [M, K] : which === 'b' ? [K, N] : which === 'c' || which === 'd' ? [M, N] : fail(ctx, `${what} needs .a, .b, .c or .d`);
  const row = mods.includes('row');
  if (!row && !mods.includes('col')) return fail(ctx, `${what} needs .row or .col`);
  const bits = BITS[type]!;
  const bytes = bits / 8;
  const space = spaceMod(mods);
  const ops = ctx.ins.operands;
  const store = kind === 'store';
  const rs = store ? regs(ctx, ops[1], false, bits === 64 ? 'f64' : 'b32') : regs(ctx, ops[0], true, '');
  const g = addrGen(ctx, ops[store ? 0 : 1]);
  const S = ops[2] ? src(ctx, ops[2], 'u32') : -1;
  const slots = rs.length * Math.max(1, 32 / bits);
  const size = R * C;
  return (w: Warp, m: number) => {
    computeAddrs(w, m, g);
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const stride = S >= 0 ? w.u32[S + 2 * l]! : row ? C : R;
      for (let e = 0; e < slots; e++) {
        const idx = (e * 32 + l) % size;
        if (store && e * 32 + l >= size) break; // repeats: each element is written once
        const r = Math.floor(idx / C), col = idx % C;
        const elem = row ? r * stride + col : col * stride + r;
        // sub-byte elements (s4/u4/b1) are packed in memory from the low bits of each byte up
        const off = bits < 8 ? (elem * bits) >> 3 : elem * bytes;
        const s = AL[l]! + off;
        const at = w.translate(space, s >>> 0, (AH[l]! + (s > 0xffffffff ? 1 : 0)) >>> 0, Math.max(1, bytes), l, store ? Access.Write : Access.Read);
        const b = w.xbank;
        if (bits < 8) {
          const sh = (elem * bits) & 7, mk = ((1 << bits) - 1) << sh;
          if (store) b.u8[at] = (b.u8[at]! & ~mk) | ((rawSlot(w, rs, bits, l, e, false) << sh) & mk);
          else setRaw(w, rs, bits, l, e, (b.u8[at]! & mk) >>> sh, false);
        } else if (store) {
          if (bits === 64) { b.u32[at >>> 2] = rawSlot(w, rs, 64, l, e, false); b.u32[(at >>> 2) + 1] = rawSlot(w, rs, 64, l, e, true); }
          else if (bits === 32) b.u32[at >>> 2] = rawSlot(w, rs, 32, l, e, false);
          else if (bits === 16) b.u16[at >>> 1] = rawSlot(w, rs, 16, l, e, false);
          else b.u8[at] = rawSlot(w, rs, 8, l, e, false);
        } else if (bits === 64) { setRaw(w, rs, 64, l, e, b.u32[at >>> 2]!, false); setRaw(w, rs, 64, l, e, b.u32[(at >>> 2) + 1]!, true); }
        else setRaw(w, rs, bits, l, e, bits === 32 ? b.u32[at >>> 2]! : bits === 16 ? b.u16[at >>> 1]! : b.u8[at]!, false);
      }
    }
  };
}

function mma(ctx: Ctx, what: string, M: number, N: number, K: number): Exec {
  const mods = ctx.ins.mods;
  const types = mods.filter((m) => BITS[m] !== undefined);
  let dt: string, at: string, ct: string;
  if (types.length === 2) { [dt, ct] = types as [string, string]; at = 'f16'; }
  else if (types.length === 4) { [dt, at, , ct] = types as [string, string, string, string]; }
  else return fail(ctx, `${what} is not supported yet`);
  const satfinite = mods.includes('satfinite');
  // .b1 (m8n8k128): each product is a XOR b (.xor.popc) or a AND b (.and.popc), summed
  const xor = mods.includes('xor');
  if (at === 'b1' && (!mods.includes('popc') || xor === mods.includes('and'))) return fail(ctx, `${what}: .b1 needs .xor.popc or .and.popc`);
  const ops = ctx.ins.operands;
  const D = regs(ctx, ops[0], true, '');
  const A = regs(ctx, ops[1], false, at === 'f64' ? 'f64' : 'b32');
  const B = regs(ctx, ops[2], false, at === 'f64' ? 'f64' : 'b32');
  const Cr = regs(ctx, ops[3], false, ct === 'f64' ? 'f64' : ct === 'f32' ? 'f32' : 'b32');
  const cSlots = (n: number, t: string): number => n * Math.max(1, 32 / BITS[t]!);
  if (cSlots(D.length, dt) * 32 < M * N || cSlots(Cr.length, ct) * 32 < M * N) return fail(ctx, `${what}: accumulator fragments are too short`);
  return (w: Warp, _m: number) => {
    // gather whole tiles first: D may alias C
    for (let l = 0; l < 32; l++) {
      for (let e = 0; e * 32 + l < M * K; e++) TA[e * 32 + l] = getSlot(w, A, at, l, e);
      for (let e = 0; e * 32 + l < K * N; e++) TB[e * 32 + l] = getSlot(w, B, at, l, e);
      for (let e = 0; e * 32 + l < M * N; e++) TC[e * 32 + l] = getSlot(w, Cr, ct, l, e);
    }
    for (let l = 0; l < 32; l++) {
      for (let e = 0; e * 32 + l < M * N; e++) {
        const idx = e * 32 + l;
        const r = Math.floor(idx / N), col = idx % N;
        let s = TC[idx]!;
        if (xor) for (let k = 0; k < K; k++) s += TA[r * K + k]! !== TB[k * N + col]! ? 1 : 0;
        else for (let k = 0; k < K; k++) s += TA[r * K + k]! * TB[k * N + col]!;
        if (dt === 'f32') w.f32[D[e]! + 2 * l] = Math.fround(s);
        else if (dt === 'f64') w.f64[(D[e]! + 2 * l) >> 1] = s;
        else if (dt === 'f16') setRaw(w, D, 16, l, e, toF16(s, RN), false);
        else w.i32[D[e]! + 2 * l] = satfinite ? Math.min(2147483647, Math.max(-2147483648, s)) : s | 0;
      }
    }
  };
}
