/**
 * cvt: conversions between integer, float and half types with rounding and saturation.
 */
import * as fp from '../float/index.js';
import { typeSize } from '../../ptx/types.js';
import { lanes, type View } from '../codegen.js';
import type { Exec } from '../compiled.js';

import { type Ctx, bind, dst, fail, src } from './operands.js';
import { SIGNED, norm, roundMod } from './modifiers.js';

export function compileCvt(ctx: Ctx): Exec {
  const ins = ctx.ins;
  const ops = ins.operands;
  const mods = ins.mods;
  const types = mods.filter((m) => typeSize(m) > 0);
  const dt = types[0] ?? fail(ctx, 'cvt needs a destination type');
  const st = types[1] ?? fail(ctx, 'cvt needs a source type');
  const rnd = roundMod(mods);
  const hasR = (m: string): boolean => mods.includes(m);
  const ftz = hasR('ftz');
  const sat = hasR('sat');
  const satfinite = hasR('satfinite');
  const relu = hasR('relu');
  const D = dst(ctx, ops[0]);
  if (hasR('pack')) return cvtPack(ctx, dt, st, sat, D);
  const fp8 = cvtFp8(ctx, dt, st, satfinite, D);
  if (fp8) return fp8;
  if (dt === 'f16x2' || dt === 'bf16x2') {
    // cvt.rn.f16x2.f32 d, a, b: d.hi = a, d.lo = b
    const fn = dt === 'f16x2' ? 'toF16' : 'toBf16';
    return bind(lanes('u', ['f', 'f'], `d = K.fp.pack16x2(K.fp.${fn}(b, X0, ${satfinite}, ${relu}), K.fp.${fn}(a, X0, ${satfinite}, ${relu}));`),
      D, src(ctx, ops[1], 'f32'), src(ctx, ops[2], 'f32'), 0, 0, rnd);
  }
  const dFloat = dt === 'f32' || dt === 'f64' || dt === 'f16' || dt === 'bf16' || dt === 'tf32';
  const sFloat = st === 'f32' || st === 'f64' || st === 'f16' || st === 'bf16';
  const S = src(ctx, ops[1], st);
  const ds = typeSize(dt), ss = typeSize(st);
  // read source as a JS number (f32/f64 value, or integer value) -----------------------------------
  let sv: View;
  let sExpr: string;
  if (st === 'f32') { sv = 'f'; sExpr = ftz ? 'K.fp.ftz32(a)' : 'a'; }
  else if (st === 'f64') { sv = 'd'; sExpr = 'a'; }
  else if (st === 'f16') { sv = 'u'; sExpr = 'K.fp.f16ToF32(a & 65535)'; }
  else if (st === 'bf16') { sv = 'u'; sExpr = 'K.fp.bf16ToF32(a & 65535)'; }
  else if (ss === 8) { sv = 'l'; sExpr = ''; }
  else { sv = SIGNED.has(st) ? 'i' : 'u'; sExpr = norm(st, 'a'); }

  if (dFloat) {
    if (ss === 8 && !sFloat) {
      const sg = SIGNED.has(st);
      const fnName = dt === 'f64' ? 'cvtInt64ToF64' : 'cvtInt64ToF32';
      if (dt === 'f64' || dt === 'f32') {
        return bind(lanes(dt === 'f64' ? 'd' : 'f', ['l'], `d = K.fp.${fnName}(${sg ? 'BigInt.asIntN(64, K.i64.toBig(alo, ahi))' : 'K.i64.toBig(alo, ahi)'}, X0, ${sg});`), D, S, 0, 0, 0, rnd);
      }
      const toHalf = dt === 'f16' ? 'toF16' : 'toBf16';
      return bind(lanes('u', ['l'], `d = K.fp.${toHalf}(K.fp.cvtInt64ToF64(${sg ? 'BigInt.asIntN(64, K.i64.toBig(alo, ahi))' : 'K.i64.toBig(alo, ahi)'}, 0, ${sg}), X0);`), D, S, 0, 0, 0, rnd);
    }
    let e: string;
    if (dt === 'f32') {
      if (st === 'f32') e = hasR('rni') || hasR('rzi') || hasR('rmi') || hasR('rpi') ? `K.fp.roundToIntegral(${sExpr}, X0)` : sExpr;
      else if (st === 'f64') e = `K.fp.cvtF64ToF32(a, X0, ${ftz}, false)`;
      else if (sFloat) e = sExpr;
      else e = `K.fp.cvtIntToF32(${sExpr}, X0)`;
      if (ftz) e = `K.fp.ftz32(${e})`;
      if (sat) e = `K.fp.sat(${e})`;
      return bind(lanes('f', [sv], `d = ${e};`), D, S, 0, 0, 0, rnd);
    }
    if (dt === 'f64') {
      if (st === 'f64') e = hasR('rni') || hasR('rzi') || hasR('rmi') || hasR('rpi') ? `K.fp.roundToIntegral(a, X0)` : 'a';
      else e = sExpr;
      if (sat) e = `K.fp.sat(${e})`;
      return bind(lanes('d', [sv], `d = ${e};`), D, S, 0, 0, 0, rnd);
    }
    if (dt === 'tf32') return bind(lanes('u', [sv], `d = K.fp.toTf32(${sExpr}, ${mods.includes('rna') ? 'K.fp.RNA' : 'X0'}, ${satfinite}, ${relu});`), D, S, 0, 0, 0, rnd);
    // f16 / bf16 destination; integer sources convert exactly through double first
    const fn = dt === 'f16' ? 'toF16' : 'toBf16';
    let inner = sExpr;
    if (st === 'f16' || st === 'bf16') {
      if (st === dt) return bind(lanes('u', ['u'], 'd = a & 65535;'), D, S);
    }
    let e2 = `K.fp.${fn}(${inner}, X0, ${satfinite}, ${relu})`;
    if (sat) e2 = `K.fp.${dt === 'f16' ? 'sat16' : 'satBf16'}(${e2})`;
    void (inner = '');
    return bind(lanes('u', [sv], `d = ${e2};`), D, S, 0, 0, 0, rnd);
  }
  // integer destination ---------------------------------------------------------------------------
  const dSigned = SIGNED.has(dt);
  if (sFloat) {
    const r = hasR('rni') || hasR('rzi') || hasR('rmi') || hasR('rpi') ? rnd : fp.RZ;
    if (ds === 8) {
      return bind(lanes('l', [sv], `K.i64.fromBig(K.fp.cvtFloatToInt64(${sExpr}, X0, ${dSigned})); dlo = K.R.lo; dhi = K.R.hi;`), D, S, 0, 0, 0, r);
    }
    const lo = fp.INT_MIN[(dt.replace('b', 'u')) as fp.IntType] ?? 0;
    const hi = fp.INT_MAX[(dt.replace('b', 'u')) as fp.IntType] ?? 0xffffffff;
    return bind(lanes(dSigned ? 'i' : 'u', [sv], `d = K.fp.cvtFloatToInt(${sExpr}, X0, ${lo}, ${hi});`), D, S, 0, 0, 0, r);
  }
  // int → int
  if (ss === 8) {
    if (ds === 8) return bind(lanes('l', ['l'], 'dlo = alo; dhi = ahi;'), D, S);
    if (sat) {
      const lo = fp.INT_MIN[(dt.replace('b', 'u')) as fp.IntType] ?? 0;
      const hi = fp.INT_MAX[(dt.replace('b', 'u')) as fp.IntType] ?? 0xffffffff;
      const sg = SIGNED.has(st);
      return bind(lanes(dSigned ? 'i' : 'u', ['l'], `const x = ${sg ? 'BigInt.asIntN(64, K.i64.toBig(alo, ahi))' : 'K.i64.toBig(alo, ahi)'}; d = x < ${lo}n ? ${lo} : x > ${hi}n ? ${hi} : Number(x);`), D, S);
    }
    return bind(lanes(dSigned ? 'i' : 'u', ['l'], `d = ${norm(dt, 'alo')};`), D, S);
  }
  if (ds === 8) {
    const sg = SIGNED.has(st);
    return bind(lanes('l', [sv], `const x = ${sExpr}; dlo = x >>> 0; dhi = ${sg ? '(x < 0 ? 0xffffffff : 0)' : '0'};`), D, S);
  }
  if (sat) {
    const lo = fp.INT_MIN[(dt.replace('b', 'u')) as fp.IntType] ?? 0;
    const hi = fp.INT_MAX[(dt.replace('b', 'u')) as fp.IntType] ?? 0xffffffff;
    return bind(lanes(dSigned ? 'i' : 'u', [sv], `const x = ${sExpr}; d = x < ${lo} ? ${lo} : x > ${hi} ? ${hi} : x;`), D, S);
  }
  return bind(lanes(dSigned ? 'i' : 'u', [sv], `d = ${norm(dt, sExpr)};`), D, S);
}

