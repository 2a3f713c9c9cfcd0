/**
 * mov: register, immediate, special-register, address and vector pack/unpack forms.
 */
import { typeSize } from '../../ptx/types.js';
import { lanes } from '../codegen.js';
import type { Exec } from '../compiled.js';
import type { Warp } from '../state.js';
import { isClockSpecial } from '../../ptx/instructions.js';

import { type Ctx, bind, dst, fail, seq, src } from './operands.js';

export function compileMov(ctx: Ctx, t: string): Exec {
  const ops = ctx.ins.operands;
  const d = ops[0];
  const s = ops[1];
  const mods = ctx.ins.mods;
  if (d?.kind === 'vec' && s?.kind === 'vec' && (mods.includes('v2') || mods.includes('v3') || mods.includes('v4') || mods.includes('v8'))) {
    // mov.v4.u16 {a, b, c, d}, {d, a, b, c}: component by component, every source read before any
    // destination is written (the lists may overlap)
    if (d.items.length !== s.items.length) fail(ctx, `mov of ${s.items.length} components into ${d.items.length}`);
    const srcs = s.items.map((it) => src(ctx, it, t));
    const dsts = d.items.map((it) => (it.kind === 'sink' ? ctx.fc.scratch() : dst(ctx, it)));
    const n = srcs.length;
    const tmp = new Uint32Array(2 * n);
    return seq(ctx.pre, (w: Warp, m: number) => {
      const u = w.u32;
      for (let l = 0; l < 32; l++) if ((m >>> l) & 1) {
        const o = 2 * l;
        for (let i = 0; i < n; i++) { tmp[2 * i] = u[srcs[i]! + o]!; tmp[2 * i + 1] = u[srcs[i]! + o + 1]!; }
        for (let i = 0; i < n; i++) { u[dsts[i]! + o] = tmp[2 * i]!; u[dsts[i]! + o + 1] = tmp[2 * i + 1]!; }
      }
    });
  }
  if (s?.kind === 'special' && isClockSpecial(s.name)) {
    const D = dst(ctx, d);
    const name = s.name;
    return (w: Warp, m: number) => {
      const now = w.clock();
      const v = name === 'globaltimer' || name === 'globaltimer_lo' || name === 'globaltimer_hi' ? now * 32 : now;
      const lo = v >>> 0, hi = Math.floor(v / 4294967296) >>> 0;
      const u = w.u32;
      for (let l = 0; l < 32; l++) if ((m >>> l) & 1) {
        u[D + 2 * l] = name.endsWith('_hi') ? hi : lo;
        u[D + 2 * l + 1] = hi;
      }
    };
  }
  if (d?.kind === 'vec') {
    // unpack: mov.b64 {lo, hi}, %rd  /  mov.b32 {a, b}, %r
    const S = src(ctx, s, t);
    const parts = d.items.map((it) => (it.kind === 'sink' ? ctx.fc.scratch() : dst(ctx, it)));
    const size = typeSize(t);
    const each = (size * 8) / parts.length;
    return (w: Warp, m: number) => {
      const u = w.u32;
      for (let l = 0; l < 32; l++) if ((m >>> l) & 1) {
        const lo = u[S + 2 * l]!, hi = u[S + 2 * l + 1]!;
        for (let p = 0; p < parts.length; p++) {
          const bit = p * each;
          let v: number;
          if (each === 32) v = p === 0 ? lo : hi;
          else if (bit < 32) v = (lo >>> bit) & (each === 16 ? 0xffff : 0xff);
          else v = (hi >>> (bit - 32)) & (each === 16 ? 0xffff : 0xff);
          u[parts[p]! + 2 * l] = v;
          u[parts[p]! + 2 * l + 1] = 0;
        }
      }
    };
  }
  if (s?.kind === 'vec') {
    const size = typeSize(t);
    const each = (size * 8) / s.items.length;
    const parts = s.items.map((it) => src(ctx, it, each === 64 ? 'b64' : each === 32 ? 'b32' : 'b16'));
    const D = dst(ctx, d);
    return (w: Warp, m: number) => {
      const u = w.u32;
      for (let l = 0; l < 32; l++) if ((m >>> l) & 1) {
        let lo = 0, hi = 0;
        for (let p = 0; p < parts.length; p++) {
          const v = u[parts[p]! + 2 * l]!;
          const bit = p * each;
          const mask = each === 32 ? 0xffffffff : each === 16 ? 0xffff : 0xff;
          if (bit < 32) lo |= (v & mask) << bit;
          else hi |= (v & mask) << (bit - 32);
        }
        u[D + 2 * l] = lo >>> 0;
        u[D + 2 * l + 1] = hi >>> 0;
      }
    };
  }
  const D = dst(ctx, d);
  const S = src(ctx, s, t);
  if (t === 'pred') return bind(lanes('p', ['p'], 'd = a;'), D, S);
  if (typeSize(t) === 8) return bind(lanes('l', ['l'], 'dlo = alo; dhi = ahi;'), D, S);
  return bind(lanes('u', ['u'], 'd = a;'), D, S);
}
