/**
 * Memory instructions: ld/ldu/st (scalar and vector), atom/red, cvta, isspacep. Each lane's
 * address goes through Warp.translate (bounds, alignment, generic windows); values move through
 * the target bank's aligned typed-array views. Addressing (spaces, per-lane addresses) is address.ts.
 */
import type { ROperand } from '../ptx/resolve.js';
import { typeSize } from '../ptx/types.js';
import type { CInstr, Exec } from './compiled.js';
import { type Ctx, dst, fail, src, targetSm } from './compile/operands.js';
import { AH, AL, addrGen, type AddrGen, computeAddrs, spaceMod } from './address.js';
import * as fp from './float/index.js';
import { Bank, FRAME_PARAM_BASE, GLOBAL_HI, PAGE_SHIFT, SHARED_HI, Space, spaceOfWindow, spaceOfWindow32, window32Of, WINDOW32_SHIFT, windowOf } from './memory.js';
import { Access } from './probe.js';
import type { Warp } from './state.js';
import { markMemOp, markUniformLoad } from './block/memspec.js';
import { lanes } from './codegen.js';

function readValue(b: Bank, idx: number, size: number, signed: boolean, u: Uint32Array, d: number): void {
  switch (size) {
    case 1: { const v = signed ? b.i8[idx]! : b.u8[idx]!; u[d] = v >>> 0; u[d + 1] = v < 0 ? 0xffffffff : 0; break; }
    case 2: { const v = signed ? b.i16[idx >>> 1]! : b.u16[idx >>> 1]!; u[d] = v >>> 0; u[d + 1] = v < 0 ? 0xffffffff : 0; break; }
    case 4: {
      // a 32-bit load into a 64-bit register extends by the instruction's type
      const v = b.u32[idx >>> 2]!;
      u[d] = v;
      u[d + 1] = signed && v >= 0x80000000 ? 0xffffffff : 0;
      break;
    }
    default: u[d] = b.u32[idx >>> 2]!; u[d + 1] = b.u32[(idx >>> 2) + 1]!; break;
  }
}

function writeValue(b: Bank, idx: number, size: number, u: Uint32Array, s: number): void {
  switch (size) {
    case 1: b.u8[idx] = u[s]!; break;
    case 2: b.u16[idx >>> 1] = u[s]!; break;
    case 4: b.u32[idx >>> 2] = u[s]!; break;
    default: b.u32[idx >>> 2] = u[s]!; b.u32[(idx >>> 2) + 1] = u[s + 1]!; break;
  }
}

