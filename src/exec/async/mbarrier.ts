/**
 * mbarrier.{init,arrive,arrive_drop,test_wait,try_wait[.parity],pending_count,inval}.shared.b64 and
 * cp.async.mbarrier.arrive[.noinc]. The barrier's whole state lives in its 8 bytes of shared
 * memory (the ISA leaves the encoding opaque), so checkpoints and time travel need nothing extra:
 *   low word: pending arrivals of the current phase; high word: expected count (bits 0..30)
 *   and the current phase parity (bit 31).
 * An arrival token has the same shape: the pending count just after the arrive and the phase
 * it arrived on. Lanes arrive one at a time, in lane order. try_wait returns at once (a time limit
 * of zero is one the ISA allows); callers loop, as nvcc's code does.
 */
import type { Exec } from '../compiled.js';
import { type Ctx, dst, fail, src } from '../compile/operands.js';
import { AH, AL, addrGen, computeAddrs, spaceMod } from '../address.js';
import { Access, AsyncEvent } from '../probe.js';
import { Fault } from '../fault.js';
import type { Warp } from '../state.js';

const PHASE = 0x80000000;

export function compileMbarrier(ctx: Ctx, cpAsync: boolean): Exec {
  const mods = ctx.ins.mods;
  const what = `'${cpAsync ? 'cp.' : 'mbarrier.'}${mods.join('.')}'`;
  const ops = ctx.ins.operands;
  const space = spaceMod(mods);
  if (cpAsync) {
    // copies complete at issue (cpasync.ts), so the asynchronous arrive happens now; without
    // .noinc the pending count is first raised by one, which cancels it
    const noinc = mods.includes('noinc');
    const g = addrGen(ctx, ops[0]);
    return (w: Warp, m: number) => {
      // the barrier now tracks this thread's copies: the race checker counts them complete
      const p = w.mem.probe;
      if (p?.asyncCopies !== undefined) p.asyncCopies(w, m, AsyncEvent.WaitAll, 0);
      if (!noinc) return;
      computeAddrs(w, m, g);
      for (let l = 0; l < 32; l++) if ((m >>> l) & 1) arrive(w, space, l, 1, false);
    };
  }
  const op = mods[0];
  switch (op) {
    case 'init': {
      const g = addrGen(ctx, ops[0]);
      const N = src(ctx, ops[1], 'u32');
      return (w: Warp, m: number) => {
        computeAddrs(w, m, g);
        for (let l = 0; l < 32; l++) {
          if (((m >>> l) & 1) === 0) continue;
          const n = w.u32[N + 2 * l]! & 0x7fffffff;
          const i = w.translate(space, AL[l]!, AH[l]!, 8, l, Access.Write) >>> 2;
          w.xbank.u32[i] = n;
          w.xbank.u32[i + 1] = n;
        }
      };
    }
    case 'inval': {
      const g = addrGen(ctx, ops[0]);
      return (w: Warp, m: number) => {
        computeAddrs(w, m, g);
        for (let l = 0; l < 32; l++) {
          if (((m >>> l) & 1) === 0) continue;
          const i = w.translate(space, AL[l]!, AH[l]!, 8, l, Access.Write) >>> 2;
          w.xbank.u32[i] = 0;
          w.xbank.u32[i + 1] = 0;
        }
      };
    }
    case 'arrive': case 'arrive_drop': {
      if (mods.includes('expect_tx')) return fail(ctx, `${what} is not supported yet`);
      // .noComplete (PTX 7.0): an arrive that must not complete the phase; if it would, the ISA
      // leaves the behaviour undefined, which is reported here as a fault rather than guessed
      const noComplete = mods.includes('noComplete');
      const D = dst(ctx, ops[0]);
      const g = addrGen(ctx, ops[1]);
      const C = ops[2] ? src(ctx, ops[2], 'u32') : -1;
      if (noComplete && C < 0) return fail(ctx, `${what} needs a count operand`);
      const drop = op === 'arrive_drop';
      return (w: Warp, m: number) => {
        computeAddrs(w, m, g);
        for (let l = 0; l < 32; l++) {
          if (((m >>> l) & 1) === 0) continue;
          if (noComplete) {
            const i = w.translate(space, AL[l]!, AH[l]!, 8, l, Access.Read) >>> 2;
            if (w.xbank.u32[i]! <= w.u32[C + 2 * l]!) {
              const f = new Fault('trap', `${what}: this arrive would complete the barrier's phase (${w.xbank.u32[i]} pending, count ${w.u32[C + 2 * l]}), which the ISA leaves undefined`);
              f.lane = l;
              throw f;
            }
          }
          arrive(w, space, l, C >= 0 ? w.u32[C + 2 * l]! : 1, drop);
          w.u32[D + 2 * l] = TOK_LO;
          w.u32[D + 2 * l + 1] = TOK_HI;
        }
      };
    }
    case 'test_wait': case 'try_wait': {
      const parity = mods.includes('parity');
      const P = dst(ctx, ops[0]);
      const g = addrGen(ctx, ops[1]);
      const S = src(ctx, ops[2], parity ? 'u32' : 'b64');
      return (w: Warp, m: number) => {
        computeAddrs(w, m, g);
        for (let l = 0; l < 32; l++) {
          if (((m >>> l) & 1) === 0) continue;
          const i = w.translate(space, AL[l]!, AH[l]!, 8, l, Access.Read) >>> 2;
          const phase = w.xbank.u32[i + 1]! >>> 31;
          const waited = parity ? w.u32[S + 2 * l]! & 1 : w.u32[S + 2 * l + 1]! >>> 31;
          // the phase waited on has completed once the barrier has moved to the other parity
          w.i32[P + 2 * l] = phase !== waited ? 1 : 0;
        }
      };
    }
    case 'pending_count': {
      const D = dst(ctx, ops[0]);
      const S = src(ctx, ops[1], 'b64');
      return (w: Warp, m: number) => {
        for (let l = 0; l < 32; l++) if ((m >>> l) & 1) w.u32[D + 2 * l] = w.u32[S + 2 * l]!;
      };
    }
    default:
      return fail(ctx, `${what} is not supported yet`);
  }
}

let TOK_LO = 0, TOK_HI = 0;

/** One lane's arrive of `count` on the barrier at (AL, AH)[lane]; leaves the token in TOK_*. */
function arrive(w: Warp, space: ReturnType<typeof spaceMod>, l: number, count: number, drop: boolean): void {
  const i = w.translate(space, AL[l]!, AH[l]!, 8, l, Access.Atomic) >>> 2;
  const u = w.xbank.u32;
  let pending = u[i]!;
  let hi = u[i + 1]!;
  let expected = hi & 0x7fffffff;
  if (drop) expected = Math.max(0, expected - 1);
  pending = Math.max(0, pending - count);
  TOK_LO = pending;
  TOK_HI = hi & PHASE;
  if (pending === 0) {
    hi = (hi ^ PHASE) & PHASE;
    pending = expected;
  } else hi &= PHASE;
  u[i] = pending;
  u[i + 1] = (hi | expected) >>> 0;
}
