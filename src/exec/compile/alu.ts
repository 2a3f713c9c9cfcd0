/**
 * The arithmetic/logic dispatch: one specialised lane loop per opcode, type and modifiers.
 */
import * as fp from '../float/index.js';
import { typeSize } from '../../ptx/types.js';
import { lanes } from '../codegen.js';
import type { Exec } from '../compiled.js';

import { type Ctx, bind, dst, fail, src, targetSm } from './operands.js';
import { SIGNED, norm, viewOf, roundMod } from './modifiers.js';
import { compileMulInt, compileCarry } from './int.js';
import { compileSetp } from './compare.js';
import { compileCvt } from './convert.js';
import { compileHalf } from './half.js';
import { prmt, bfe32, bfe64, fns, dotProduct } from './bits.js';

// ---- ALU -------------------------------------------------------------------------------------------
/**
 * What every ALU case reads of its instruction: its type and modifiers, its operand slots, and
 * the f32/f64 post-processing (rounding, .ftz, .sat). Made once per compiled instruction (compile
 * time only: the lane loops the cases generate are the same as when this was one function).
 */
interface Alu {
  readonly ctx: Ctx; readonly t: string; readonly op: string; readonly ops: Ctx['ins']['operands']; readonly mods: Ctx['ins']['mods'];
  readonly has: (m: string) => boolean; readonly isF: boolean; readonly is64: boolean; readonly ftz: boolean; readonly sat: boolean;
  readonly rnd: ReturnType<typeof roundMod>; readonly v: ReturnType<typeof viewOf>;
  readonly D: () => number; readonly A: (ty?: string) => number; readonly B: (ty?: string) => number; readonly C: (ty?: string) => number;
  readonly fpost: (expr: string) => string; readonly fin: (n: string) => string;
}

function aluOf(ctx: Ctx, t: string): Alu {
  const ins = ctx.ins;
  const ops = ins.operands;
  const mods = ins.mods;
  const has = (m: string): boolean => mods.includes(m);
  const op = ins.opcode;
  const isF = t === 'f32' || t === 'f64';
  const is64 = typeSize(t) === 8;
  const ftz = has('ftz');
  const sat = has('sat');
  const rnd = roundMod(mods);
  const D = (): number => dst(ctx, ops[0]);
  const A = (ty = t): number => src(ctx, ops[1], ty);
  const B = (ty = t): number => src(ctx, ops[2], ty);
  const C = (ty = t): number => src(ctx, ops[3], ty);
  const v = viewOf(t);

  // f32/f64 arithmetic with rounding/ftz/sat handled by one post-processing expression
  const fpost = (expr: string): string => {
    let e = expr;
    if (t === 'f32' && ftz) e = `K.fp.ftz32(${e})`;
    if (sat) e = `K.fp.sat(${e})`;
    return `d = ${e};`;
  };
  const fin = (n: string): string => (t === 'f32' && ftz ? `K.fp.ftz32(${n})` : n);
  return { ctx, t, op, ops, mods, has, isF, is64, ftz, sat, rnd, v, D, A, B, C, fpost, fin };
}

export function compileAlu(ctx: Ctx, t: string): Exec {
  const op = ctx.ins.opcode;
  if ((t === 'f16' || t === 'bf16' || t === 'f16x2' || t === 'bf16x2') && op !== 'cvt' && op !== 'setp' && op !== 'set') return compileHalf(ctx, t);
  const e = aluOf(ctx, t);
  // by job: arithmetic, selection/comparison/float functions, logic and bit fields; the rest
  // (texture, tensor, async copies, stack, cluster forms, ...) is not supported here
  return compileArith(e) ?? compileSelect(e) ?? compileBits(e) ?? fail(ctx, `'${[op, ...ctx.ins.mods].join('.')}' is not supported yet`);
}

/**
 * 64-bit add/sub of (lo, hi) uint32 words inline (no call returning through K.R, which V8 kept as
 * a call in fused blocks): the low sum is exact in a double, its carry or borrow is its overflow.
 */
