/**
 * Instruction selection: turns each resolved PTX instruction into a pre-decoded `CInstr` whose
 * `exec` is a specialised lane loop (codegen.ts) or a hand-written loop for memory, warp-wide and
 * control instructions. Runs once per launch (addresses of variables are known then).
 */
import * as fp from './float/index.js';
import type { ProgFunction, RInstruction, ROperand, VarInfo } from '../ptx/resolve.js';
import { typeSize } from '../ptx/types.js';
import { GeneratedCodeError, lanes, tryLaneLoop, type View } from './codegen.js';
import {
  type ArgRef, type BarInfo, type CFunction, type CInstr, Ctl, type Exec, type SpecialSlot,
} from './compiled.js';
import * as i64 from './int64.js';
import { computeIpdom } from './ipdom.js';
import { FRAME_PARAM_BASE } from './memory.js';
import type { Warp } from './state.js';
import { compileMma } from './tensor/mma.js';
import { compileLdmatrix } from './tensor/ldmatrix.js';
import { compileWmma } from './tensor/wmma.js';
import { compileMovmatrix } from './tensor/movmatrix.js';
import { compileCpAsync } from './async/cpasync.js';
import { compileMbarrier } from './async/mbarrier.js';
import { compileStack } from './stack.js';
import { compileVideo } from './video/index.js';
import { compileTexture } from './texture/compile.js';
import { warpOp } from './warpops.js';
import { FUNC_HI } from './syscalls.js';
import { memOp } from './memops.js';

/** Runtime helpers visible to generated code as `K`. */
export const K = { fp, i64, R: i64.R };

/** Addresses of module-level variables, decided by the loader. */
export interface Layout {
  /** Global/const vars: full 64-bit address value as (lo, hi). */
  addressOf(v: VarInfo): { lo: number; hi: number } | undefined;
  /** Index of a function for `mov.u64 %rd, func` (indirect calls), or -1. */
  functionAddress(name: string): number;
}

export class CompileError extends Error {
  constructor(message: string, readonly ins: RInstruction) {
    super(message);
  }
}

const SIGNED = new Set(['s8', 's16', 's32', 's64']);

function norm(t: string, x: string): string {
  switch (t) {
    case 's8': return `(${x} << 24 >> 24)`;
    case 's16': return `(${x} << 16 >> 16)`;
    case 'u8': case 'b8': return `(${x} & 255)`;
    case 'u16': case 'b16': return `(${x} & 65535)`;
    default: return x;
  }
}

function intView(t: string): View {
  const s = typeSize(t);
  if (s === 8) return 'l';
  return SIGNED.has(t) ? 'i' : 'u';
}

function viewOf(t: string): View {
  if (t === 'f32') return 'f';
  if (t === 'f64') return 'd';
  if (t === 'pred') return 'p';
  return intView(t);
}

function roundMod(mods: readonly string[]): fp.Rnd {
  for (const m of mods) {
    if (m === 'rn' || m === 'rni') return fp.RN;
    if (m === 'rz' || m === 'rzi') return fp.RZ;
    if (m === 'rm' || m === 'rmi') return fp.RM;
    if (m === 'rp' || m === 'rpi') return fp.RP;
  }
  return fp.RN;
}

function typeMod(mods: readonly string[]): string {
  for (let i = mods.length - 1; i >= 0; i--) if (typeSize(mods[i]!) > 0) return mods[i]!;
  return 'b32';
}

/** Per-function compiler: allocates register slots for constants and specials. */
class FnCompiler {
  private nslots: number;
  private readonly consts: { base: number; lo: number; hi: number }[] = [];
  private readonly constMap = new Map<string, number>();
  readonly specials: SpecialSlot[] = [];
  private readonly specialMap = new Map<string, number>();
  private scratchBase = -1;

  constructor(readonly fn: ProgFunction, readonly layout: Layout) {
    this.nslots = fn.regs.length;
  }

  private newSlot(): number {
    return this.nslots++ * 64;
  }

  /** A constant slot holding the 64-bit pattern (lo, hi) in every lane. */
  constBits(lo: number, hi: number): number {
    const key = `${lo >>> 0}:${hi >>> 0}`;
    let b = this.constMap.get(key);
    if (b === undefined) {
      b = this.newSlot();
      this.consts.push({ base: b, lo: lo >>> 0, hi: hi >>> 0 });
      this.constMap.set(key, b);
    }
    return b;
  }

  /** The constant pattern held by slot `base` (made by constBits). */
  constAt(base: number): { lo: number; hi: number } {
    const c = this.consts.find((x) => x.base === base);
    return c ?? { lo: 0, hi: 0 };
  }