export function memOp(ctx: Ctx, c: CInstr, _K: unknown): Exec {
  const ins = ctx.ins;
  const mods = ins.mods;
  const ops = ins.operands;
  switch (ins.opcode) {
    case 'ld': case 'ldu': return compileLd(ctx);
    case 'st': return compileSt(ctx);
    case 'atom': case 'red': return compileAtom(ctx);
    case 'cvta': {
      const toState = mods.includes('to');
      const space = spaceMod(mods);
      const size32 = mods.includes('u32') || mods.includes('b32');
      const D = dst(ctx, ops[0]);
      const S = src(ctx, ops[1], size32 ? 'u32' : 'u64');
      const win = windowOf(space);
      if (toState) {
        // to a state space: the low word, and for .global the high word as it is (own literals:
        // the general loop below, shared by every form, is slower)
        // a generated lane loop (a 64-bit copy), so a block fuses it with its neighbours
        if (space === Space.Global && !size32) return lanes('l', ['l'], 'dlo = alo; dhi = ahi;')(_K, D, S, 0, 0, 0, 0, 0, 0);
        // 32-bit generic addresses (.address_size 32) keep the window in the top byte
        const keep32 = size32 && window32Of(space) !== 0 ? (1 << WINDOW32_SHIFT) - 1 : 0xffffffff;
        return (w: Warp, m: number) => {
          const u = w.u32;
          const keep = w.mem.addr32 === true ? keep32 : 0xffffffff;
          for (let l = 0; l < 32; l++) {
            if (((m >>> l) & 1) === 0) continue;
            const o = l << 1;
            u[D + o] = (u[S + o]! & keep) >>> 0;
            u[D + o + 1] = 0;
          }
        };
      }
      const top32 = size32 ? window32Of(space) << WINDOW32_SHIFT : 0;
      return (w: Warp, m: number) => {
        const u = w.u32;
        for (let l = 0; l < 32; l++) {
          if (((m >>> l) & 1) === 0) continue;
          const o = l << 1;
          const lo = u[S + o]!;
          const hi = size32 ? 0 : u[S + o + 1]!;
          // a null state-space pointer stays null in the generic space
          const isNull = lo === 0 && (space === Space.Global ? hi === 0 : true) && space === Space.Global;
          u[D + o] = top32 !== 0 && w.mem.addr32 === true ? (lo | top32) >>> 0 : lo;
          u[D + o + 1] = isNull ? 0 : space === Space.Global ? (hi === 0 ? GLOBAL_HI : hi) : win;
        }
      };
    }
    case 'isspacep': {
      const space = spaceMod(mods);
      const D = dst(ctx, ops[0]);
      const S = src(ctx, ops[1], 'u64');
      const narrow = typeSize(ctx.ins.operands[1]?.kind === 'reg' ? ctx.ins.operands[1].reg.type : 'u64') <= 4;
      return (w: Warp, m: number) => {
        const u = w.u32;
        const i = w.i32;
        // a 32-bit generic address (.address_size 32) has its window in the top byte
        const a32 = narrow && w.mem.addr32 === true;
        for (let l = 0; l < 32; l++) {
          if (((m >>> l) & 1) === 0) continue;
          const sp = a32 ? spaceOfWindow32(u[S + 2 * l]!) : spaceOfWindow(u[S + 2 * l + 1]!);
          i[D + 2 * l] = sp === space ? 1 : 0;
        }
      };
    }
    default:
      return fail(ctx, `unsupported memory instruction ${ins.opcode}`);
  }
  void c;
}

function elemInfo(mods: readonly string[]): { type: string; size: number; vec: number } {
  let type = 'b32';
  let vec = 1;
  for (const m of mods) {
    if (m === 'v2') vec = 2;
    else if (m === 'v4') vec = 4;
    else if (m === 'v8') vec = 8;
    else if (typeSize(m) > 0) type = m;
  }
  return { type, size: typeSize(type), vec };
}

function regList(ctx: Ctx, op: ROperand | undefined, isDst: boolean, type: string): number[] {
  if (op?.kind === 'vec') return op.items.map((it) => (it.kind === 'sink' ? ctx.fc.scratch() : isDst ? dst(ctx, it) : src(ctx, it, type)));
  return [isDst ? dst(ctx, op) : src(ctx, op, type)];
}

function compileLd(ctx: Ctx): Exec {
  const ops = ctx.ins.operands;
  const { type, size, vec } = elemInfo(ctx.ins.mods);
  if (size > 8) fail(ctx, `${size * 8}-bit loads are not supported yet`);
  const space = spaceMod(ctx.ins.mods);
  const g = addrGen(ctx, ops[1]);
  const dsts = regList(ctx, ops[0], true, type);
  const signed = type.startsWith('s');
  const total = size * vec;
  const scalar = vec === 1 ? scalarLd(g, space, size, signed, dsts[0]!) : undefined;
  if (scalar !== undefined) return scalar;
  const perLane = (w: Warp, m: number): void => {
    computeAddrs(w, m, g);
    const u = w.u32;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      let idx = w.quickIndex(space, AL[l]!, AH[l]!, total, false);
      if (idx < 0) idx = w.translate(space, AL[l]!, AH[l]!, total, l, Access.Read);
      const b = w.xbank;
      for (let k = 0; k < dsts.length; k++) readValue(b, idx + k * size, size, signed, u, dsts[k]! + 2 * l);
    }
  };
  if (!uniformAddress(g, space)) return perLane;
  // one address for every lane (kernel parameters, variables): one translation and read, copied
  // to the other lanes; a probe of the space sees every lane's access, so it takes the per-lane path
  const uniform = (w: Warp, m: number) => {
    const p = w.mem.probe;
    if (m === 0 || (p !== undefined && (p.spaces === undefined || ((p.spaces >>> space) & 1) !== 0))) { perLane(w, m); return; }
    const l0 = 31 - Math.clz32(m & -m);
    let idx = w.quickIndex(space, g.lo, g.hi, total, false);
    if (idx < 0) idx = w.translate(space, g.lo, g.hi, total, l0, Access.Read);
    const b = w.xbank;
    const u = w.u32;
    for (let k = 0; k < dsts.length; k++) {
      const d = dsts[k]!;
      readValue(b, idx + k * size, size, signed, u, d + 2 * l0);
      const lo = u[d + 2 * l0]!, hi = u[d + 2 * l0 + 1]!;
      for (let l = l0 + 1; l < 32; l++) {
        if (((m >>> l) & 1) === 0) continue;
        u[d + 2 * l] = lo;
        u[d + 2 * l + 1] = hi;
      }
    }
  };
  // a block (src/exec/block/) reads the bank once and copies the value to its lanes
  if (vec === 1 && (size === 4 || size === 8) && (g.lo & (size - 1)) === 0 && (space === Space.Param || space === Space.Const)) {
    return markUniformLoad(uniform, { space, lo: g.lo, size, signed, data: dsts[0]! });
  }
  return uniform;
}