function add64Body(add: boolean): string {
  return add
    ? 'const s = alo + blo; dlo = s >>> 0; dhi = (ahi + bhi + (s > 0xffffffff ? 1 : 0)) >>> 0;'
    : 'const s = alo - blo; dlo = s >>> 0; dhi = (ahi - bhi - (s < 0 ? 1 : 0)) >>> 0;';
}

/** add/sub (with carry), mul, mad/fma, mul24/mad24, sad, div/rem. */
function compileArith(e: Alu): Exec | undefined {
  const { ctx, t, op, has, isF, is64, ftz, sat, rnd, v, D, A, B, C, fpost, fin } = e;
  switch (op) {
    case 'add': case 'sub': {
      const sign = op === 'add' ? '+' : '-';
      if (isF) {
        const fn = t === 'f32' ? (op === 'add' ? 'f32Add' : 'f32Sub') : op === 'add' ? 'f64Add' : 'f64Sub';
        const direct = rnd === fp.RN ? `${fin('a')} ${sign} ${fin('b')}` : `K.fp.${fn}(${fin('a')}, ${fin('b')}, X0)`;
        return bind(lanes(v, [v, v], fpost(direct)), D(), A(), B(), 0, 0, rnd);
      }
      if (is64) return bind(lanes('l', ['l', 'l'], add64Body(op === 'add')), D(), A(), B());
      if (has('cc') || op === 'addc' as string) return compileCarry(ctx, op, t);
      if (sat && t === 's32') return bind(lanes('i', ['i', 'i'], `const s = a ${sign} b; d = s > 2147483647 ? 2147483647 : s < -2147483648 ? -2147483648 : s;`), D(), A(), B());
      return bind(lanes('i', [v, v], `d = (${norm(t, 'a')} ${sign} ${norm(t, 'b')}) | 0;`), D(), A(), B());
    }
    case 'addc': case 'subc': case 'madc': return compileCarry(ctx, op, t);
    case 'mul': {
      if (isF) {
        const direct = rnd === fp.RN ? `${fin('a')} * ${fin('b')}` : `K.fp.${t === 'f32' ? 'f32Mul' : 'f64Mul'}(${fin('a')}, ${fin('b')}, X0)`;
        return bind(lanes(v, [v, v], fpost(direct)), D(), A(), B(), 0, 0, rnd);
      }
      return compileMulInt(ctx, t, false);
    }
    case 'mad': case 'fma': {
      if (isF && t === 'f32' && rnd === fp.RN) {
        // Inline, without a call: a*b is exact in double, so rounding s = a*b + c (double) to f32
        // is the fused result unless s is exactly halfway between two f32 values (then the
        // error of s decides) or not finite; those take f32Fma. A zero s is exact (a nonzero sum
        // of these cannot round to zero in double) with the sign of the double sum, which is what
        // f32Fma returns for it in round-to-nearest: inline too (matmul-like sums hit it often).
        // An infinite s is exact (a product of f32 values cannot overflow a double, so an operand
        // is infinite): inline as well, as the ALU kernels that overflow keep hitting it
        const body = `const fa = ${fin('a')}, fb = ${fin('b')}, fc = ${fin('c')}; const s = fa * fb + fc, r = Math.fround(s), q = s - r;
          ${fpost('(s - s === 0 ? r - r === 0 && (q === 0 || Math.fround(r + 2 * q) !== r + 2 * q) : s === s) ? r : K.fp.f32Fma(fa, fb, fc, X0)')}`;
        return bind(lanes(v, [v, v, v], body), D(), A(), B(), C(), 0, rnd);
      }
      if (isF) {
        const fn = t === 'f32' ? 'f32Fma' : 'f64Fma';
        return bind(lanes(v, [v, v, v], fpost(`K.fp.${fn}(${fin('a')}, ${fin('b')}, ${fin('c')}, X0)`)), D(), A(), B(), C(), 0, rnd);
      }
      return compileMulInt(ctx, t, true);
    }
    case 'mul24': case 'mad24': {
      const hi = has('hi');
      const s = SIGNED.has(t);
      const ext = (x: string): string => (s ? `(${x} << 8 >> 8)` : `(${x} & 0xffffff)`);
      const prod = hi
        ? `(K.i64.${s ? 'mulWideS32' : 'mulWideU32'}(${ext('a')}, ${ext('b')}), ((K.R.lo >>> 16) | (K.R.hi << 16)))`
        : `Math.imul(${ext('a')}, ${ext('b')})`;
      const add = op === 'mad24' ? ' + c' : '';
      if (op === 'mad24' && hi && has('sat') && s) {
        // .sat (.hi.s32 only): the 32-bit signed addition clamps to MININT..MAXINT
        return bind(lanes('i', [v, v, v], `const q = (${prod} | 0) + c; d = q > 2147483647 ? 2147483647 : q < -2147483648 ? -2147483648 : q;`), D(), A(), B(), C());
      }
      return bind(lanes('i', [v, v, v], `d = (${prod}${add}) | 0;`), D(), A(), B(), op === 'mad24' ? C() : 0);
    }
    case 'sad':
      if (isF) {
        // ISA 1.1 SAD on .f32/.f64: d = c + |a - b|, each operation rounded to the type
        const r = t === 'f32' ? 'Math.fround' : '';
        return bind(lanes(v, [v, v, v], `d = ${r}(c + Math.abs(${r}(a - b)));`), D(), A(), B(), C());
      }
      // d = |a - b| + c, the difference taken in the type's signedness, the sum wrapping
      if (is64) {
        return bind(lanes('l', ['l', 'l', 'l'], `if (K.i64.cmp64(alo, ahi, blo, bhi, ${SIGNED.has(t)}) >= 0) K.i64.sub64(alo, ahi, blo, bhi); else K.i64.sub64(blo, bhi, alo, ahi);
          K.i64.add64(K.R.lo, K.R.hi, clo, chi); dlo = K.R.lo; dhi = K.R.hi;`), D(), A(), B(), C());
      }
      return bind(lanes('i', [v, v, v], `const x = ${norm(t, 'a')}, y = ${norm(t, 'b')}; d = ((x > y ? x - y : y - x) + c) | 0;`), D(), A(), B(), C());
    case 'div': case 'rem': {
      if (isF) {
        if (has('approx') || has('full')) {
          return bind(lanes(v, [v, v], fpost(`K.fp.${has('approx') ? 'divApprox' : 'divFull'}(a, b, ${ftz})`)), D(), A(), B());
        }
        const direct = rnd === fp.RN && t === 'f64' ? 'a / b' : `K.fp.${t === 'f32' ? 'f32Div' : 'f64Div'}(${fin('a')}, ${fin('b')}, X0)`;
        return bind(lanes(v, [v, v], fpost(t === 'f32' && rnd === fp.RN ? `${fin('a')} / ${fin('b')}` : direct)), D(), A(), B(), 0, 0, rnd);
      }
      if (is64) {
        const sg = SIGNED.has(t);
        return bind(lanes('l', ['l', 'l'], `K.i64.div64(alo, ahi, blo, bhi, ${sg}, ${op === 'rem'}); dlo = K.R.lo; dhi = K.R.hi;`), D(), A(), B());
      }
      const a = norm(t, 'a'), b = norm(t, 'b');
      if (SIGNED.has(t)) {
        return bind(lanes('i', ['i', 'i'], op === 'div'
          ? `const y = ${b}; d = y === 0 ? -1 : (${a} / y) | 0;`
          : `const y = ${b}; d = y === 0 ? ${a} : (${a} % y) | 0;`), D(), A(), B());
      }
      return bind(lanes('u', ['u', 'u'], op === 'div'
        ? `const y = ${b}; d = y === 0 ? 0xffffffff : Math.floor(${a} / y);`
        : `const y = ${b}; d = y === 0 ? ${a} : ${a} % y;`), D(), A(), B());
    }
    default: return undefined;
  }
}