  scratch(): number {
    if (this.scratchBase < 0) this.scratchBase = this.newSlot();
    return this.scratchBase;
  }

  freshScratch(): number {
    return this.newSlot();
  }

  special(name: string, comp: number): number {
    const key = `${name}.${comp}`;
    let b = this.specialMap.get(key);
    if (b === undefined) {
      b = this.newSlot();
      this.specials.push({ base: b, name, comp });
      this.specialMap.set(key, b);
    }
    return b;
  }

  /** Constant slot for an immediate interpreted as `type`. */
  imm(op: ROperand, type: string): number {
    if (op.kind === 'int') {
      const v = op.value;
      if (type === 'f32') return this.constBits(fp.f32ToBits(Number(v)), 0);
      if (type === 'f64') { const x = Number(v); return this.constBits(fp.f64LoWord(x), fp.f64HiWord(x)); }
      const u = BigInt.asUintN(64, v);
      return this.constBits(Number(u & 0xffffffffn), Number(u >> 32n));
    }
    if (op.kind === 'float') {
      if (type === 'f64' || type === 'b64' || type === 'u64' || type === 's64') {
        const x = op.f32Bits !== undefined && type === 'f64' ? fp.bitsToF32(op.f32Bits) : op.value;
        return this.constBits(fp.f64LoWord(x), fp.f64HiWord(x));
      }
      if (type === 'f16' || type === 'bf16') {
        return this.constBits(type === 'f16' ? fp.toF16(op.value, fp.RN) : fp.toBf16(op.value, fp.RN), 0);
      }
      return this.constBits(op.f32Bits ?? fp.f32ToBits(op.value), 0);
    }
    throw new Error('not an immediate');
  }

  template(): ArrayBuffer {
    const buf = new ArrayBuffer(Math.max(1, this.nslots) * 256);
    const u32 = new Uint32Array(buf);
    for (const c of this.consts) {
      for (let l = 0; l < 32; l++) {
        u32[c.base + 2 * l] = c.lo;
        u32[c.base + 2 * l + 1] = c.hi;
      }
    }
    return buf;
  }
}

export function compileFunction(fn: ProgFunction, layout: Layout): CFunction {
  const fc = new FnCompiler(fn, layout);
  const ipdom = computeIpdom(fn);
  const code: CInstr[] = fn.instrs.map((ins, index) => {
    const c: CInstr = {
      index, src: ins, exec: undefined, ctl: Ctl.None, guard: -1, guardNeg: false, target: -1, rpc: -1,
      call: undefined, bar: undefined, sync: undefined, brxIndex: -1, brxTargets: [], note: '', memFx: 0, readsClock: false,
    };
    if (ins.guard) {
      c.guard = ins.guard.reg.slot * 64;
      c.guardNeg = ins.guard.negate;
    }
    try {
      compileInstr(fc, ins, c, ipdom[index] ?? -1);
    } catch (e) {
      // Only a deliberate refusal becomes 'unsupported'; any other exception is a bug and surfaces.
      if (e instanceof CompileError || e instanceof GeneratedCodeError) {
        c.ctl = Ctl.Unsupported;
        c.note = e.message;
      } else throw e;
    }
    return c;
  });
  const regInit = registerInitializers(fn, fc);
  return { prog: fn, name: fn.name, code, template: fc.template(), specials: fc.specials, frameSize: fn.frameSize, regInit, gbase: 0 };
}

/** The values of initialized registers, encoded as their type's bit pattern (a predicate: 0/1). */
function registerInitializers(fn: ProgFunction, fc: FnCompiler): CFunction['regInit'] {
  const out: { base: number; lo: number; hi: number }[] = [];
  for (const r of fn.regs) {
    const init = r.init;
    if (init === undefined || (init.kind !== 'int' && init.kind !== 'float')) continue;
    if (r.type === 'pred') {
      out.push({ base: r.slot * 64, lo: (init.kind === 'int' ? init.value !== 0n : init.value !== 0) ? 1 : 0, hi: 0 });
      continue;
    }
    const slot = fc.imm(init.kind === 'int' ? { kind: 'int', value: init.value, span: init.span } : { kind: 'float', value: init.value, f32Bits: init.f32Bits, span: init.span }, r.type);
    const c = fc.constAt(slot);
    const size = typeSize(r.type);
    // narrow integer registers hold the value truncated to their width
    const lo = size >= 4 ? c.lo : c.lo & (size === 2 ? 0xffff : 0xff);
    out.push({ base: r.slot * 64, lo, hi: size === 8 ? c.hi : 0 });
  }
  return out;
}