/** cvt.pack.sat.{u16,s16,u8,s8,u4,s4,u2,s2}.s32. */
function cvtPack(ctx: Ctx, dt: string, st: string, sat: boolean, D: number): Exec {
  const ops = ctx.ins.operands;
  // cvt.pack.sat.{u16,s16}.s32 d, a, b: d = sat(a) << 16 | sat(b); the 8/4/2-bit forms pack
  // sat(a):sat(b) into the low 2n bits and fill the rest with the low bits of c (PTX ISA pseudocode)
  const bits = dt === 'u16' || dt === 's16' ? 16 : dt === 'u8' || dt === 's8' ? 8 : dt === 'u4' || dt === 's4' ? 4 : dt === 'u2' || dt === 's2' ? 2 : 0;
  if (bits === 0 || st !== 's32' || !sat) fail(ctx, `cvt.pack takes .sat, a destination of .u16/.s16/.u8/.s8/.u4/.s4/.u2/.s2 and .s32 sources`);
  const signed = dt.startsWith('s');
  const lo = signed ? -(2 ** (bits - 1)) : 0;
  const hi = signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
  const mask = 2 ** bits - 1;
  const satx = (x: string): string => `((${x} < ${lo} ? ${lo} : ${x} > ${hi} ? ${hi} : ${x}) & ${mask})`;
  const packed = `((${satx('a')} << ${bits}) | ${satx('b')})`;
  if (bits === 16) return bind(lanes('u', ['i', 'i'], `d = ${packed} >>> 0;`), D, src(ctx, ops[1], 's32'), src(ctx, ops[2], 's32'));
  return bind(lanes('u', ['i', 'i', 'u'], `d = (${packed} | (c << ${2 * bits})) >>> 0;`), D, src(ctx, ops[1], 's32'), src(ctx, ops[2], 's32'), src(ctx, ops[3], 'b32'));
}