/**
 * The commonest load, a 32- or 64-bit scalar through a register address, as a function of its
 * own: V8 optimizes a function literal once for all its closures, and the general loop, serving
 * every size, vector and address form, is slower for it. Same order of effects per lane.
 */
function scalarLd(g: AddrGen, space: Space, size: number, signed: boolean, d: number): Exec | undefined {
  if (g.reg < 0 || g.frame || (size !== 4 && size !== 8)) return undefined;
  const r = g.reg, r32 = g.reg32, glo = g.lo, ghi = g.hi;
  const wide = size === 8;
  const batch = batchable(space);
  // under a probe (see probedWarp): the lanes' data moved by their checked byte indices in PIDX
  const move = (w: Warp, m: number, bank: Bank): void => {
    const u = w.u32;
    const b32 = bank.u32;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const i = PIDX[l]! >>> 2;
      const v = b32[i]!;
      u[d + 2 * l] = v;
      u[d + 2 * l + 1] = wide ? b32[i + 1]! : signed && v >= 0x80000000 ? 0xffffffff : 0;
    }
  };
  const run = (w: Warp, m: number): void => {
    const p = w.mem.probe;
    if (p !== undefined && batch && p.accessWarp !== undefined && probedWarp(w, m, g, space, size, Access.Read, move)) return;
    const u = w.u32;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      // computeAddrs for one lane (its destination may be the address register: read it first)
      const s = u[r + 2 * l]! + glo;
      const lo = s >>> 0;
      const hi = ((r32 ? 0 : u[r + 2 * l + 1]!) + ghi + (s > 0xffffffff ? 1 : 0)) >>> 0;
      let idx = w.quickIndex(space, lo, hi, size, false);
      if (idx < 0) idx = w.translate(space, lo, hi, size, l, Access.Read);
      const b32 = w.xbank.u32;
      const v = b32[idx >>> 2]!;
      u[d + 2 * l] = v;
      u[d + 2 * l + 1] = wide ? b32[(idx >>> 2) + 1]! : signed && v >= 0x80000000 ? 0xffffffff : 0;
    }
  };
  return markMemOp(run, { kind: 'ld', space, size, signed, reg: r, reg32: r32, lo: glo, hi: ghi, data: d });
}

/** Global, shared or generic instructions: a probe may see them a warp at a time (see probedWarp). */
function batchable(space: Space): boolean {
  return space === Space.Global || space === Space.Shared || space === Space.Generic;
}

/** Lane byte indices of the probed access in progress. */
const PIDX = new Uint32Array(32);