/** abs/neg, min/max, comparison and selection (setp, selp, slct), cvt, the float functions (rcp, sqrt, sin, ...), copysign, testp. */
function compileSelect(e: Alu): Exec | undefined {
  const { ctx, t, op, ops, mods, has, isF, is64, ftz, rnd, v, D, A, B, C, fpost, fin } = e;
  switch (op) {
    case 'abs': case 'neg': {
      if (isF) {
        const e = op === 'abs' ? 'Math.abs(a)' : '-a';
        return bind(lanes(v, [v], `d = ${t === 'f32' && ftz ? `K.fp.ftz32(${e})` : e};`), D(), A());
      }
      if (is64) {
        return bind(lanes('l', ['l'], op === 'neg' || '' ? `K.i64.sub64(0, 0, alo, ahi); dlo = K.R.lo; dhi = K.R.hi;`
          : `if ((ahi | 0) < 0) { K.i64.sub64(0, 0, alo, ahi); dlo = K.R.lo; dhi = K.R.hi; } else { dlo = alo; dhi = ahi; }`), D(), A());
      }
      const a = norm(t, 'a');
      return bind(lanes('i', [v], op === 'neg' ? `d = -${a} | 0;` : `const x = ${a}; d = (x < 0 ? -x : x) | 0;`), D(), A());
    }
    case 'min': case 'max': {
      if (isF) {
        const nan = has('NaN');
        const fn = op === 'min' ? (nan ? 'fminNaN' : 'fmin') : nan ? 'fmaxNaN' : 'fmax';
        return bind(lanes(v, [v, v], `d = ${t === 'f32' && ftz ? `K.fp.ftz32(K.fp.${fn}(${fin('a')}, ${fin('b')}))` : `K.fp.${fn}(a, b)`};`), D(), A(), B());
      }
      if (is64) {
        const sg = SIGNED.has(t);
        const pick = op === 'min' ? '<= 0' : '>= 0';
        return bind(lanes('l', ['l', 'l'], `if (K.i64.cmp64(alo, ahi, blo, bhi, ${sg}) ${pick}) { dlo = alo; dhi = ahi; } else { dlo = blo; dhi = bhi; }`), D(), A(), B());
      }
      const a = norm(t, 'a'), b = norm(t, 'b');
      return bind(lanes(v, [v, v], `const x = ${a}, y = ${b}; d = x ${op === 'min' ? '<' : '>'} y ? x : y;`), D(), A(), B());
    }
    case 'setp': case 'set': return compileSetp(ctx, t);
    case 'selp': {
      const Cs = C('pred');
      if (is64 || t === 'f64') return bind(lanes('l', ['l', 'l', 'p'], 'if (c) { dlo = alo; dhi = ahi; } else { dlo = blo; dhi = bhi; }'), D(), A(), B(), Cs);
      return bind(lanes('u', ['u', 'u', 'p'], 'd = c ? a : b;'), D(), A(), B(), Cs);
    }
    case 'slct': {
      const tys = mods.filter((m) => m !== 'ftz');
      const dt = tys[0] ?? 'b32';
      const ct = tys[tys.length - 1] === 'f32' ? 'f32' : 's32';
      const Cs = C(ct);
      // .ftz flushes a subnormal c to sign-preserving zero (so a is selected); on sm_1x targets it
      // is implied, and an .f32 result is flushed too (PTX ISA 1.1 slct notes)
      const sm1x = (targetSm(ctx) ?? 20) < 20;
      const cTest = ct === 'f32' && (has('ftz') || sm1x) ? 'K.fp.ftz32(c) >= 0' : 'c >= 0';
      if (typeSize(dt) === 8 || dt === 'f64') return bind(lanes('l', ['l', 'l', ct === 'f32' ? 'f' : 'i'], `if (${cTest}) { dlo = alo; dhi = ahi; } else { dlo = blo; dhi = bhi; }`), D(), src(ctx, ops[1], dt), src(ctx, ops[2], dt), Cs);
      if (dt === 'f32' && sm1x) return bind(lanes('f', ['f', 'f', ct === 'f32' ? 'f' : 'i'], `d = K.fp.ftz32(${cTest} ? a : b);`), D(), src(ctx, ops[1], dt), src(ctx, ops[2], dt), Cs);
      return bind(lanes('u', ['u', 'u', ct === 'f32' ? 'f' : 'i'], `d = ${cTest} ? a : b;`), D(), src(ctx, ops[1], dt), src(ctx, ops[2], dt), Cs);
    }
    case 'cvt': return compileCvt(ctx);
    case 'rcp': case 'sqrt': case 'rsqrt': case 'sin': case 'cos': case 'lg2': case 'ex2': case 'tanh': {
      const approx = has('approx');
      let e: string;
      if (op === 'rcp') e = approx ? `K.fp.${t === 'f32' ? 'rcpApprox' : 'rcpApproxF64'}(a, ${ftz})` : `K.fp.${t === 'f32' ? 'f32Rcp' : 'f64Rcp'}(${fin('a')}, X0)`;
      else if (op === 'sqrt') e = approx ? `K.fp.sqrtApprox(a, ${ftz})` : t === 'f64' && rnd === fp.RN ? 'Math.sqrt(a)' : `K.fp.${t === 'f32' ? 'f32Sqrt' : 'f64Sqrt'}(${fin('a')}, X0)`;
      else if (op === 'rsqrt') e = `K.fp.${t === 'f64' ? 'rsqrtApproxF64' : 'rsqrtApprox'}(a, ${ftz})`;
      else if (op === 'tanh') e = 'K.fp.tanhApprox(a)';
      else e = `K.fp.${op}Approx(a, ${ftz})`;
      return bind(lanes(v, [v], fpost(e)), D(), A(), 0, 0, 0, rnd);
    }
    case 'copysign':
      // on the bits, so NaN signs survive: d = b with a's sign
      if (t === 'f64') return bind(lanes('l', ['l', 'l'], 'dlo = blo; dhi = ((bhi & 0x7fffffff) | (ahi & 0x80000000)) >>> 0;'), D(), A(), B());
      return bind(lanes('u', ['u', 'u'], 'd = ((b & 0x7fffffff) | (a & 0x80000000)) >>> 0;'), D(), A(), B());
    case 'testp': {
      const ty = mods[mods.length - 1]!;
      const code = fp.testpCode((mods.find((m) => ['finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal'].includes(m)) ?? 'finite') as fp.TestpOp);
      const vv = viewOf(ty);
      return bind(lanes('p', [vv], `d = K.fp.testp(a, X0, ${ty === 'f64'});`), D(), src(ctx, ops[1], ty), 0, 0, 0, code);
    }
    default: return undefined;
  }
}

