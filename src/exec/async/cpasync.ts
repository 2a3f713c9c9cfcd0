/**
 * cp.async (sm_80): cp.async.{ca,cg}.shared.global with 4/8/16-byte copies, src-size zero fill and
 * the ignore-src predicate; cp.async.commit_group / wait_group / wait_all.
 * The copy is performed when it is issued. The ISA only promises completion at the wait, so an
 * earlier completion is one legal behaviour; it keeps no hidden per-thread queue that checkpoints
 * would have to save. commit/wait are therefore ordering no-ops for execution; they tell a probe
 * (the race checker) when copies complete, so a read of the destination before the wait is a race.
 */
import type { Exec } from '../compiled.js';
import { type Ctx, fail, src } from '../compile/operands.js';
import { AH, AL, addrGen, computeAddrs } from '../address.js';
import { Space } from '../memory.js';
import { Access, AsyncEvent } from '../probe.js';
import { compileMbarrier } from './mbarrier.js';
import type { Warp } from '../state.js';

const DL = new Uint32Array(32), DH = new Uint32Array(32);
const BUF = new Uint8Array(16);

export function compileCpAsync(ctx: Ctx): Exec {
  const mods = ctx.ins.mods;
  const what = `'cp.${mods.join('.')}'`;
  if (mods[0] !== 'async') return fail(ctx, `${what} is not supported yet`);
  if (mods.includes('commit_group') || mods.includes('wait_group') || mods.includes('wait_all')) {
    if (mods.length > 2) return fail(ctx, `${what} is not supported yet`);
    // ordering no-ops for execution; the race checker learns from them when copies complete
    const ev = mods.includes('commit_group') ? AsyncEvent.Commit : mods.includes('wait_group') ? AsyncEvent.WaitGroup : AsyncEvent.WaitAll;
    const nOp = ctx.ins.operands[0];
    const n = ev === AsyncEvent.WaitGroup ? (nOp?.kind === 'int' ? Number(nOp.value) : fail(ctx, `${what} needs an immediate group count`)) : 0;
    return (w: Warp, m: number) => { const p = w.mem.probe; if (p?.asyncCopies !== undefined) p.asyncCopies(w, m, ev, n); };
  }
  if (mods[1] === 'mbarrier') return compileMbarrier(ctx, true);
  if (mods.includes('bulk') || mods.includes('mbarrier')) return fail(ctx, `${what} is not supported yet`);
  if (!(mods.includes('ca') || mods.includes('cg'))) return fail(ctx, `${what} needs .ca or .cg`);
  const dstSpace = mods.some((m) => m === 'shared' || m === 'shared::cta') ? Space.Shared : fail(ctx, `${what}: the destination must be .shared`);
  if (!mods.includes('global')) return fail(ctx, `${what}: the source must be .global`);
  const ops = ctx.ins.operands.slice();
  if (mods.some((m) => m.endsWith('cache_hint'))) ops.pop(); // trailing cache-policy operand
  const gd = addrGen(ctx, ops[0]);
  const gs = addrGen(ctx, ops[1]);
  const sizeOp = ops[2];
  if (sizeOp?.kind !== 'int') return fail(ctx, `${what}: cp-size must be 4, 8 or 16`);
  const size = Number(sizeOp.value);
  if (size !== 4 && size !== 8 && size !== 16) return fail(ctx, `${what}: cp-size must be 4, 8 or 16`);
  if (mods.includes('cg') && size !== 16) return fail(ctx, `${what}: .cg copies 16 bytes`);
  const extra = ops[3];
  const isPred = extra !== undefined && (extra.kind === 'not' || (extra.kind === 'reg' && extra.reg.type === 'pred'));
  const P = isPred ? src(ctx, extra.kind === 'not' ? extra.inner : extra, 'pred') : -1;
  const pNeg = isPred && extra.kind === 'not';
  const S = extra !== undefined && !isPred ? src(ctx, extra, 'u32') : -1;
  return (w: Warp, m: number) => {
    computeAddrs(w, m, gd);
    for (let l = 0; l < 32; l++) { DL[l] = AL[l]!; DH[l] = AH[l]!; }
    computeAddrs(w, m, gs);
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      let n: number = size;
      if (S >= 0) n = Math.min(size, w.u32[S + 2 * l]!);
      if (P >= 0 && (w.i32[P + 2 * l] !== 0) !== pNeg) n = 0;
      BUF.fill(0);
      if (n > 0) {
        // the source is read as one access of cp-size bytes when whole, byte by byte when partial
        if (n === size) {
          const si = w.translate(Space.Global, AL[l]!, AH[l]!, size, l, Access.Read);
          BUF.set(w.xbank.u8.subarray(si, si + size));
        } else {
          for (let k = 0; k < n; k++) {
            const lo = AL[l]! + k;
            const si = w.translate(Space.Global, lo >>> 0, (AH[l]! + (lo > 0xffffffff ? 1 : 0)) >>> 0, 1, l, Access.Read);
            BUF[k] = w.xbank.u8[si]!;
          }
        }
      }
      const di = w.translate(dstSpace, DL[l]!, DH[l]!, size, l, Access.Write);
      w.xbank.u8.set(BUF.subarray(0, size), di);
    }
  };
}
