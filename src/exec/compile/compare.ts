/**
 * Comparisons: setp / set (integer, float, half pairs) and their comparison operators.
 */
import { typeSize } from '../../ptx/types.js';
import { lanes, type View } from '../codegen.js';
import type { Exec } from '../compiled.js';

import { type Ctx, bind, dst, fail, src } from './operands.js';
import { SIGNED, norm } from './modifiers.js';

export const CMP_INT: Record<string, string> = {
  eq: 'a === b', ne: 'a !== b', lt: 'a < b', le: 'a <= b', gt: 'a > b', ge: 'a >= b',
  lo: 'a < b', ls: 'a <= b', hi: 'a > b', hs: 'a >= b',
};
export const CMP_FLOAT: Record<string, string> = {
  eq: 'a === b', ne: '(a !== b && a === a && b === b)', lt: 'a < b', le: 'a <= b', gt: 'a > b', ge: 'a >= b',
  equ: '(a === b || a !== a || b !== b)', neu: 'a !== b', ltu: '!(a >= b)', leu: '!(a > b)', gtu: '!(a <= b)',
  geu: '!(a < b)', num: '(a === a && b === b)', nan: '(a !== a || b !== b)',
};

export function cmpOp(mods: readonly string[]): string {
  for (const m of mods) if (m in CMP_FLOAT || m in CMP_INT) return m;
  return 'eq';
}

/** What `set` writes for true, by destination type (false is 0 in every type). */
export const SET_TRUE: Readonly<Record<string, number>> = {
  u32: 0xffffffff, s32: 0xffffffff, b32: 0xffffffff, u16: 0xffff, s16: 0xffff, f16: 0x3c00, bf16: 0x3f80,
};

/**
 * An integer comparison (CMP_INT: `a OP b`, each operand once) of the expressions `x` and `y`,
 * inline: an arrow applied to them would be a closure made at every lane until V8 optimizes it.
 */
function intRel(rel: string, x: string, y: string): string {
  return `(${rel.replace(/\b[ab]\b/g, (v) => (v === 'a' ? `(${x})` : `(${y})`))})`;
}

export function compileSetp(ctx: Ctx, t: string): Exec {
  const ins = ctx.ins;
  const ops = ins.operands;
  const mods = ins.mods;
  if (t === 'f16x2' || t === 'bf16x2') return compileHalf2Compare(ctx, t);
  const cmp = cmpOp(mods);
  const isF = t === 'f32' || t === 'f64' || t === 'f16' || t === 'bf16';
  const boolOp = mods.find((m) => m === 'and' || m === 'or' || m === 'xor');
  const d0 = ops[0];
  let D: number;
  let E = -1;
  if (d0?.kind === 'pair') {
    D = dst(ctx, d0.a);
    E = d0.b.kind === 'sink' ? ctx.fc.scratch() : dst(ctx, d0.b);
  } else D = dst(ctx, d0);
  let A: number, B: number;
  let expr: string;
  let va: View;
  const is64 = typeSize(t) === 8 && !isF;
  if (isF) {
    va = t === 'f64' ? 'd' : 'f';
    A = src(ctx, ops[1], t === 'f64' ? 'f64' : t === 'f32' ? 'f32' : t);
    B = src(ctx, ops[2], t === 'f64' ? 'f64' : t === 'f32' ? 'f32' : t);
    const base = CMP_FLOAT[cmp] ?? fail(ctx, `unknown comparison .${cmp}`);
    if (t === 'f16' || t === 'bf16') {
      va = 'u';
      const conv = t === 'f16' ? 'K.fp.f16ToF32' : 'K.fp.bf16ToF32';
      // the halves are widened exactly to f32 first; the comparison (NaN rules included) is then the f32 one
      expr = `((a, b) => ${base})(${conv}(a & 65535), ${conv}(b & 65535))`;
    } else {
      const ftz = mods.includes('ftz') && t === 'f32';
      expr = ftz ? `((a, b) => ${base})(K.fp.ftz32(a), K.fp.ftz32(b))` : base;
    }
  } else if (is64) {
    va = 'l';
    A = src(ctx, ops[1], t);
    B = src(ctx, ops[2], t);
    const unsignedCmp = ['lo', 'ls', 'hi', 'hs'].includes(cmp) || !SIGNED.has(t);
    const rel = CMP_INT[cmp] ?? fail(ctx, `unknown comparison .${cmp}`);
    expr = intRel(rel, `K.i64.cmp64(alo, ahi, blo, bhi, ${!unsignedCmp})`, '0');
  } else {
    const unsignedCmp = ['lo', 'ls', 'hi', 'hs'].includes(cmp) || !SIGNED.has(t);
    va = unsignedCmp ? 'u' : 'i';
    A = src(ctx, ops[1], t);
    B = src(ctx, ops[2], t);
    const rel = CMP_INT[cmp] ?? fail(ctx, `unknown comparison .${cmp}`);
    const tt = unsignedCmp && !SIGNED.has(t) ? t : t;
    expr = intRel(rel, norm(tt, 'a'), norm(tt, 'b'));
  }
  let cSlot = 0;
  let cNeg = false;
  if (boolOp) {
    const cop = ops[3];
    if (cop?.kind === 'not') { cNeg = true; cSlot = src(ctx, cop.inner, 'pred'); } else cSlot = src(ctx, cop, 'pred');
  }
  const combine = (x: string): string => {
    if (!boolOp) return x;
    const cc = cNeg ? '!c' : 'c';
    return boolOp === 'and' ? `(${x}) && ${cc}` : boolOp === 'or' ? `(${x}) || ${cc}` : `(${x}) !== ${cc}`;
  };
  const isSet = ins.opcode === 'set';
  // set.CmpOp.dtype.stype: the first type is the destination's
  const dstType = isSet ? mods.find((m) => typeSize(m) > 0) ?? 'u32' : 'pred';
  const cmpExpr = expr;
  // d and e as numbers 1 / 0, never booleans: a local that holds both kinds is kept boxed by V8
  const body = `const r = ${cmpExpr}; d = (${combine('r')}) ? 1 : 0; e = (${combine('!r')}) ? 1 : 0;`;
  const dv: View = isSet ? (dstType === 'f32' ? 'f' : 'u') : 'p';
  const yes = !isSet || dstType === 'f32' ? 1 : SET_TRUE[dstType] ?? fail(ctx, `set cannot write type .${dstType}`);
  const setBody = isSet ? body.replace('d = ', 'const dd = ').replace('e = ', 'const ee = ') + ` d = dd ? ${yes} : 0; e = ee ? ${yes} : 0;` : body;
  return bind(lanes(dv, [va, va, 'p'], setBody, E >= 0 ? dv : 'n'), D, A, B, cSlot, E >= 0 ? E : 0);
}