/** Give a fresh or reused frame's initialized registers their initial values. */
export function initRegisters(fn: CFunction, u32: Uint32Array): void {
  for (const r of fn.regInit) {
    for (let l = 0; l < 32; l++) { u32[r.base + 2 * l] = r.lo; u32[r.base + 2 * l + 1] = r.hi; }
  }
}

// ---- operand helpers ----------------------------------------------------------------------------

interface Ctx {
  readonly fc: FnCompiler;
  readonly ins: RInstruction;
  /** Prologue execs computing dynamic addresses into scratch slots. */
  readonly pre: Exec[];
}

function fail(ctx: Ctx, msg: string): never {
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
function src(ctx: Ctx, op: ROperand | undefined, type: string): number {
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
      const e = f(K, dst, inner, 0, 0, 0, 0, 0, 0) as unknown as Exec;
      ctx.pre.push(e);
      return dst;
    }
    case 'not': {
      const inner = src(ctx, op.inner, 'pred');
      const dst = fc.freshScratch();
      ctx.pre.push(lanes('p', ['p'], 'd = !a;')(K, dst, inner, 0, 0, 0, 0, 0, 0) as unknown as Exec);
      return dst;
    }
    default: return fail(ctx, `unsupported operand for ${ctx.ins.opcode}`);
  }
}

function dst(ctx: Ctx, op: ROperand | undefined): number {
  if (!op) fail(ctx, `missing destination for ${ctx.ins.opcode}`);
  if (op.kind === 'reg') return op.reg.slot * 64;
  if (op.kind === 'sink') return ctx.fc.scratch();
  return fail(ctx, `destination of ${ctx.ins.opcode} must be a register`);
}

/** Factories already run once by tryLaneLoop (one check per generated loop and constant set). */
const tried = new WeakMap<ReturnType<typeof lanes>, Set<string>>();

function bind(f: ReturnType<typeof lanes>, D: number, A = 0, B = 0, C = 0, E = 0, X0: unknown = 0, X1: unknown = 0, X2: unknown = 0): Exec {
  const plain = typeof X0 !== 'object' && typeof X1 !== 'object' && typeof X2 !== 'object';
  const key = plain ? `${String(X0)}|${String(X1)}|${String(X2)}` : '';
  let seen = tried.get(f);
  if (seen === undefined) tried.set(f, (seen = new Set()));
  if (!plain || !seen.has(key)) {
    tryLaneLoop(f, K, X0, X1, X2);
    if (plain) seen.add(key);
  }
  return f(K, D, A, B, C, E, X0, X1, X2) as unknown as Exec;
}

function seq(pre: Exec[], main: Exec): Exec {
  if (pre.length === 0) return main;
  if (pre.length === 1) {
    const p0 = pre[0]!;
    return (w, m) => { p0(w, m); main(w, m); };
  }
  return (w, m) => { for (const p of pre) p(w, m); main(w, m); };
}

// ---- instruction selection ------------------------------------------------------------------------

