/**
 * Instruction selection for the video instructions: reads the types, modifiers and operand
 * selectors (RInstruction.selectors) once, refuses forms the ISA does not define with a located
 * message, and returns a lane loop over the pure semantics of semantics.ts.
 */
import type { CInstr, Exec } from '../compiled.js';
import { type Ctx, dst, fail, src } from '../compile/operands.js';
import type { ROperand } from '../../ptx/resolve.js';
import type { Warp } from '../state.js';
import {
  type Cmp, type MadForm, type Part, type ScalarForm, type SecOp, type SimdForm, type VOp, WORD,
  scalarPart, scalarVideo, simdMask, simdSelector, simdVideo, vmad,
} from './semantics.js';

const CMPS: ReadonlySet<string> = new Set(['eq', 'ne', 'lt', 'le', 'gt', 'ge']);

function opName(ctx: Ctx): string {
  return [ctx.ins.opcode, ...ctx.ins.mods].join('.');
}

/** The .u32/.s32 types in order (dtype, atype, btype; vset has no dtype). */
function types(ctx: Ctx, count: number): boolean[] {
  const ts = ctx.ins.mods.filter((m) => m === 'u32' || m === 's32');
  if (ts.length !== count) fail(ctx, `'${opName(ctx)}' needs ${count} operand types out of .u32/.s32`);
  return ts.map((t) => t === 's32');
}

/** A lane loop d = f(a, b, c) over the active lanes. */
function laneLoop(D: number, A: number, B: number, C: number, f: (a: number, b: number, c: number) => number): Exec {
  return (w: Warp, m: number) => {
    const u = w.u32;
    for (let l = 0; l < 32; l++) {
      if (((m >>> l) & 1) === 0) continue;
      u[D + 2 * l] = f(u[A + 2 * l]!, u[B + 2 * l]!, u[C + 2 * l]!);
    }
  };
}

function unneg(o: ROperand | undefined): { op: ROperand | undefined; neg: boolean } {
  return o?.kind === 'neg' ? { op: o.inner, neg: true } : { op: o, neg: false };
}

