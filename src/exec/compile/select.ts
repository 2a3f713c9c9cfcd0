/**
 * Instruction selection: each resolved PTX instruction to a CInstr (control kind, targets,
 * lane loop), dispatching to the compiler of its family; calls and barriers are decoded here.
 */
import type { RInstruction, ROperand } from '../../ptx/resolve.js';
import { typeSize } from '../../ptx/types.js';
import { type ArgRef, type BarInfo, type CInstr, Ctl, type Exec } from '../compiled.js';
import * as i64 from '../int64.js';
import type { Warp } from '../state.js';
import { compileMma } from '../tensor/mma-select.js';
import { compileLdmatrix } from '../tensor/ldmatrix.js';
import { compileWmma } from '../tensor/wmma.js';
import { compileMovmatrix } from '../tensor/movmatrix.js';
import { compileCpAsync } from '../async/cpasync.js';
import { compileMbarrier } from '../async/mbarrier.js';
import { compileStack } from '../stack.js';
import { compileVideo } from '../video/index.js';
import { compileTexture } from '../texture/compile.js';
import { warpOp } from '../warpops.js';
import { memOp } from '../memops.js';

import { type Ctx, K, dst, fail, seq, src } from './operands.js';
import type { FnCompiler } from './slots.js';
import { factsOf } from '../../ptx/instructions.js';
import { typeMod } from './modifiers.js';
import { compileAlu } from './alu.js';
import { compileMov } from './mov.js';

// ---- instruction selection ------------------------------------------------------------------------

export function compileInstr(fc: FnCompiler, ins: RInstruction, c: CInstr, rpc: number): void {
  const ctx: Ctx = { fc, ins, pre: [] };
  const ops = ins.operands;
  const mods = ins.mods;
  const t = typeMod(mods);
  const has = (m: string): boolean => mods.includes(m);
  let main: Exec | undefined;
  const facts = factsOf(ins.opcode);
  // control transfers and ordering points: what the opcode table says (src/ptx/instructions.ts)
  switch (facts.control) {
    case 'branch': {
      const target = ops[0];
      if (target?.kind !== 'label') fail(ctx, 'bra needs a label');
      c.ctl = Ctl.Bra;
      c.target = target.index;
      c.rpc = has('uni') ? -1 : rpc;
      return;
    }
    case 'indirect-branch': {
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
    case 'return': c.ctl = Ctl.Ret; return;
    case 'exit': c.ctl = Ctl.Exit; return;
    case 'trap': c.ctl = Ctl.Trap; return;
    case 'none': break;
  }
  if (facts.memory === 'barrier') { compileBar(ctx, c); return; }
  if (facts.memory === 'fence') {
    c.exec = (w: Warp, m: number) => { const p = w.mem.probe; if (p !== undefined) p.fence(w, m); };
    return;
  }
  switch (ins.opcode) {
    case 'brkpt': c.ctl = Ctl.Brkpt; return;
    case 'nanosleep': case 'prefetch': case 'prefetchu': case 'pmevent':
    case 'griddepcontrol': case 'discard': case 'applypriority': case 'createpolicy':
      c.exec = () => {};
      return;
    // ---------------- data movement ----------------
    case 'mov': // c.readsClock comes from the opcode table (compileFunction)
      main = compileMov(ctx, t);
      break;
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
      main = compileLdmatrix(ctx);
      break;
    case 'wmma':
      main = compileWmma(ctx);
      break;
    case 'movmatrix':
      main = compileMovmatrix(ctx, c);
      break;
    case 'cp': // async copies: src/exec/async
      main = compileCpAsync(ctx);
      break;
    case 'mbarrier':
      main = compileMbarrier(ctx, false);
      break;
    case 'alloca': case 'stacksave': case 'stackrestore':
      main = compileStack(ctx, c);
      break;
    case 'tex': case 'tld4': case 'txq': case 'suq': case 'istypep': case 'suld': case 'sust': case 'sured':
      main = compileTexture(ctx); // textures and surfaces: src/exec/texture
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

export function compileCall(ctx: Ctx, c: CInstr): void {
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

export function compileBar(ctx: Ctx, c: CInstr): void {
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