function compileInstr(fc: FnCompiler, ins: RInstruction, c: CInstr, rpc: number): void {
  const ctx: Ctx = { fc, ins, pre: [] };
  const ops = ins.operands;
  const mods = ins.mods;
  const t = typeMod(mods);
  const has = (m: string): boolean => mods.includes(m);
  let main: Exec | undefined;
  switch (ins.opcode) {
    // ---------------- control ----------------
    case 'bra': {
      const target = ops[0];
      if (target?.kind !== 'label') fail(ctx, 'bra needs a label');
      c.ctl = Ctl.Bra;
      c.target = target.index;
      c.rpc = has('uni') ? -1 : rpc;
      return;
    }
    case 'brx': {
      c.ctl = Ctl.Brx;
      c.brxIndex = src(ctx, ops[0], 'u32');
      c.rpc = rpc;
      const tbl = ops[1];
      const targets: number[] = [];
      if (tbl?.kind === 'proto' || tbl?.kind === 'unresolved') fail(ctx, 'brx.idx needs a .branchtargets label list');
      if (tbl?.kind === 'label') targets.push(tbl.index);
      c.brxTargets = targets;
      return;
    }
    case 'call': compileCall(ctx, c); return;
    case 'ret': c.ctl = Ctl.Ret; return;
    case 'exit': c.ctl = Ctl.Exit; return;
    case 'trap': c.ctl = Ctl.Trap; return;
    case 'brkpt': c.ctl = Ctl.Brkpt; return;
    case 'bar': case 'barrier': compileBar(ctx, c); return;
    case 'membar': case 'fence':
      c.exec = (w: Warp, m: number) => { const p = w.mem.probe; if (p !== undefined) p.fence(w, m); };
      return;
    case 'nanosleep': case 'prefetch': case 'prefetchu': case 'pmevent':
    case 'griddepcontrol': case 'discard': case 'applypriority': case 'createpolicy':
      c.exec = () => {};
      return;
    // ---------------- data movement ----------------
    case 'mov': {
      const s1 = ops[1];
      if (s1?.kind === 'special' && /^(clock|clock64|clock_hi|globaltimer)/.test(s1.name)) c.readsClock = true;
      main = compileMov(ctx, t);
      break;
    }
    case 'ld': case 'ldu': case 'st': case 'atom': case 'red': case 'cvta': case 'isspacep':
      main = memOp(ctx, c, K);
      break;
    case 'shfl': case 'vote': case 'activemask': case 'match': case 'redux': case 'elect':
      main = warpOp(ctx, c);
      if (has('sync') && ins.opcode !== 'activemask' && ins.opcode !== 'elect') {
        // the member mask is the last operand (shfl.sync d, a, b, c, membermask)
        const mOp = ops[ops.length - 1];
        c.ctl = Ctl.WarpSync;
        c.sync = mOp?.kind === 'int' ? { reg: -1, imm: Number(BigInt.asUintN(32, mOp.value)) | 0 } : { reg: src(ctx, mOp, 'b32'), imm: 0 };
      }
      break;
    case 'mma': // tensor cores: src/exec/tensor
      main = compileMma(ctx, c);
      break;
    case 'ldmatrix':
      main = compileLdmatrix(ctx, c);
      break;
    case 'wmma':
      main = compileWmma(ctx, c);
      break;
    case 'movmatrix':
      main = compileMovmatrix(ctx, c);
      break;
    case 'cp': // async copies: src/exec/async
      main = compileCpAsync(ctx, c);
      break;
    case 'mbarrier':
      main = compileMbarrier(ctx, c, false);
      break;
    case 'alloca': case 'stacksave': case 'stackrestore':
      main = compileStack(ctx, c);
      break;
    case 'tex': case 'tld4': case 'txq': case 'suq': case 'istypep': case 'suld': case 'sust': case 'sured':
      main = compileTexture(ctx, c); // textures and surfaces: src/exec/texture
      break;
    case 'vadd': case 'vsub': case 'vabsdiff': case 'vmin': case 'vmax': case 'vshl': case 'vshr': case 'vmad': case 'vset':
    case 'vadd2': case 'vsub2': case 'vavrg2': case 'vabsdiff2': case 'vmin2': case 'vmax2': case 'vset2':
    case 'vadd4': case 'vsub4': case 'vavrg4': case 'vabsdiff4': case 'vmin4': case 'vmax4': case 'vset4':
      main = compileVideo(ctx, c); // video instructions: src/exec/video
      break;
    // ---------------- arithmetic ----------------
    default:
      main = compileAlu(ctx, t);
  }
  c.exec = seq(ctx.pre, main);
}

export type { Ctx };
export { src, dst, bind, fail, K as runtime };

function compileCall(ctx: Ctx, c: CInstr): void {
  const ops = ctx.ins.operands;
  let i = 0;
  let retList: ROperand | undefined;
  if (ops[0]?.kind === 'list' && ops.length >= 2 && ops[1]?.kind !== 'list') retList = ops[i++];
  const target = ops[i++];
  let argList = ops[i]?.kind === 'list' ? ops[i++] : undefined;
  // `call f, (1)`: a one-immediate argument list reads as a parenthesized constant
  const lone = ops[i];
  if (argList === undefined && (lone?.kind === 'int' || lone?.kind === 'float')) { argList = { kind: 'list', items: [lone], span: lone.span }; i++; }
  const toRefs = (l: ROperand | undefined): ArgRef[] => {
    if (!l || l.kind !== 'list') return [];
    // a vector register argument passes its components one by one (the callee's vector
    // parameter is declared as that many component parameters)
    const items = l.items.flatMap((it) => (it.kind === 'vec' ? it.items : [it]));
    return items.map((it): ArgRef => {
      if (it.kind === 'var' && it.v.storage === 'frame') return { kind: 'frame', offset: it.v.frameOffset, size: it.v.size };
      if (it.kind === 'reg') return { kind: 'reg', base: it.reg.slot * 64, size: Math.max(4, typeSize(it.reg.type)) };
      if (it.kind === 'int' || it.kind === 'float') return { kind: 'reg', base: ctx.fc.imm(it, 'b64'), size: 8 };
      // `call.uni (_), vprintf, (...)`: a return value nobody reads lands in a scratch slot
      if (it.kind === 'sink') return { kind: 'reg', base: ctx.fc.scratch(), size: 8 };
      return fail(ctx, 'unsupported call argument');
    });
  };
  c.ctl = Ctl.Call;
  if (target?.kind === 'func') {
    c.call = { callee: target.name, calleeReg: -1, args: toRefs(argList), rets: toRefs(retList) };
  } else if (target?.kind === 'reg') {
    c.call = { callee: undefined, calleeReg: target.reg.slot * 64, args: toRefs(argList), rets: toRefs(retList) };
  } else fail(ctx, 'call target must be a function or a register');
}

