/**
 * Integer multiply (mul/mad .lo/.hi/.wide) and the carry chain (add.cc, addc, sub.cc, subc, mad.cc).
 */
import { typeSize } from '../../ptx/types.js';
import { lanes } from '../codegen.js';
import type { Exec } from '../compiled.js';
import * as i64 from '../int64.js';
import type { Warp } from '../state.js';

import { type Ctx, bind, dst, src } from './operands.js';
import { SIGNED, norm, viewOf } from './modifiers.js';

export function compileMulInt(ctx: Ctx, t: string, mad: boolean): Exec {
  const ins = ctx.ins;
  const ops = ins.operands;
  const mods = ins.mods;
  const has = (m: string): boolean => mods.includes(m);
  const D = dst(ctx, ops[0]);
  const sg = SIGNED.has(t);
  const size = typeSize(t);
  const v = viewOf(t);
  if (has('wide')) {
    const A = src(ctx, ops[1], t), B = src(ctx, ops[2], t);
    if (size === 2) {
      const Cw = mad ? src(ctx, ops[3], sg ? 's32' : 'u32') : 0;
      return bind(lanes('i', [v, v, 'i'], `d = (Math.imul(${norm(t, 'a')}, ${norm(t, 'b')})${mad ? ' + c' : ''}) | 0;`), D, A, B, Cw);
    }
    const Cw = mad ? src(ctx, ops[3], sg ? 's64' : 'u64') : 0;
    const fn = sg ? 'mulWideS32' : 'mulWideU32';
    return bind(lanes('l', [v, v, mad ? 'l' : 'n'], `K.i64.${fn}(a, b); ${mad ? 'K.i64.add64(K.R.lo, K.R.hi, clo, chi); ' : ''}dlo = K.R.lo; dhi = K.R.hi;`), D, A, B, Cw);
  }
  const A = src(ctx, ops[1], t), B = src(ctx, ops[2], t);
  const Cs = mad ? src(ctx, ops[3], t) : 0;
  const hi = has('hi');
  if (size === 8) {
    const core = hi ? `K.i64.mulHi64(alo, ahi, blo, bhi, ${sg});` : 'K.i64.mulLo64(alo, ahi, blo, bhi);';
    const add = mad ? ' K.i64.add64(K.R.lo, K.R.hi, clo, chi);' : '';
    if (has('cc')) return compileCarry(ctx, ins.opcode, t);
    return bind(lanes('l', ['l', 'l', mad ? 'l' : 'n'], `${core}${add} dlo = K.R.lo; dhi = K.R.hi;`), D, A, B, Cs);
  }
  if (has('cc')) return compileCarry(ctx, ins.opcode, t);
  let prod: string;
  if (!hi) prod = `Math.imul(a, b)`;
  else if (size === 2) prod = `((${norm(t, 'a')} * ${norm(t, 'b')}) >> 16)`;
  else prod = `(K.i64.${sg ? 'mulWideS32' : 'mulWideU32'}(a, b), K.R.hi)`;
  if (mad && has('sat') && t === 's32') {
    return bind(lanes('i', ['i', 'i', 'i'], `K.i64.mulWideS32(a, b); const p = K.i64.toNumber(K.R.lo, K.R.hi, true) + c; d = p > 2147483647 ? 2147483647 : p < -2147483648 ? -2147483648 : p;`), D, A, B, Cs);
  }
  return bind(lanes('i', [v, v, v], `d = (${prod}${mad ? ' + c' : ''}) | 0;`), D, A, B, Cs);
}

/** add.cc / addc / sub.cc / subc / mad.cc / madc: per-lane carry flag in the warp. */
export function compileCarry(ctx: Ctx, op: string, t: string): Exec {
  const ops = ctx.ins.operands;
  const mods = ctx.ins.mods;
  const setsCC = mods.includes('cc');
  const usesCC = op === 'addc' || op === 'subc' || op === 'madc';
  const isSub = op === 'sub' || op === 'subc';
  const isMad = op === 'mad' || op === 'madc';
  const hi = mods.includes('hi');
  const is64 = typeSize(t) === 8;
  const D = dst(ctx, ops[0]);
  const A = src(ctx, ops[1], t), B = src(ctx, ops[2], t);
  const C = isMad ? src(ctx, ops[3], t) : 0;
  return (w: Warp, m: number) => {
    const u = w.u32;
    const cf = w.carry;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const o = l << 1;
      const cin = usesCC ? cf[l]! : 0;
      let a = i64.toBig(u[A + o]!, is64 ? u[A + o + 1]! : 0);
      let b = i64.toBig(u[B + o]!, is64 ? u[B + o + 1]! : 0);
      const bits = is64 ? 64n : 32n;
      const mod = 1n << bits;
      if (isMad) {
        const p = a * b;
        a = hi ? (p >> bits) & (mod - 1n) : p & (mod - 1n);
        b = i64.toBig(u[C + o]!, is64 ? u[C + o + 1]! : 0);
      }
      let r: bigint;
      let carry: number;
      if (isSub) {
        // as the hardware does it: a + ~b + 1 (sub.cc) or a + ~b + CF (subc), so CF holds the carry
        // of that addition, i.e. NOT borrow, and add.cc/addc/subc can read one another's CF
        r = a + ((mod - 1n) ^ b) + BigInt(usesCC ? cin : 1);
        carry = r >= mod ? 1 : 0;
      } else {
        r = a + b + BigInt(cin);
        carry = r >= mod ? 1 : 0;
      }
      r &= mod - 1n;
      u[D + o] = Number(r & 0xffffffffn);
      if (is64) u[D + o + 1] = Number(r >> 32n);
      if (setsCC) cf[l] = carry;
    }
  };
}