/**
 * setp/set on .f16x2/.bf16x2: each half compared on its own (widened exactly to f32, .ftz flushing
 * f16 subnormals). setp writes the low half's result to p and the high half's to q (`p|q`); set
 * writes per half 1.0 (f16x2/bf16x2 destination) or 0xffff (u32/s32 destination), else 0.
 */
export function compileHalf2Compare(ctx: Ctx, t: 'f16x2' | 'bf16x2'): Exec {
  const ins = ctx.ins;
  const ops = ins.operands;
  const mods = ins.mods;
  const base = CMP_FLOAT[cmpOp(mods)] ?? fail(ctx, `unknown comparison .${cmpOp(mods)}`);
  const conv = t === 'f16x2' ? 'K.fp.f16ToF32' : 'K.fp.bf16ToF32';
  const flush = mods.includes('ftz') && t === 'f16x2';
  const half = (x: string): string => {
    const v = `${conv}(${x})`;
    return flush ? `((v) => (v !== 0 && Math.abs(v) < 6.103515625e-5 ? 0 : v))(${v})` : v;
  };
  const cmp = (sh: string): string => `((a, b) => ${base})(${half(`(a ${sh}) & 65535`)}, ${half(`(b ${sh}) & 65535`)})`;
  const boolOp = mods.find((m) => m === 'and' || m === 'or' || m === 'xor');
  let cSlot = 0;
  let cc = 'c';
  if (boolOp) {
    const cop = ops[3];
    if (cop?.kind === 'not') { cc = '!c'; cSlot = src(ctx, cop.inner, 'pred'); } else cSlot = src(ctx, cop, 'pred');
  }
  const combine = (x: string): string => (!boolOp ? x : boolOp === 'and' ? `(${x}) && ${cc}` : boolOp === 'or' ? `(${x}) || ${cc}` : `(${x}) !== ${cc}`);
  const A = src(ctx, ops[1], 'b32');
  const B = src(ctx, ops[2], 'b32');
  const lo = combine(cmp('>>> 0'));
  const hi = combine(cmp('>>> 16'));
  if (ins.opcode === 'setp') {
    const d0 = ops[0];
    if (d0?.kind !== 'pair') fail(ctx, `setp.${t} writes two predicates: p|q`);
    const D = d0.a.kind === 'sink' ? ctx.fc.scratch() : dst(ctx, d0.a);
    const E = d0.b.kind === 'sink' ? ctx.fc.scratch() : dst(ctx, d0.b);
    return bind(lanes('p', ['u', 'u', 'p'], `d = ${lo}; e = ${hi};`, 'p'), D, A, B, cSlot, E);
  }
  const dstType = mods.find((m) => typeSize(m) > 0) ?? t;
  const yes = dstType === 'f16x2' ? 0x3c00 : dstType === 'bf16x2' ? 0x3f80 : dstType === 'u32' || dstType === 's32' ? 0xffff : fail(ctx, `set.${dstType}.${t} is not a form of set`);
  return bind(lanes('u', ['u', 'u', 'p'], `d = (((${hi}) ? ${yes} : 0) << 16 | ((${lo}) ? ${yes} : 0)) >>> 0;`), dst(ctx, ops[0]), A, B, cSlot);
}
