/**
 * Warp-wide instructions: shfl, vote, activemask, match, redux, elect. They read every
 * participating lane's source before writing any destination (a snapshot), as the hardware does.
 */
import { lowestLane } from './int64.js';
import type { ROperand } from '../ptx/resolve.js';
import type { CInstr, Exec } from './compiled.js';
import { type Ctx, dst, fail, src } from './compile/operands.js';
import type { Warp } from './state.js';

const SNAP = new Uint32Array(64);
const SNAP2 = new Uint32Array(64);
/** Each lane's member mask, read before any destination is written. */
const SNAP3 = new Int32Array(32);

function predSrc(ctx: Ctx, op: ROperand | undefined): { slot: number; neg: boolean } {
  if (op?.kind === 'not') return { slot: src(ctx, op.inner, 'pred'), neg: true };
  return { slot: src(ctx, op, 'pred'), neg: false };
}

/**
 * Lane l's member mask: its own operand, limited to the lanes executing. Lanes may name
 * different (disjoint) groups in one execution: cooperative groups' labeled_partition runs a
 * redux or a vote per bucket at once, each lane reducing over its own group.
 */
function laneMask(w: Warp, slot: number, m: number, l: number): number {
  return w.i32[slot + 2 * l]! & m;
}

export function warpOp(ctx: Ctx, _c: CInstr): Exec {
  const ins = ctx.ins;
  const mods = ins.mods;
  const ops = ins.operands;
  const has = (m: string): boolean => mods.includes(m);
  switch (ins.opcode) {
    case 'activemask': {
      const D = dst(ctx, ops[0]);
      return (w, m) => {
        const i = w.i32;
        for (let l = 0; l < 32; l++) if ((m >>> l) & 1) i[D + 2 * l] = m;
      };
    }
    case 'shfl': {
      const mode = has('up') ? 0 : has('down') ? 1 : has('bfly') ? 2 : 3;
      const d0 = ops[0];
      let D: number;
      let P = -1;
      if (d0?.kind === 'pair') { D = dst(ctx, d0.a); P = d0.b.kind === 'sink' ? -1 : dst(ctx, d0.b); } else D = dst(ctx, d0);
      const A = src(ctx, ops[1], 'b32');
      const B = src(ctx, ops[2], 'b32');
      const C = src(ctx, ops[3], 'b32');
      return (w, m) => {
        const u = w.u32;
        for (let l = 0; l < 32; l++) SNAP[l] = u[A + 2 * l]!;
        for (let l = 0; l < 32; l++) {
          if (((m >>> l) & 1) === 0) continue;
          const o = l << 1;
          const b = u[B + o]! & 31;
          const c = u[C + o]!;
          const cval = c & 31;
          const seg = (c >>> 8) & 31;
          const maxLane = (l & seg) | (cval & ~seg);
          const minLane = l & seg;
          let j: number;
          let ok: boolean;
          switch (mode) {
            case 0: j = l - b; ok = j >= maxLane; break;
            case 1: j = l + b; ok = j <= maxLane; break;
            case 2: j = l ^ b; ok = j <= maxLane; break;
            default: j = minLane | (b & ~seg); ok = j <= maxLane; break;
          }
          if (!ok || j < 0 || j > 31) j = l;
          // reading an inactive lane is undefined on hardware; we return the caller's own value
          u[D + o] = ((m >>> j) & 1) ? SNAP[j]! : SNAP[l]!;
          if (P >= 0) w.i32[P + o] = ok ? 1 : 0;
        }
      };
    }
    case 'vote': {
      const kind = has('ballot') ? 'ballot' : has('all') ? 'all' : has('any') ? 'any' : has('uni') ? 'uni' : fail(ctx, 'vote needs .all/.any/.uni/.ballot');
      const D = dst(ctx, ops[0]);
      const p = predSrc(ctx, ops[1]);
      const M = ops[2] ? src(ctx, ops[2], 'b32') : -1;
      return (w, m) => {
        const i = w.i32;
        // every lane's predicate first (the destination may be a source of another lane)
        let votes = 0;
        for (let l = 0; l < 32; l++) if (((m >>> l) & 1) && ((i[p.slot + 2 * l]! !== 0) !== p.neg)) votes |= 1 << l;
        for (let l = 0; l < 32; l++) {
          if (((m >>> l) & 1) === 0) continue;
          const member = M >= 0 ? laneMask(w, M, m, l) : m;
          const ballot = votes & member;
          let r: number;
          if (kind === 'ballot') r = ballot;
          else if (kind === 'all') r = ballot === member ? 1 : 0;
          else if (kind === 'any') r = ballot !== 0 ? 1 : 0;
          else r = ballot === 0 || ballot === member ? 1 : 0;
          i[D + 2 * l] = r;
        }
      };
    }
    case 'match': {
      const all = has('all');
      const wide = has('b64');
      const d0 = ops[0];
      let D: number;
      let P = -1;
      if (d0?.kind === 'pair') { D = dst(ctx, d0.a); P = d0.b.kind === 'sink' ? -1 : dst(ctx, d0.b); } else D = dst(ctx, d0);
      const A = src(ctx, ops[1], wide ? 'b64' : 'b32');
      const M = src(ctx, ops[2], 'b32');
      return (w, m) => {
        const u = w.u32;
        for (let l = 0; l < 32; l++) { SNAP[l] = u[A + 2 * l]!; SNAP2[l] = wide ? u[A + 2 * l + 1]! : 0; SNAP3[l] = laneMask(w, M, m, l); }
        for (let l = 0; l < 32; l++) {
          if (((m >>> l) & 1) === 0) continue;
          const member = SNAP3[l]!;
          let same = 0;
          for (let j = 0; j < 32; j++) if (((member >>> j) & 1) && SNAP[j] === SNAP[l] && SNAP2[j] === SNAP2[l]) same |= 1 << j;
          const allSame = same === member;
          u[D + 2 * l] = (all ? (allSame ? member : 0) : same) >>> 0;
          if (P >= 0) w.i32[P + 2 * l] = allSame ? 1 : 0;
        }
      };
    }
    case 'redux': {
      const op = ['add', 'min', 'max', 'and', 'or', 'xor'].find((x) => has(x)) ?? fail(ctx, 'redux needs an operation');
      const signed = has('s32');
      if (has('f32')) fail(ctx, 'redux.f32 is not supported yet');
      const D = dst(ctx, ops[0]);
      const A = src(ctx, ops[1], 'b32');
      const M = src(ctx, ops[2], 'b32');
      return (w, m) => {
        const u = w.u32;
        for (let l = 0; l < 32; l++) { SNAP[l] = u[A + 2 * l]!; SNAP3[l] = laneMask(w, M, m, l); }
        // one reduction per distinct member mask (usually one: the whole warp)
        let done = 0;
        for (let l0 = 0; l0 < 32; l0++) {
          if (((m >>> l0) & 1) === 0 || ((done >>> l0) & 1)) continue;
          const member = SNAP3[l0]!;
          let acc = op === 'and' ? 0xffffffff : op === 'min' ? (signed ? 0x7fffffff : 0xffffffff) : op === 'max' ? (signed ? -0x80000000 : 0) : 0;
          for (let l = 0; l < 32; l++) {
            if (((member >>> l) & 1) === 0) continue;
            const v = signed ? SNAP[l]! | 0 : SNAP[l]!;
            switch (op) {
              case 'add': acc = (acc + v) >>> 0; break;
              case 'min': acc = v < acc ? v : acc; break;
              case 'max': acc = v > acc ? v : acc; break;
              case 'and': acc = (acc & v) >>> 0; break;
              case 'or': acc = (acc | v) >>> 0; break;
              default: acc = (acc ^ v) >>> 0;
            }
          }
          for (let l = l0; l < 32; l++) if (((m >>> l) & 1) && SNAP3[l] === member) { u[D + 2 * l] = acc >>> 0; done |= 1 << l; }
        }
      };
    }
    case 'elect': {
      const d0 = ops[0];
      let D: number;
      let P = -1;
      if (d0?.kind === 'pair') { D = d0.a.kind === 'sink' ? ctx.fc.scratch() : dst(ctx, d0.a); P = dst(ctx, d0.b); } else D = dst(ctx, d0);
      const M = src(ctx, ops[1], 'b32');
      return (w, m) => {
        for (let l = 0; l < 32; l++) SNAP3[l] = laneMask(w, M, m, l);
        for (let l = 0; l < 32; l++) if ((m >>> l) & 1) {
          const leader = lowestLane(SNAP3[l]!);
          w.u32[D + 2 * l] = leader;
          if (P >= 0) w.i32[P + 2 * l] = l === leader ? 1 : 0;
        }
      };
    }
    default:
      return fail(ctx, `unsupported warp instruction ${ins.opcode}`);
  }
}