/** Logic and shifts (and/or/xor/not/cnot, shl/shr) and bit fields (popc ... szext). */
function compileBits(e: Alu): Exec | undefined {
  const { ctx, t, op, ops, mods, has, is64, D, A, B, C } = e;
  switch (op) {
    case 'and': case 'or': case 'xor': {
      const o = op === 'and' ? '&' : op === 'or' ? '|' : '^';
      if (t === 'pred') return bind(lanes('p', ['p', 'p'], `d = ${op === 'xor' ? 'a !== b' : `a ${o}${o} b`};`), D(), A(), B());
      if (is64) return bind(lanes('l', ['l', 'l'], `dlo = (alo ${o} blo) >>> 0; dhi = (ahi ${o} bhi) >>> 0;`), D(), A(), B());
      return bind(lanes('i', ['i', 'i'], `d = a ${o} b;`), D(), A(), B());
    }
    case 'not': {
      if (t === 'pred') return bind(lanes('p', ['p'], 'd = !a;'), D(), A());
      if (is64) return bind(lanes('l', ['l'], 'dlo = ~alo >>> 0; dhi = ~ahi >>> 0;'), D(), A());
      return bind(lanes('i', ['i'], 'd = ~a;'), D(), A());
    }
    case 'cnot': return bind(lanes('i', ['u'], `d = ${norm(t, 'a')} === 0 ? 1 : 0;`), D(), A());
    case 'shl': case 'shr': {
      const Bs = B('u32');
      if (is64) {
        const e = op === 'shl' ? 'K.i64.shl64(alo, ahi, b)' : `K.i64.shr64(alo, ahi, b, ${SIGNED.has(t)})`;
        return bind(lanes('l', ['l', 'u'], `${e}; dlo = K.R.lo; dhi = K.R.hi;`), D(), A(), Bs);
      }
      const bits = typeSize(t) * 8;
      if (op === 'shl') return bind(lanes('i', ['i', 'u'], `d = b >= ${bits} ? 0 : a << b;`), D(), A(), Bs);
      if (SIGNED.has(t)) return bind(lanes('i', ['i', 'u'], `d = ${norm(t, 'a')} >> (b >= ${bits} ? ${bits - 1} : b);`), D(), A(), Bs);
      return bind(lanes('u', ['u', 'u'], `d = b >= ${bits} ? 0 : ${norm(t, 'a')} >>> b;`), D(), A(), Bs);
    }
    case 'popc': case 'clz': {
      const Dv = D();
      if (is64) {
        return bind(lanes('u', ['l'], op === 'popc' ? 'd = K.i64.popc32(alo) + K.i64.popc32(ahi);' : 'd = ahi !== 0 ? Math.clz32(ahi) : 32 + Math.clz32(alo);'), Dv, A());
      }
      return bind(lanes('u', ['u'], op === 'popc' ? 'd = K.i64.popc32(a);' : 'd = Math.clz32(a);'), Dv, A());
    }
    case 'brev': {
      if (is64) return bind(lanes('l', ['l'], 'dlo = K.i64.brev32(ahi); dhi = K.i64.brev32(alo);'), D(), A());
      return bind(lanes('u', ['u'], 'd = K.i64.brev32(a);'), D(), A());
    }
    case 'bfind': {
      const sh = has('shiftamt');
      if (is64) {
        const sg = SIGNED.has(t);
        return bind(lanes('u', ['l'], `let hi = ahi, lo = alo; if (${sg} && (hi | 0) < 0) { hi = ~hi >>> 0; lo = ~lo >>> 0; } let r = hi !== 0 ? 63 - Math.clz32(hi) : lo !== 0 ? 31 - Math.clz32(lo) : -1; d = r < 0 ? 0xffffffff : ${sh ? '63 - r' : 'r'};`), D(), A());
      }
      const sg = SIGNED.has(t);
      return bind(lanes('u', ['i'], `const x = ${sg} && a < 0 ? ~a : a; const r = x === 0 ? -1 : 31 - Math.clz32(x); d = r < 0 ? 0xffffffff : ${sh ? '31 - r' : 'r'};`), D(), A());
    }
    case 'bfe': {
      if (is64) {
        return bind(lanes('l', ['l', 'u', 'u'], 'K.i64.fromBig(X0(K.i64.toBig(alo, ahi), b & 255, c & 255, X1)); dlo = K.R.lo; dhi = K.R.hi;'), D(), A(), B('u32'), C('u32'), 0, bfe64, SIGNED.has(t));
      }
      return bind(lanes('u', ['u', 'u', 'u'], 'd = X0(a, b & 255, c & 255, X1);'), D(), A(), B('u32'), C('u32'), 0, bfe32, SIGNED.has(t));
    }
    case 'bfi': {
      const E = src(ctx, ops[4], 'u32');
      if (is64) {
        return bind(lanes('l', ['l', 'l', 'u'], `const p = BigInt(c & 255), n = BigInt(U[E + o] & 255); const a64 = K.i64.toBig(alo, ahi), b64 = K.i64.toBig(blo, bhi); let r = b64; if (n > 0n && p < 64n) { const len = p + n > 64n ? 64n - p : n; const mask = ((1n << len) - 1n) << p; r = (b64 & ~mask) | ((a64 << p) & mask); } K.i64.fromBig(r); dlo = K.R.lo; dhi = K.R.hi;`), D(), A(), B(), C('u32'), E);
      }
      return bind(lanes('u', ['u', 'u', 'u'], `const p = c & 255, n = U[E + o] & 255; if (n === 0 || p > 31) { d = b; } else { const len = p + n > 32 ? 32 - p : n; const mask = (len >= 32 ? 0xffffffff : ((1 << len) - 1) << p) >>> 0; d = ((b & ~mask) | ((a << p) & mask)) >>> 0; }`), D(), A(), B(), C('u32'), E);
    }
    case 'bmsk': {
      const wrap = has('wrap');
      return bind(lanes('u', ['u', 'u'], `let p = a, n = b; ${wrap ? 'p &= 31; n &= 31;' : 'if (p > 32) p = 32; if (n > 32) n = 32;'} const end = p + n > 32 ? 32 : p + n; const hiMask = end >= 32 ? 0xffffffff : (1 << end) - 1; const loMask = p >= 32 ? 0xffffffff : (1 << p) - 1; d = (hiMask & ~loMask) >>> 0;`), D(), A('u32'), B('u32'));
    }
    case 'prmt': {
      const mode = mods.find((m) => ['f4e', 'b4e', 'rc8', 'ecl', 'ecr', 'rc16'].includes(m)) ?? '';
      return bind(lanes('u', ['u', 'u', 'u'], 'd = X1(a, b, c, X0);'), D(), A('b32'), B('b32'), C('b32'), 0, mode, prmt);
    }
    case 'shf': {
      const left = has('l');
      const clamp = has('clamp');
      return bind(lanes('u', ['u', 'u', 'u'], `let n = ${clamp ? 'c > 32 ? 32 : c' : 'c & 31'}; ${left
        ? 'd = n === 0 ? b : n === 32 ? a : ((b << n) | (a >>> (32 - n))) >>> 0;'
        : 'd = n === 0 ? a : n === 32 ? b : ((a >>> n) | (b << (32 - n))) >>> 0;'}`), D(), A('b32'), B('b32'), C('u32'));
    }
    case 'lop3': {
      const lut = ops[4];
      if (lut?.kind !== 'int') fail(ctx, 'lop3 needs an immediate lookup table');
      return bind(lanes('u', ['u', 'u', 'u'], 'let r = 0; for (let k = 0; k < 32; k++) { const idx = (((a >>> k) & 1) << 2) | (((b >>> k) & 1) << 1) | ((c >>> k) & 1); r |= ((X0 >>> idx) & 1) << k; } d = r >>> 0;'), D(), A('b32'), B('b32'), C('b32'), 0, Number(lut.value) & 255);
    }
    case 'fns': return bind(lanes('u', ['u', 'u', 'i'], 'd = X0(a, b, c);'), D(), A('b32'), B('u32'), C('s32'), 0, fns);
    case 'dp4a': case 'dp2a': {
      const ua = mods[0] === 'u32', ub = mods[1] === 'u32';
      const hiPart = has('hi');
      return bind(lanes('i', ['u', 'u', 'i'], `d = X0(a, b, c, ${ua}, ${ub}, ${op === 'dp2a'}, ${hiPart}) | 0;`), D(), A('b32'), B('b32'), C('s32'), 0, dotProduct);
    }
    case 'szext': {
      const sg = has('s32');
      return bind(lanes('u', ['u', 'u'], `const n = b > 32 ? 32 : b; d = n === 0 ? 0 : n === 32 ? a : ${sg} ? ((a << (32 - n)) >> (32 - n)) >>> 0 : (a & ((1 << n) - 1)) >>> 0;`), D(), A('b32'), B('u32'));
    }
    default: return undefined;
  }
}