export function compileVideo(ctx: Ctx, _c: CInstr): Exec {
  const opcode = ctx.ins.opcode;
  const m = /^v(add|sub|absdiff|min|max|shl|shr|mad|set|avrg)([24]?)$/.exec(opcode);
  if (!m) return fail(ctx, `'${opcode}' is not a video instruction`);
  const base = m[1] as VOp | 'mad';
  const ops = ctx.ins.operands;
  const sels = ctx.ins.selectors ?? [];
  const mods = ctx.ins.mods;
  const has = (x: string): boolean => mods.includes(x);
  for (let i = 0; i < ops.length; i++) {
    const o = unneg(ops[i]).op;
    if (sels[i] !== undefined && o?.kind !== 'reg') fail(ctx, `a selector needs a register operand in '${opName(ctx)}'`);
  }
  const cmp = (mods.find((x) => CMPS.has(x)) ?? 'eq') as Cmp;
  if (base === 'set' && !mods.some((x) => CMPS.has(x))) fail(ctx, `'${opName(ctx)}' needs a comparison (.eq .ne .lt .le .gt .ge)`);
  const ty = types(ctx, base === 'set' ? 2 : 3);
  const [dS, aS, bS] = base === 'set' ? [false, ty[0]!, ty[1]!] : [ty[0]!, ty[1]!, ty[2]!];
  const sat = has('sat');
  const D = dst(ctx, ops[0]);

  if (m[2] !== '') {
    // SIMD forms: d{.mask}, a{.asel}, b{.bsel}, c
    if (base === 'shl' || base === 'shr' || base === 'mad') return fail(ctx, `'${opcode}' does not exist`);
    const n = Number(m[2]) as 2 | 4;
    const acc = has('add');
    if (acc && sat) fail(ctx, `'${opName(ctx)}': .sat cannot be combined with the .add accumulation`);
    if (ops.length !== 4) fail(ctx, `'${opName(ctx)}' takes 4 operands (d, a, b, c)`);
    const asel = simdSelector(sels[1], n, n === 2 ? [0, 1] : [0, 1, 2, 3]);
    const bsel = simdSelector(sels[2], n, n === 2 ? [2, 3] : [4, 5, 6, 7]);
    const mask = simdMask(sels[0], n);
    if (!asel || !bsel || mask === undefined || sels[3] !== undefined) {
      fail(ctx, `bad selector in '${opName(ctx)}' (${n === 2 ? 'sources .hxy with x,y in 0..3, mask .h0/.h1/.h10' : 'sources .bxyzw with digits 0..7, mask .b0 .. .b3210'})`);
    }
    const f: SimdForm = { op: base, n, dSigned: dS, aSigned: aS, bSigned: bS, asel, bsel, mask, sat, acc, cmp };
    return laneLoop(D, src(ctx, ops[1], 'b32'), src(ctx, ops[2], 'b32'), src(ctx, ops[3], 'b32'), (a, b, c) => simdVideo(f, a, b, c));
  }

  if (base === 'avrg') return fail(ctx, `'${opcode}' does not exist (vavrg2/vavrg4 do)`);
  const part = (i: number): Part => {
    const p = scalarPart(sels[i]);
    if (!p) fail(ctx, `bad selector '.${sels[i] ?? ''}' in '${opName(ctx)}' (.b0 .b1 .b2 .b3 .h0 .h1)`);
    return p;
  };
  const asel = part(1), bsel = part(2);

  if (base === 'mad') {
    if (sels[0] !== undefined) fail(ctx, `'${opName(ctx)}' has no destination selector`);
    if (ops.length !== 4) fail(ctx, `'${opName(ctx)}' takes 4 operands (d, a, b, c)`);
    const a = unneg(ops[1]), b = unneg(ops[2]), c = unneg(ops[3]);
    const po = has('po');
    if (po && (a.neg || b.neg || c.neg)) fail(ctx, `'${opName(ctx)}': operands cannot be negated with .po`);
    const f: MadForm = {
      aSigned: aS, bSigned: bS, asel, bsel, negA: a.neg, negB: b.neg, negC: c.neg, po,
      shift: has('shr7') ? 7 : has('shr15') ? 15 : 0, sat,
    };
    return laneLoop(D, src(ctx, a.op, 'b32'), src(ctx, b.op, 'b32'), src(ctx, c.op, 'b32'), (x, y, z) => vmad(f, x, y, z));
  }

  const secop = (['add', 'min', 'max'] as const).find((x) => has(x)) as SecOp;
  const dsel = part(0);
  if (dsel !== WORD && secop !== undefined) fail(ctx, `'${opName(ctx)}': a destination selector (merge) cannot be combined with .${secop}`);
  // c is required by a merge or secondary operation; ptxas also accepts (and ignores) it without
  if (ops.length !== 4 && (ops.length !== 3 || dsel !== WORD || secop !== undefined)) {
    fail(ctx, `'${opName(ctx)}' takes ${dsel !== WORD || secop !== undefined ? '4 operands (d, a, b, c)' : '3 or 4 operands (d, a, b[, c])'}`);
  }
  if (sels[3] !== undefined) fail(ctx, `'${opName(ctx)}': c takes no selector`);
  if ((base === 'shl' || base === 'shr') && has('clamp') && has('wrap')) fail(ctx, `'${opName(ctx)}': .clamp or .wrap, not both`);
  const f: ScalarForm = { op: base, dSigned: dS, aSigned: aS, bSigned: bS, asel, bsel, dsel, sat, secop, wrap: has('wrap'), cmp };
  const C = ops.length === 4 ? src(ctx, ops[3], 'b32') : ctx.fc.constBits(0, 0);
  return laneLoop(D, src(ctx, ops[1], 'b32'), src(ctx, ops[2], 'b32'), C, (a, b, c) => scalarVideo(f, a, b, c));
}
