/**
 * Operand selection: where each source operand's value lives (a register, a constant slot, a
 * scratch slot computed by a prologue), destinations, and binding generated lane loops to them.
 * Every instruction compiler (here and in memops, warpops, tensor/, async/, ...) builds on these.
 */
import * as fp from '../float/index.js';
import type { RegInfo, RInstruction, ROperand, VarInfo } from '../../ptx/resolve.js';
import { lanes, selecting, tryLaneLoop } from '../codegen.js';
import type { Exec } from '../compiled.js';
import * as i64 from '../int64.js';
import { typeSize } from '../../ptx/types.js';
import { FRAME_PARAM_BASE } from '../memory.js';
import type { Warp } from '../state.js';
import { FUNC_HI } from '../syscalls.js';

import type { FnCompiler } from './slots.js';

/** Runtime helpers visible to generated code as `K`. */
export const K = { fp, i64, R: i64.R };

/** Addresses of module-level variables, decided by the loader. */
export interface Layout {
  /** Global/const vars: full 64-bit address value as (lo, hi). */
  addressOf(v: VarInfo): { lo: number; hi: number } | undefined;
  /** Index of a function for `mov.u64 %rd, func` (indirect calls), or -1. */
  functionAddress(name: string): number;
  /** The module's `.target` list (sm_80, ...): instructions newer than it are refused; absent, none are. */
  readonly target?: readonly string[];
  /** The module's `.version` (ISA 1.x has no generic addressing: an access without a space uses the variable's). */
  readonly version?: string;
}

export class CompileError extends Error {
  constructor(message: string, readonly ins: RInstruction) {
    super(message);
  }
}

// ---- operand helpers ----------------------------------------------------------------------------

export interface Ctx {
  readonly fc: FnCompiler;
  readonly ins: RInstruction;
  /** Prologue execs computing dynamic addresses into scratch slots. */
  readonly pre: Exec[];
}

export function fail(ctx: Ctx, msg: string): never {
  throw new CompileError(msg, ctx.ins);
}

/** Value address of a variable as (lo, hi), possibly frame-relative (dynamic). */
export function varAddress(v: VarInfo, layout: Layout): { lo: number; hi: number; frame: boolean } {
  if (v.storage === 'frame') {
    const lo = v.space === 'param' ? FRAME_PARAM_BASE + v.frameOffset : v.frameOffset;
    return { lo, hi: 0, frame: true };
  }
  if (v.storage === 'kernelParam') return { lo: v.frameOffset, hi: 0, frame: false };
  const a = layout.addressOf(v);
  if (!a) return { lo: 0, hi: 0, frame: false };
  return { ...a, frame: false };
}

/** Slot base holding a source operand's value as `type`. */
export function src(ctx: Ctx, op: ROperand | undefined, type: string): number {
  const fc = ctx.fc;
  if (!op) fail(ctx, `missing operand for ${ctx.ins.opcode}`);
  switch (op.kind) {
    case 'reg': return op.reg.slot * 64;
    case 'int': case 'float': return fc.imm(op, type);
    case 'special': return fc.special(op.name, op.comp);
    case 'var': {
      const a = varAddress(op.v, fc.layout);
      const add = Number(op.addend);
      if (!a.frame) {
        const r = i64.R;
        i64.add64(a.lo, a.hi, add >>> 0, add < 0 ? 0xffffffff : 0);
        return fc.constBits(r.lo, r.hi);
      }
      const dst = fc.freshScratch();
      const off = a.lo + add;
      ctx.pre.push((w: Warp, m: number) => {
        const lo = (w.frame.localBase + off) >>> 0;
        const u = w.u32;
        for (let l = 0; l < 32; l++) if ((m >>> l) & 1) { u[dst + 2 * l] = lo; u[dst + 2 * l + 1] = 0; }
      });
      return dst;
    }
    case 'func': {
      const id = fc.layout.functionAddress(op.name);
      if (id < 0) fail(ctx, `unknown function '${op.name}'`);
      return fc.constBits(id, FUNC_HI);
    }
    case 'neg': {
      // `-%r` operand form (rare): negate into scratch
      const inner = src(ctx, op.inner, type);
      const dst = fc.freshScratch();
      const t = type;
      const f = t === 'f32' ? lanes('f', ['f'], 'd = -a;') : t === 'f64' ? lanes('d', ['d'], 'd = -a;') : lanes('i', ['i'], 'd = -a | 0;');
      const e = f(K, dst, inner, 0, 0, 0, 0, 0, 0);
      ctx.pre.push(e);
      return dst;
    }
    case 'regplus': return regPlus(ctx, op.reg.slot * 64, op.addend, type, op.reg.name);
    case 'varidx': {
      // the address of array[reg]: the array's address plus the scaled index
      const a = varAddress(op.v, fc.layout);
      const I = scaledIndex(ctx, op.reg, op.scale);
      const add = a.lo + Number(op.addend);
      const clo = add >>> 0, chi = (a.hi + Math.floor(add / 0x100000000)) >>> 0;
      const D = fc.freshScratch();
      const frame = a.frame;
      ctx.pre.push((w: Warp, m: number) => {
        const u = w.u32;
        const base = frame ? w.frame.localBase : 0;
        for (let l = 0; l < 32; l++) {
          if (((m >>> l) & 1) === 0) continue;
          const s = u[I + 2 * l]! + clo + base;
          u[D + 2 * l] = s >>> 0;
          u[D + 2 * l + 1] = (u[I + 2 * l + 1]! + chi + Math.floor(s / 0x100000000)) >>> 0;
        }
      });
      return D;
    }
    case 'not': {
      const inner = src(ctx, op.inner, 'pred');
      const dst = fc.freshScratch();
      ctx.pre.push(lanes('p', ['p'], 'd = !a;')(K, dst, inner, 0, 0, 0, 0, 0, 0));
      return dst;
    }
    default: return fail(ctx, `unsupported operand for ${ctx.ins.opcode}`);
  }
}