/**
 * A warp instruction of scalarLd / scalarSt / atom32 under a probe with `accessWarp`, when every
 * lane's address is aligned and in bounds of one space, global or shared (else false: the
 * lane-by-lane loop runs it, faults and all): the probe is told of the lanes at once, then
 * `move` moves the data of (or does the atomic of) the lanes it took, by their indices in PIDX,
 * until all have moved.
 */
function probedWarp(w: Warp, m: number, g: AddrGen, space: Space, size: number, acc: Access,
  move: (w: Warp, m: number, bank: Bank) => void): boolean {
  const mem = w.mem;
  const u = w.u32;
  const r = g.reg, r32 = g.reg32, glo = g.lo, ghi = g.hi;
  const arena = mem.global;
  const limit = mem.sharedUser;
  let sp = space;
  // the allocation the last global lane was in (lanes mostly share one): in its bounds, a lane
  // passes arena.check without the look-up
  let okLo = 1, okHi = 0;
  for (let l = 0; l < 32; l++) {
    if (((m >>> l) & 1) === 0) continue;
    const s = u[r + 2 * l]! + glo;
    const lo = s >>> 0;
    const hi = ((r32 ? 0 : u[r + 2 * l + 1]!) + ghi + (s > 0xffffffff ? 1 : 0)) >>> 0;
    // Warp.quickIndex's conditions, one space for all lanes; the index is the address
    if ((lo & (size - 1)) !== 0) return false;
    if (sp === Space.Generic) sp = hi === GLOBAL_HI ? Space.Global : hi === SHARED_HI ? Space.Shared : Space.Generic;
    if (sp === Space.Global) {
      if (hi !== GLOBAL_HI) return false;
      if (lo < okLo || lo + size > okHi) {
        const id = arena.check(lo, size);
        if (id < 0) return false;
        const a = arena.allocs[id]!;
        okLo = a.base; okHi = a.base + a.size;
      }
    } else if (sp === Space.Shared) {
      if ((space === Space.Generic && hi !== SHARED_HI) || lo + size > limit) return false;
    } else return false;
    PIDX[l] = lo;
  }
  if (sp === Space.Generic) return false;
  const p = mem.probe!;
  const bank = sp === Space.Global ? arena.bank : w.cta.shared;
  let rest = m;
  while (rest !== 0) {
    const took = p.accessWarp!(w, sp, bank, PIDX, rest, size, acc);
    move(w, took, bank);
    rest &= ~took;
  }
  return true;
}

/** The commonest store, like scalarLd. */
function scalarSt(g: AddrGen, space: Space, size: number, src: number): Exec | undefined {
  if (g.reg < 0 || g.frame || (size !== 4 && size !== 8)) return undefined;
  const r = g.reg, r32 = g.reg32, glo = g.lo, ghi = g.hi;
  const wide = size === 8;
  const batch = batchable(space);
  // under a probe (see probedWarp), as quickIndex and the loop below would
  const move = (w: Warp, m: number, bank: Bank): void => {
    const u = w.u32;
    const b32 = bank.u32;
    const dirty = bank.dirty;
    let page = -1; // the page last marked dirty (lanes mostly share one)
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const lo = PIDX[l]!;
      if (lo >>> PAGE_SHIFT !== page) dirty[page = lo >>> PAGE_SHIFT] = 1;
      b32[lo >>> 2] = u[src + 2 * l]!;
      if (wide) b32[(lo >>> 2) + 1] = u[src + 2 * l + 1]!;
    }
  };
  const run = (w: Warp, m: number): void => {
    const p = w.mem.probe;
    if (p !== undefined && batch && p.accessWarp !== undefined && probedWarp(w, m, g, space, size, Access.Write, move)) return;
    const u = w.u32;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const s = u[r + 2 * l]! + glo;
      const lo = s >>> 0;
      const hi = ((r32 ? 0 : u[r + 2 * l + 1]!) + ghi + (s > 0xffffffff ? 1 : 0)) >>> 0;
      let idx = w.quickIndex(space, lo, hi, size, true);
      if (idx < 0) idx = w.translate(space, lo, hi, size, l, Access.Write);
      const b32 = w.xbank.u32;
      b32[idx >>> 2] = u[src + 2 * l]!;
      if (wide) b32[(idx >>> 2) + 1] = u[src + 2 * l + 1]!;
    }
  };
  return markMemOp(run, { kind: 'st', space, size, signed: false, reg: r, reg32: r32, lo: glo, hi: ghi, data: src });
}