function compileBar(ctx: Ctx, c: CInstr): void {
  const ins = ctx.ins;
  const ops = ins.operands;
  const mods = ins.mods;
  if (mods.includes('warp')) {
    // bar.warp.sync: lanes of a warp under the IPDOM model are already converged; only an
    // observer (the race checker's intra-warp ordering) cares.
    const mOp = ops[0];
    const members = mOp?.kind === 'int' ? Number(BigInt.asUintN(32, mOp.value)) | 0 : -1;
    const mReg = mOp && mOp.kind !== 'int' ? src(ctx, mOp, 'u32') : -1;
    c.exec = seq(ctx.pre, (w: Warp, m: number) => {
      const p = w.mem.probe;
      if (p === undefined) return;
      p.warpSync(w, m, mReg >= 0 ? w.u32[mReg + 2 * i64.lowestLane(m)]! | 0 : members);
    });
    c.ctl = Ctl.WarpSync;
    c.sync = { reg: mReg, imm: members };
    return;
  }
  const op: BarInfo['op'] = mods.includes('arrive') ? 'arrive' : mods.includes('red') ? 'red' : 'sync';
  const redOp = op === 'red' ? (mods.includes('popc') ? 'popc' : mods.includes('and') ? 'and' : 'or') : undefined;
  let k = 0;
  let dstB = -1;
  if (op === 'red') dstB = dst(ctx, ops[k++]);
  const idOp = ops[k++];
  let id = 0;
  let idReg = -1;
  if (idOp?.kind === 'int') id = Number(idOp.value);
  else if (idOp) idReg = src(ctx, idOp, 'u32');
  let countReg = -1;
  let pred = -1;
  let predNeg = false;
  const next = ops[k];
  if (next && !(op === 'red' && k === ops.length - 1)) {
    countReg = src(ctx, next, 'u32');
    k++;
  }
  if (op === 'red') {
    const p = ops[k];
    if (p?.kind === 'not') { predNeg = true; pred = src(ctx, p.inner, 'pred'); } else pred = src(ctx, p, 'pred');
  }
  if (id < 0 || id > 15) fail(ctx, `barrier id ${id} out of range 0..15`);
  c.ctl = Ctl.Bar;
  c.bar = { op, id, idReg, countReg, redOp, dst: dstB, pred, predNeg };
  if (ctx.pre.length) c.exec = seq(ctx.pre, () => {});
}