/**
 * `%r + c` as a source (ptxas accepts it; the ISA does not describe it): the register's value
 * plus the constant, wrapping at the operand type's width, computed into a scratch slot. Only
 * integer types: what ptxas makes of it on a float or predicate operand is not known here.
 */
function regPlus(ctx: Ctx, R: number, addend: bigint, type: string, name: string): number {
  const bits = typeSize(type) * 8;
  const integer = /^[bsu]\d+$/.test(type) && bits >= 8 && bits <= 64;
  if (!integer) fail(ctx, `'${name} + ${addend}' as a .${type} operand: ptxas accepts a register plus a constant, but what it means on a non-integer operand is not documented`);
  const c = BigInt.asUintN(64, addend);
  const clo = Number(c & 0xffffffffn), chi = Number(c >> 32n);
  const D = ctx.fc.freshScratch();
  const wide = bits === 64;
  const mask = bits < 32 ? (1 << bits) - 1 : 0;
  ctx.pre.push((w: Warp, m: number) => {
    const u = w.u32;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const s = u[R + 2 * l]! + clo;
      u[D + 2 * l] = bits < 32 ? s & mask : s >>> 0;
      u[D + 2 * l + 1] = wide ? (u[R + 2 * l + 1]! + chi + (s > 0xffffffff ? 1 : 0)) >>> 0 : 0;
    }
  });
  return D;
}

export function dst(ctx: Ctx, op: ROperand | undefined): number {
  if (!op) fail(ctx, `missing destination for ${ctx.ins.opcode}`);
  if (op.kind === 'reg') return op.reg.slot * 64;
  if (op.kind === 'sink') return ctx.fc.scratch();
  return fail(ctx, `destination of ${ctx.ins.opcode} must be a register`);
}

/** Factories already run once by tryLaneLoop (one check per generated loop and constant set). */
export const tried = new WeakMap<ReturnType<typeof lanes>, Set<string>>();

export function bind(f: ReturnType<typeof lanes>, D: number, A = 0, B = 0, C = 0, E = 0, X0: unknown = 0, X1: unknown = 0, X2: unknown = 0): Exec {
  const plain = typeof X0 !== 'object' && typeof X1 !== 'object' && typeof X2 !== 'object';
  const key = plain ? `${String(X0)}|${String(X1)}|${String(X2)}` : '';
  let seen = tried.get(f);
  if (seen === undefined) tried.set(f, (seen = new Set()));
  if (!plain || !seen.has(key)) {
    tryLaneLoop(f, K, X0, X1, X2);
    if (plain) seen.add(key);
  }
  return selecting.only ? NOT_RUN : f(K, D, A, B, C, E, X0, X1, X2);
}

/**
 * While `selecting.only` is set (selectOnly), bind checks each lane loop as always but returns
 * NOT_RUN instead of instantiating it, and memory closures are not noted for the block compiler:
 * for a caller that looks only at what was selected (`check` of a big module made a closure and a
 * WeakMap entry per instruction, then dropped them).
 */
const NOT_RUN: Exec = () => { throw new Error('an instruction compiled for selection only was run'); };

/** Runs `f` (synchronous) with lane loops checked but not instantiated; see `selecting`. */
export function selectOnly<T>(f: () => T): T {
  const was = selecting.only;
  selecting.only = true;
  try {
    return f();
  } finally {
    selecting.only = was;
  }
}

export function seq(pre: Exec[], main: Exec): Exec {
  if (pre.length === 0) return main;
  if (pre.length === 1) {
    const p0 = pre[0]!;
    return (w, m) => { p0(w, m); main(w, m); };
  }
  return (w, m) => { for (const p of pre) p(w, m); main(w, m); };
}

/** The module's compute capability from `.target sm_XY...`, or undefined when it names none. */
export function targetSm(ctx: Ctx): number | undefined {
  for (const t of ctx.fc.layout.target ?? []) {
    const m = /^sm_(\d+)/.exec(t);
    if (m) return Number(m[1]);
  }
  return undefined;
}

/**
 * A register index times an element size, as a 64-bit value in a scratch slot computed before the
 * instruction (the register sign-extended when its type is signed).
 */
export function scaledIndex(ctx: Ctx, reg: RegInfo, scale: number): number {
  const R = reg.slot * 64;
  const wide = typeSize(reg.type) === 8;
  const signed = reg.type.startsWith('s');
  const D = ctx.fc.freshScratch();
  ctx.pre.push((w: Warp, m: number) => {
    const u = w.u32;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const lo = u[R + 2 * l]!;
      const hi = wide ? u[R + 2 * l + 1]! : signed && lo >= 0x80000000 ? 0xffffffff : 0;
      const v = BigInt.asUintN(64, ((BigInt(hi) << 32n) | BigInt(lo)) * BigInt(scale));
      u[D + 2 * l] = Number(v & 0xffffffffn);
      u[D + 2 * l + 1] = Number(v >> 32n);
    }
  });
  return D;
}