/**
 * The address is the same for every lane and so is its translation: a constant address in a
 * space that is not per-thread (local memory and call-frame parameters are).
 */
function uniformAddress(g: AddrGen, space: Space): boolean {
  if (g.reg >= 0 || g.frame) return false;
  return space === Space.Global || space === Space.Shared || space === Space.Const || (space === Space.Param && g.lo < FRAME_PARAM_BASE);
}

function compileSt(ctx: Ctx): Exec {
  const ops = ctx.ins.operands;
  const { type, size, vec } = elemInfo(ctx.ins.mods);
  if (size > 8) fail(ctx, `${size * 8}-bit stores are not supported yet`);
  const space = spaceMod(ctx.ins.mods);
  const g = addrGen(ctx, ops[0]);
  const srcs = regList(ctx, ops[1], false, type);
  const total = size * vec;
  const scalar = vec === 1 ? scalarSt(g, space, size, srcs[0]!) : undefined;
  if (scalar !== undefined) return scalar;
  return (w: Warp, m: number) => {
    computeAddrs(w, m, g);
    const u = w.u32;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      let idx = w.quickIndex(space, AL[l]!, AH[l]!, total, true);
      if (idx < 0) idx = w.translate(space, AL[l]!, AH[l]!, total, l, Access.Write);
      const b = w.xbank;
      for (let k = 0; k < srcs.length; k++) writeValue(b, idx + k * size, size, u, srcs[k]! + 2 * l);
    }
  };
}

const ATOM_OPS = ['add', 'min', 'max', 'inc', 'dec', 'and', 'or', 'xor', 'exch', 'cas'] as const;
type AtomOp = (typeof ATOM_OPS)[number];

const HALF_TYPES = new Set(['f16', 'bf16', 'f16x2', 'bf16x2']);

/**
 * The forms of atom/red with a 16-bit float or a vector type, as the ISA and ptxas define them
 * (PTX ISA, atom and red): .add on f16/bf16/f16x2/bf16x2 needs .noftz; .min/.max on them only
 * in the vector forms; vectors only in the global (or generic) space, .v2/.v4 of f32 (.add
 * only) and of f16x2/bf16x2, .v2/.v4/.v8 of f16/bf16; bf16 adds and vectors need sm_90.
 */
function checkAtomForm(ctx: Ctx, op: AtomOp, type: string, vec: number, space: Space): void {
  const mods = ctx.ins.mods;
  const name = `${ctx.ins.opcode}.${op}.${type}`;
  const sm = targetSm(ctx);
  if (vec > 1) {
    const v = `${ctx.ins.opcode}.v${vec}.${type}`;
    if (type === 'f32' ? op !== 'add' : !HALF_TYPES.has(type) || (op !== 'add' && op !== 'min' && op !== 'max')) fail(ctx, `${v}.${op} is not a form of ${ctx.ins.opcode} (vectors take .add on .f32, .add/.min/.max on .f16/.bf16/.f16x2/.bf16x2)`);
    if (vec === 8 && type !== 'f16' && type !== 'bf16') fail(ctx, `${v}: .v8 is for a lone .f16/.bf16 (a vector is at most 128 bits)`);
    if (space !== Space.Global && space !== Space.Generic) fail(ctx, `${v}: vector atomics are only in the .global space`);
    if (sm !== undefined && sm < 90) fail(ctx, `${v}: vector atomics need sm_90 or higher; the module's .target is sm_${sm}`);
  } else if (HALF_TYPES.has(type) && (op === 'min' || op === 'max')) {
    fail(ctx, `${name}: .min/.max on 16-bit floats are only in the vector forms (.v2/.v4/.v8)`);
  }
  if (HALF_TYPES.has(type) && op === 'add') {
    if (!mods.includes('noftz')) fail(ctx, `${name} needs .noftz`);
    if (type.startsWith('bf16') && sm !== undefined && sm < 90) fail(ctx, `${name}: bf16 atomics need sm_90 or higher; the module's .target is sm_${sm}`);
  }
}