function compileMov(ctx: Ctx, t: string): Exec {
  const ops = ctx.ins.operands;
  const d = ops[0];
  const s = ops[1];
  const mods = ctx.ins.mods;
  if (d?.kind === 'vec' && s?.kind === 'vec' && (mods.includes('v2') || mods.includes('v4') || mods.includes('v8'))) {
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
  if (s?.kind === 'special' && (s.name === 'clock' || s.name === 'clock64' || s.name.startsWith('globaltimer') || s.name === 'clock_hi')) {
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

// ---- ALU -------------------------------------------------------------------------------------------

const CMP_INT: Record<string, string> = {
  eq: 'a === b', ne: 'a !== b', lt: 'a < b', le: 'a <= b', gt: 'a > b', ge: 'a >= b',
  lo: 'a < b', ls: 'a <= b', hi: 'a > b', hs: 'a >= b',
};
const CMP_FLOAT: Record<string, string> = {
  eq: 'a === b', ne: '(a !== b && a === a && b === b)', lt: 'a < b', le: 'a <= b', gt: 'a > b', ge: 'a >= b',
  equ: '(a === b || a !== a || b !== b)', neu: 'a !== b', ltu: '!(a >= b)', leu: '!(a > b)', gtu: '!(a <= b)',
  geu: '!(a < b)', num: '(a === a && b === b)', nan: '(a !== a || b !== b)',
};

function cmpOp(mods: readonly string[]): string {
  for (const m of mods) if (m in CMP_FLOAT || m in CMP_INT) return m;
  return 'eq';
}

function compileAlu(ctx: Ctx, t: string): Exec {
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

  if ((t === 'f16' || t === 'bf16' || t === 'f16x2' || t === 'bf16x2') && op !== 'cvt' && op !== 'setp' && op !== 'set') return compileHalf(ctx, t);

  switch (op) {
    case 'add': case 'sub': {
      const sign = op === 'add' ? '+' : '-';
      if (isF) {
        const fn = t === 'f32' ? (op === 'add' ? 'f32Add' : 'f32Sub') : op === 'add' ? 'f64Add' : 'f64Sub';
        const direct = rnd === fp.RN ? `${fin('a')} ${sign} ${fin('b')}` : `K.fp.${fn}(${fin('a')}, ${fin('b')}, X0)`;
        return bind(lanes(v, [v, v], fpost(direct)), D(), A(), B(), 0, 0, rnd);
      }
      if (is64) return bind(lanes('l', ['l', 'l'], `K.i64.${op}64(alo, ahi, blo, bhi); dlo = K.R.lo; dhi = K.R.hi;`), D(), A(), B());
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
    case 'setp': case 'set': return compileSetp(ctx, t);
    case 'selp': {
      const Cs = C('pred');
      if (is64 || t === 'f64') return bind(lanes('l', ['l', 'l', 'p'], 'if (c) { dlo = alo; dhi = ahi; } else { dlo = blo; dhi = bhi; }'), D(), A(), B(), Cs);
      return bind(lanes('u', ['u', 'u', 'p'], 'd = c ? a : b;'), D(), A(), B(), Cs);
    }
    case 'slct': {
      const ct = mods.includes('f32') && mods.indexOf('f32') === mods.length - 1 ? 'f32' : 's32';
      const Cs = C(ct);
      if (typeSize(mods[0] ?? 'b32') === 8 || mods[0] === 'f64') return bind(lanes('l', ['l', 'l', ct === 'f32' ? 'f' : 'i'], 'if (c >= 0) { dlo = alo; dhi = ahi; } else { dlo = blo; dhi = bhi; }'), D(), src(ctx, ops[1], mods[0]!), src(ctx, ops[2], mods[0]!), Cs);
      return bind(lanes('u', ['u', 'u', ct === 'f32' ? 'f' : 'i'], 'd = c >= 0 ? a : b;'), D(), src(ctx, ops[1], mods[0] ?? 'b32'), src(ctx, ops[2], mods[0] ?? 'b32'), Cs);
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
    case 'vabsdiff4': case 'vabsdiff2': case 'vadd4': case 'vsub4': case 'vmin4': case 'vmax4': case 'vavrg4':
    case 'vadd2': case 'vsub2': case 'vmin2': case 'vmax2': case 'vavrg2': {
      const sa = mods[0]?.startsWith('s') ?? false;
      const sb = mods[1]?.startsWith('s') ?? false;
      const acc = has('add');
      const Cs = ops[3] ? C('u32') : ctx.fc.constBits(0, 0);
      return bind(lanes('u', ['u', 'u', 'u'], `d = X0(X1, a, b, c, ${sa}, ${sb}, ${sat}, ${acc}) >>> 0;`), D(), A('b32'), B('b32'), Cs, 0, simd, op);
    }
    case 'szext': {
      const sg = has('s32');
      return bind(lanes('u', ['u', 'u'], `const n = b > 32 ? 32 : b; d = n === 0 ? 0 : n === 32 ? a : ${sg} ? ((a << (32 - n)) >> (32 - n)) >>> 0 : (a & ((1 << n) - 1)) >>> 0;`), D(), A('b32'), B('u32'));
    }
    case 'tex': case 'tld4': case 'txq': case 'suld': case 'sust': case 'suq': case 'sured': case 'wmma': case 'mma':
    case 'ldmatrix': case 'stmatrix': case 'movmatrix': case 'cp': case 'mbarrier': case 'wgmma': case 'tcgen05':
    case 'tensormap': case 'alloca': case 'stacksave': case 'stackrestore': case 'setmaxnreg': case 'getctarank':
    case 'mapa': case 'multimem': case 'istypep': case 'clusterlaunchcontrol':
      return fail(ctx, `'${[op, ...mods].join('.')}' is not supported yet`);
    default:
      return fail(ctx, `'${[op, ...mods].join('.')}' is not supported yet`);
  }
}

function compileMulInt(ctx: Ctx, t: string, mad: boolean): Exec {
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
function compileCarry(ctx: Ctx, op: string, t: string): Exec {
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

/** What `set` writes for true, by destination type (false is 0 in every type). */
const SET_TRUE: Readonly<Record<string, number>> = {
  u32: 0xffffffff, s32: 0xffffffff, b32: 0xffffffff, u16: 0xffff, s16: 0xffff, f16: 0x3c00, bf16: 0x3f80,
};

function compileSetp(ctx: Ctx, t: string): Exec {
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
    expr = `((a, b) => ${rel})(K.i64.cmp64(alo, ahi, blo, bhi, ${!unsignedCmp}), 0)`;
  } else {
    const unsignedCmp = ['lo', 'ls', 'hi', 'hs'].includes(cmp) || !SIGNED.has(t);
    va = unsignedCmp ? 'u' : 'i';
    A = src(ctx, ops[1], t);
    B = src(ctx, ops[2], t);
    const rel = CMP_INT[cmp] ?? fail(ctx, `unknown comparison .${cmp}`);
    const tt = unsignedCmp && !SIGNED.has(t) ? t : t;
    expr = `((a, b) => ${rel})(${norm(tt, 'a')}, ${norm(tt, 'b')})`;
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
  const body = `const r = ${cmpExpr}; d = ${combine('r')}; e = ${combine('!r')};`;
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
function compileHalf2Compare(ctx: Ctx, t: 'f16x2' | 'bf16x2'): Exec {
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

function compileCvt(ctx: Ctx): Exec {
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
  if (hasR('pack')) {
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

function compileHalf(ctx: Ctx, t: string): Exec {
  const ins = ctx.ins;
  const ops = ins.operands;
  const op = ins.opcode;
  const mods = ins.mods;
  const rnd = roundMod(mods);
  const pair = t.endsWith('x2');
  const base = t.startsWith('bf') ? 'bf16' : 'f16';
  const P = pair ? `${base}x2` : base;
  const D = (): number => dst(ctx, ops[0]);
  const A = (): number => src(ctx, ops[1], t);
  const B = (): number => src(ctx, ops[2], t);
  const C = (): number => src(ctx, ops[3], t);
  const post = (e: string): string => {
    let r = e;
    if (mods.includes('ftz') && !pair) r = `K.fp.${base === 'f16' ? 'ftz16' : 'ftzBf16'}(${r})`;
    if (mods.includes('sat') && !pair) r = `K.fp.${base === 'f16' ? 'sat16' : 'satBf16'}(${r})`;
    return `d = ${r};`;
  };
  const cap = (s: string): string => s[0]!.toUpperCase() + s.slice(1);
  switch (op) {
    case 'add': case 'sub': case 'mul':
      return bind(lanes('u', ['u', 'u'], post(`K.fp.${P}${cap(op)}(a, b, X0)`)), D(), A(), B(), 0, 0, rnd);
    case 'fma': case 'mad':
      return bind(lanes('u', ['u', 'u', 'u'], post(`K.fp.${P}Fma(a, b, c, X0)`)), D(), A(), B(), C(), 0, rnd);
    case 'neg': return bind(lanes('u', ['u'], `d = K.fp.${pair ? 'h16x2Neg' : 'h16Neg'}(a);`), D(), A());
    case 'abs': return bind(lanes('u', ['u'], `d = K.fp.${pair ? 'h16x2Abs' : 'h16Abs'}(a);`), D(), A());
    case 'min': case 'max': {
      const fn = `${base}${cap(op)}`;
      const nan = mods.includes('NaN');
      if (pair) return bind(lanes('u', ['u', 'u'], `d = K.fp.pack16x2(K.fp.${fn}(a & 65535, b & 65535, ${nan}), K.fp.${fn}(a >>> 16, b >>> 16, ${nan}));`), D(), A(), B());
      return bind(lanes('u', ['u', 'u'], `d = K.fp.${fn}(a & 65535, b & 65535, ${nan});`), D(), A(), B());
    }
    case 'setp': case 'set': return compileSetp(ctx, t);
    default: return fail(ctx, `'${[op, ...mods].join('.')}' is not supported yet`);
  }
}

// ---- bit-twiddling helpers used through X0/X1 ------------------------------------------------------

function prmt(a: number, b: number, c: number, mode: string): number {
  const bytes = [a & 255, (a >>> 8) & 255, (a >>> 16) & 255, a >>> 24, b & 255, (b >>> 8) & 255, (b >>> 16) & 255, b >>> 24];
  const pick = (sel: number): number => {
    const v = bytes[sel & 7]!;
    return sel & 8 ? (v & 0x80 ? 0xff : 0) : v;
  };
  let r: number[];
  const s = c & 3;
  switch (mode) {
    case 'f4e': r = [0, 1, 2, 3].map((i) => bytes[(s + i) & 7]!); break;
    case 'b4e': r = [0, 1, 2, 3].map((i) => bytes[(8 + s - i) & 7]!); break;
    case 'rc8': r = [0, 1, 2, 3].map(() => bytes[s]!); break;
    // edge clamp left/right per the ISA's table: byte i takes max(i, s) / min(i, s)
    case 'ecl': r = [0, 1, 2, 3].map((i) => bytes[i > s ? i : s]!); break;
    case 'ecr': r = [0, 1, 2, 3].map((i) => bytes[i < s ? i : s]!); break;
    case 'rc16': { const lo = (c & 1) * 2; r = [bytes[lo]!, bytes[lo + 1]!, bytes[lo]!, bytes[lo + 1]!]; break; }
    default: r = [0, 1, 2, 3].map((i) => pick((c >>> (i * 4)) & 15));
  }
  return ((r[0]! | (r[1]! << 8) | (r[2]! << 16) | (r[3]! << 24)) >>> 0);
}

/** PTX bfe.u32/.s32 pseudocode: bits pos..pos+len-1, the rest filled with the sign bit. */
function bfe32(a: number, pos: number, len: number, signed: boolean): number {
  if (len === 0) return 0;
  const sIdx = Math.min(pos + len - 1, 31);
  const sbit = signed && sIdx >= 0 ? (a >>> sIdx) & 1 : 0;
  let d = 0;
  for (let i = 0; i <= 31; i++) {
    const bit = i < len && pos + i <= 31 ? (a >>> (pos + i)) & 1 : sbit;
    d |= bit << i;
  }
  return d >>> 0;
}

function bfe64(a: bigint, pos: number, len: number, signed: boolean): bigint {
  if (len === 0) return 0n;
  const sIdx = Math.min(pos + len - 1, 63);
  const sbit = signed ? (a >> BigInt(sIdx)) & 1n : 0n;
  let d = 0n;
  for (let i = 0; i <= 63; i++) {
    const bit = i < len && pos + i <= 63 ? (a >> BigInt(pos + i)) & 1n : sbit;
    d |= bit << BigInt(i);
  }
  return d;
}

function fns(mask: number, base: number, offset: number): number {
  // find the n-th set bit of mask starting at base (PTX fns semantics)
  let pos = base & 31;
  if (offset === 0) return 0xffffffff;
  if (offset > 0) {
    let n = offset;
    for (let i = pos; i < 32; i++) if ((mask >>> i) & 1 && --n === 0) return i;
    return 0xffffffff;
  }
  let n = -offset;
  for (let i = pos; i >= 0; i--) if ((mask >>> i) & 1 && --n === 0) return i;
  return 0xffffffff;
}

function dotProduct(a: number, b: number, c: number, ua: boolean, ub: boolean, two: boolean, hi: boolean): number {
  let acc = c;
  if (two) {
    for (let i = 0; i < 2; i++) {
      const x = ua ? (a >>> (16 * i)) & 0xffff : ((a >>> (16 * i)) << 16) >> 16;
      const bi = (hi ? 2 : 0) + i;
      const y = ub ? (b >>> (8 * bi)) & 255 : ((b >>> (8 * bi)) << 24) >> 24;
      acc = (acc + x * y) | 0;
    }
    return acc;
  }
  for (let i = 0; i < 4; i++) {
    const x = ua ? (a >>> (8 * i)) & 255 : ((a >>> (8 * i)) << 24) >> 24;
    const y = ub ? (b >>> (8 * i)) & 255 : ((b >>> (8 * i)) << 24) >> 24;
    acc = (acc + x * y) | 0;
  }
  return acc;
}

function simd(op: string, a: number, b: number, c: number, sa: boolean, sb: boolean, sat: boolean, acc: boolean): number {
  const n = op.endsWith('4') ? 4 : 2;
  const w = 32 / n;
  const mask = (1 << w) - 1;
  let r = 0;
  let sum = c;
  for (let i = 0; i < n; i++) {
    const ex = (v: number, s: boolean): number => (s ? ((v >>> (w * i)) << (32 - w)) >> (32 - w) : (v >>> (w * i)) & mask);
    const x = ex(a, sa), y = ex(b, sb);
    let v: number;
    if (op.startsWith('vabsdiff')) v = Math.abs(x - y);
    else if (op.startsWith('vadd')) v = x + y;
    else if (op.startsWith('vsub')) v = x - y;
    else if (op.startsWith('vmin')) v = Math.min(x, y);
    else if (op.startsWith('vmax')) v = Math.max(x, y);
    else v = (x + y + 1) >> 1;
    if (acc) sum += v;
    if (sat) v = sa || sb ? Math.max(-(1 << (w - 1)), Math.min((1 << (w - 1)) - 1, v)) : Math.max(0, Math.min(mask, v));
    r |= (v & mask) << (w * i);
  }
  return acc ? sum : (r >>> 0);
}