/** The 8-bit float pairs (e4m3x2, e5m2x2) to and from: undefined when neither type is one. */
function cvtFp8(ctx: Ctx, dt: string, st: string, satfinite: boolean, D: number): Exec | undefined {
  const ops = ctx.ins.operands;
  if (dt === 'e4m3x2' || dt === 'e5m2x2') {
    // cvt.rn.satfinite.e4m3x2.f32 d, a, b: d[15:8] = a, d[7:0] = b; from .f16x2 one source, half by half
    const f = dt === 'e4m3x2' ? 'K.fp.E4M3' : 'K.fp.E5M2';
    if (st === 'f32') {
      return bind(lanes('u', ['f', 'f'], `d = (K.fp.toFp8(a, ${f}, ${satfinite}) << 8) | K.fp.toFp8(b, ${f}, ${satfinite});`), D, src(ctx, ops[1], 'f32'), src(ctx, ops[2], 'f32'));
    }
    if (st === 'f16x2') {
      return bind(lanes('u', ['u'], `d = (K.fp.toFp8(K.fp.f16ToF32(a >>> 16), ${f}, ${satfinite}) << 8) | K.fp.toFp8(K.fp.f16ToF32(a & 65535), ${f}, ${satfinite});`), D, src(ctx, ops[1], 'b32'));
    }
    fail(ctx, `cvt.${dt}.${st} is not a form of cvt`);
  }
  if (dt === 'f16x2' && (st === 'e4m3x2' || st === 'e5m2x2')) {
    // every 8-bit float is exactly an f16: d.hi from the high byte, d.lo from the low byte
    const f = st === 'e4m3x2' ? 'K.fp.E4M3' : 'K.fp.E5M2';
    return bind(lanes('u', ['u'], `d = K.fp.pack16x2(K.fp.toF16(K.fp.fp8ToNumber(a & 255, ${f}), 0), K.fp.toF16(K.fp.fp8ToNumber((a >>> 8) & 255, ${f}), 0));`), D, src(ctx, ops[1], 'b16'));
  }
  return undefined;
}