/**
 * The new bits of one 16- or 32-bit float element of an atomic .add/.min/.max, old value and
 * operand as bits. .add rounds to nearest even; f32 .add on global memory flushes subnormal
 * inputs and results to sign-preserving zero (`flush`; shared memory keeps them), 16-bit ones
 * never flush (.noftz). Min/max as min/max.f16: a NaN operand yields the other, -0 < +0.
 */
function floatRmw(ctx: Ctx, op: AtomOp, type: string): (old: number, b: number, flush: boolean) => number {
  const add = op === 'add', min = op === 'min';
  switch (type) {
    case 'f32': return (o, b, flush) => {
      if (!flush) return fp.f32ToBits(Math.fround(fp.bitsToF32(o) + fp.bitsToF32(b)));
      return fp.f32ToBits(fp.ftz32(Math.fround(fp.ftz32(fp.bitsToF32(o)) + fp.ftz32(fp.bitsToF32(b)))));
    };
    case 'f16': return (o, b) => (add ? fp.f16Add(o & 0xffff, b & 0xffff, fp.RN) : min ? fp.f16Min(o & 0xffff, b & 0xffff) : fp.f16Max(o & 0xffff, b & 0xffff));
    case 'bf16': return (o, b) => (add ? fp.bf16Add(o & 0xffff, b & 0xffff, fp.RN) : min ? fp.bf16Min(o & 0xffff, b & 0xffff) : fp.bf16Max(o & 0xffff, b & 0xffff));
    case 'f16x2': return (o, b) => (add ? fp.f16x2Add(o, b, fp.RN) : min ? fp.f16x2Min(o, b) : fp.f16x2Max(o, b));
    case 'bf16x2': return (o, b) => (add ? fp.bf16x2Add(o, b, fp.RN) : min ? fp.bf16x2Min(o, b) : fp.bf16x2Max(o, b));
    default: return fail(ctx, `atom.${op}.${type} is not valid`);
  }
}

function compileAtom(ctx: Ctx): Exec {
  const ins = ctx.ins;
  const ops = ins.operands;
  const mods = ins.mods;
  const isRed = ins.opcode === 'red';
  const op = (mods.find((m) => (ATOM_OPS as readonly string[]).includes(m)) ?? fail(ctx, 'atomic operation missing')) as AtomOp;
  const { type, size, vec } = elemInfo(mods);
  const space = spaceMod(mods);
  const isFloat = type === 'f32' || type === 'f64' || HALF_TYPES.has(type);
  if (isFloat && !['add', 'min', 'max', 'exch', 'cas'].includes(op)) fail(ctx, `atom.${op} on ${type} is not valid`);
  if ((type === 'f32' || type === 'f64') && (op === 'min' || op === 'max')) fail(ctx, `${ins.opcode}.${op}.${type} is not valid (.min/.max take integer and 16-bit float types)`);
  checkAtomForm(ctx, op, type, vec, space);
  let k = 0;
  const Ds = isRed ? Array.from({ length: vec }, () => ctx.fc.scratch()) : regList(ctx, ops[k++], true, type);
  const g = addrGen(ctx, ops[k++]);
  const Bs = regList(ctx, ops[k++], false, type);
  if (Ds.length !== vec || Bs.length !== vec) fail(ctx, `${ins.opcode}${vec > 1 ? `.v${vec}` : ''} takes ${vec > 1 ? `{..} lists of ${vec} registers` : 'scalar operands'}`);
  const C = op === 'cas' ? src(ctx, ops[k++], type) : -1;
  const signed = type.startsWith('s');
  const D = Ds[0]!, B = Bs[0]!;
  if (size === 4 && !isFloat && vec === 1 && g.reg >= 0 && !g.frame) return atom32(g, space, ATOM_OPS.indexOf(op), signed, D, B, C);
  // 16- and 32-bit floats' add/min/max; their exch/cas compare and move bits like integers
  const frmw = isFloat && size <= 4 && (op === 'add' || op === 'min' || op === 'max') ? floatRmw(ctx, op, type) : undefined;
  const total = size * vec;
  const TMP = new Uint32Array(2);
  return (w: Warp, m: number) => {
    computeAddrs(w, m, g);
    const u = w.u32;
    const locks = w.mem.atomicLocks;
    // lanes perform their read-modify-writes one after another, in lane order; a vector's
    // elements each atomically (the ISA guarantees no more), in element order
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const o = l << 1;
      const base = w.translate(space, AL[l]!, AH[l]!, total, l, Access.Atomic);
      const bank = w.xbank;
      const flush = bank === w.mem.global.bank || (bank !== w.cta.shared && w.mem.global.far.includes(bank));
      for (let e = 0; e < vec; e++) {
        const idx = base + e * size;
        const Be = Bs[e]!;
        const held = locks === undefined ? -1 : lockWord(locks, idx);
        readValue(bank, idx, size, false, TMP, 0);
        const oldLo = TMP[0]!, oldHi = size === 8 ? TMP[1]! : 0;
        const bLo = u[Be + o]!, bHi = u[Be + o + 1]!;
        let nLo = oldLo, nHi = oldHi;
        if (frmw !== undefined) nLo = frmw(oldLo, bLo, flush);
        else if (size === 8) {
          const ov = signed ? BigInt.asIntN(64, big(oldLo, oldHi)) : big(oldLo, oldHi);
          const bv = signed ? BigInt.asIntN(64, big(bLo, bHi)) : big(bLo, bHi);
          let r: bigint = ov;
          if (type === 'f64' && op === 'add') {
            const rf = fp.f64FromWords(oldLo, oldHi) + fp.f64FromWords(bLo, bHi);
            r = big(fp.f64LoWord(rf), fp.f64HiWord(rf));
          } else {
            switch (op) {
              case 'add': r = ov + bv; break;
              case 'min': r = ov < bv ? ov : bv; break;
              case 'max': r = ov > bv ? ov : bv; break;
              case 'and': r = ov & bv; break;
              case 'or': r = ov | bv; break;
              case 'xor': r = ov ^ bv; break;
              case 'exch': r = bv; break;
              case 'cas': r = ov === bv ? big(u[C + o]!, u[C + o + 1]!) : ov; break;
              case 'inc': r = ov >= bv ? 0n : ov + 1n; break;
              case 'dec': r = ov === 0n || ov > bv ? bv : ov - 1n; break;
            }
          }
          r = BigInt.asUintN(64, r);
          nLo = Number(r & 0xffffffffn); nHi = Number(r >> 32n);
        } else {
          const bits = size * 8;
          const mask = bits === 32 ? 0xffffffff : (1 << bits) - 1;
          const ext = (x: number): number => (signed ? (bits === 32 ? x | 0 : (x << (32 - bits)) >> (32 - bits)) : (x & mask) >>> 0);
          const ov = ext(oldLo), bv = ext(bLo);
          let r = ov;
          switch (op) {
            case 'add': r = ov + bv; break;
            case 'min': r = ov < bv ? ov : bv; break;
            case 'max': r = ov > bv ? ov : bv; break;
            case 'and': r = ov & bv; break;
            case 'or': r = ov | bv; break;
            case 'xor': r = ov ^ bv; break;
            case 'exch': r = bv; break;
            case 'cas': r = ov === bv ? ext(u[C + o]!) : ov; break;
            case 'inc': r = (ov >>> 0) >= (bv >>> 0) ? 0 : ov + 1; break;
            case 'dec': r = ov === 0 || (ov >>> 0) > (bv >>> 0) ? bv : ov - 1; break;
          }
          nLo = (r & mask) >>> 0;
        }
        TMP[0] = nLo; TMP[1] = nHi;
        writeValue(bank, idx, size, TMP, 0);
        if (held >= 0) Atomics.store(locks!, held, 0);
        const De = Ds[e]!;
        u[De + o] = oldLo;
        u[De + o + 1] = oldHi;
      }
    }
  };
}

/**
 * 32-bit integer atomics through a register address (the common kind: counters, histograms) as a
 * function of their own, like scalarLd; the same results, lane by lane, as the general loop.
 */
function atom32(g: AddrGen, space: Space, op: number, signed: boolean, D: number, B: number, C: number): Exec {
  const r = g.reg, r32 = g.reg32, glo = g.lo, ghi = g.hi;
  const batch = batchable(space);
  // under a probe (see probedWarp): the lanes' operations by their checked byte indices in PIDX
  const move = (w: Warp, m: number, bank: Bank): void => {
    const u = w.u32;
    const locks = w.mem.atomicLocks;
    const b32 = bank.u32;
    const dirty = bank.dirty;
    let page = -1; // the page last marked dirty (lanes mostly share one)
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const o = l << 1;
      const idx = PIDX[l]!;
      if (idx >>> PAGE_SHIFT !== page) dirty[page = idx >>> PAGE_SHIFT] = 1;
      atomLane32(b32, idx, locks, op, signed, u, o, B, C, D);
    }
  };
  const run = (w: Warp, m: number): void => {
    const p = w.mem.probe;
    if (p !== undefined && batch && p.accessWarp !== undefined && probedWarp(w, m, g, space, 4, Access.Atomic, move)) return;
    const u = w.u32;
    const locks = w.mem.atomicLocks;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const o = l << 1;
      const s = u[r + o]! + glo;
      const lo = s >>> 0;
      const hi = ((r32 ? 0 : u[r + o + 1]!) + ghi + (s > 0xffffffff ? 1 : 0)) >>> 0;
      let idx = w.quickIndex(space, lo, hi, 4, true);
      if (idx < 0) idx = w.translate(space, lo, hi, 4, l, Access.Atomic);
      atomLane32(w.xbank.u32, idx, locks, op, signed, u, o, B, C, D);
    }
  };
  return run;
}

/**
 * One lane's 32-bit atom on the word at byte `idx` of `b32` (lane slot offset `o` into the
 * operand slots B, C and destination D), under its stripe lock when threads share memory.
 */
function atomLane32(b32: Uint32Array, idx: number, locks: Int32Array | undefined, op: number, signed: boolean, u: Uint32Array, o: number, B: number, C: number, D: number): void {
  const i = idx >>> 2;
  const held = locks === undefined ? -1 : lockWord(locks, idx);
  const old = b32[i]!;
  b32[i] = rmw32(op, signed, old, u[B + o]!, u, C + o) >>> 0;
  if (held >= 0) Atomics.store(locks!, held, 0);
  u[D + o] = old;
  u[D + o + 1] = 0;
}

/** The new value of a 32-bit atom `op` (atom32's numbering) on `old` with operand b (and, for cas, u[c]). */
function rmw32(op: number, signed: boolean, old: number, b: number, u: Uint32Array, c: number): number {
  const ov = signed ? old | 0 : old;
  const bv = signed ? b | 0 : b;
  switch (op) {
    case 0: return ov + bv; // add
    case 1: return ov < bv ? ov : bv; // min
    case 2: return ov > bv ? ov : bv; // max
    case 3: return (ov >>> 0) >= (bv >>> 0) ? 0 : ov + 1; // inc
    case 4: return ov === 0 || (ov >>> 0) > (bv >>> 0) ? bv : ov - 1; // dec
    case 5: return ov & bv;
    case 6: return ov | bv;
    case 7: return ov ^ bv;
    case 8: return bv; // exch
    default: return ov === bv ? (signed ? u[c]! | 0 : u[c]!) : ov; // cas
  }
}

/**
 * Take the lock of the stripe that holds byte `idx` (spinning: another thread holds it for one
 * read-modify-write only) and return its index, for Atomics.store(locks, k, 0) to release.
 * Taken after the address is translated, so a faulting access never holds a lock.
 */
function lockWord(locks: Int32Array, idx: number): number {
  const k = (idx >>> 3) & (locks.length - 1);
  while (Atomics.compareExchange(locks, k, 0, 1) !== 0) { /* held by another thread for one operation */ }
  return k;
}

function big(lo: number, hi: number): bigint {
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}
