/**
 * Block code generation: one straight-line run of plain instructions (Ctl.None) of a function
 * becomes ONE generated function, so the hot loop dispatches once per block instead of once per
 * instruction. Consecutive generated ALU lane loops (codegen.ts `lanes`) are fused into a single
 * loop over the active lanes that does every instruction of the run for one lane before the next
 * lane: they touch only that lane's registers and cannot fault, so the order of lanes does not
 * show. Every other plain instruction (loads, stores, atomics, warp-wide operations, anything that
 * can fault) runs its own lane loop in program order, with its guard, so a fault stops at exactly
 * that instruction: before calling it the block notes its index and the thread-instructions so far
 * in BLOCK_PROGRESS, from which the hot loop rebuilds the state of the per-instruction path.
 *
 * The step log's entries ((global pc, warp mask) per warp-step) are written inline, before the
 * instructions they describe, the same words the per-instruction path writes.
 */
import { writeFileSync } from 'node:fs';
import { boundLoopOf } from '../codegen.js';
import type { CInstr, Exec } from '../compiled.js';
import type { Warp } from '../state.js';
import type { Constants } from './constants.js';
import { type Item, LaneCache, laneStep } from './lanes.js';
import { GLOBAL_HI, PAGE_SHIFT, SHARED_HI, Space } from '../memory.js';
import { groupCheck, groupLoad, groupStart, sharedGroups } from './hoist.js';
import { type MemSpec, memSpecOf, type UniformSpec, uniformSpecOf } from './memspec.js';
import { DeadStores } from './deadstores.js';

/** A compiled block: runs all its instructions for the active lanes `m`; returns the thread-instructions. */
export type BlockRun = (w: Warp, m: number) => number;

/** Where a block that threw stopped: the instruction (index in the block) and thread-instructions counted, that one included. */
export const BLOCK_PROGRESS = { k: 0, t: 0 };

/** A hoisted segment's split form (fusedSegment), run when its whole-warp check refused: `t` thread-instructions so far in, the total out. */
type SplitRun = (w: Warp, m: number, t: number) => number;

type Factory<R> = (K: unknown, XS: readonly unknown[], EX: readonly Exec[], ST: typeof BLOCK_PROGRESS, POPC: (x: number) => number, GM: typeof guardMask,
  P0: Uint32Array, P1: Uint32Array, NOB: Uint32Array, NOD: Uint8Array, HA: readonly Uint32Array[], SLOW: () => BlockRun, LZ: (n: number) => SplitRun) => R;

/** The generated code's free names, in the order of Factory's parameters. */
const PARAMS = ['K', '$XS', '$EX', '$ST', '$POPC', '$GM', '$P0', '$P1', '$NOB', '$NOD', '$HA', '$SLOW', '$LZ'] as const;

/**
 * Lane byte indices of a checked memory instruction until its data moves (the next loop). Two,
 * alternating: a loop moves one instruction's data while it checks the next one's addresses.
 * One block runs at a time (per thread), so module-level scratch serves all.
 */
const P0 = new Uint32Array(32);
const P1 = new Uint32Array(32);
const NO_WORDS = new Uint32Array(0);
const NO_BYTES = new Uint8Array(0);

/** Spaces a block does inline: Warp.quickIndex's fast ones that stores can write. */
function inlineSpace(s: Space): boolean {
  return s === Space.Global || s === Space.Shared || s === Space.Generic;
}

/** The lanes of `m` whose guard predicate (at register slot `base`) holds, negated by `neg`. */
function guardMask(i32: Int32Array, base: number, m: number, neg: boolean): number {
  let r = 0;
  for (let l = 0; l < 32; l++) if (((m >>> l) & 1) && (i32[base + 2 * l] !== 0) !== neg) r |= 1 << l;
  return r;
}

function popc(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * The block's start: each uniform load's value read from its bank ($ul, $uh: int32 words), after
 * checking that it lies in the bank as Warp.quickIndex would; otherwise the whole block runs one
 * instruction at a time (SLOW), where the load's closure faults at exactly its step.
 */
function uniformPrologue(uni: ReadonlyMap<number, UniformSpec>): string {
  if (uni.size === 0) return '';
  const checks: string[] = [];
  for (const [k, s] of uni) checks.push(`${s.lo + s.size} > $ub${k}.size`);
  return `${uniformReads(uni)}
      if (${checks.join(' || ')}) return $SLOW()(w, m);`;
}

/** The uniform loads' values ($ub: bank, $ul, $uh: int32 words), unchecked. */
function uniformReads(uni: ReadonlyMap<number, UniformSpec>): string {
  const out: string[] = [];
  for (const [k, s] of uni) {
    const bank = s.space === Space.Param ? 'w.mem.paramBank' : 'w.mem.constBank';
    out.push(`const $ub${k} = ${bank};`);
    const lo = `$ub${k}.i32[${s.lo >> 2}]`;
    const hi = s.size === 8 ? `$ub${k}.i32[${(s.lo >> 2) + 1}]` : s.signed ? `$ul${k} >> 31` : '0';
    // an index past the end reads undefined (0 here): uniformPrologue's check sends such a block to SLOW
    out.push(`const $ul${k} = ${lo} | 0, $uh${k} = ${hi} | 0;`);
  }
  return out.join('\n');
}

/** The generated names a memory check sets: refused flag, lanes mask, space seen, lane indices. */
interface CheckNames { readonly bad: string; readonly mk: string; readonly sp: string; readonly P: string }

function namesOf(k: number, q: number): CheckNames {
  return { bad: `$bad${k}`, mk: `$mk${k}`, sp: `$sp${k}`, P: `$P${q}` };
}

/**
 * The whole-warp check of memory instruction k, for one lane (the last thing its lane loop does,
 * after the instructions before k): the lane's address, when its guard holds, into $P of k, its
 * bit into $mk; anything Warp.quickIndex would not take (misaligned, outside one allocation or the
 * user part of shared memory, lanes of a generic access in two spaces) sets $bad. No effect: a
 * refused warp runs the instruction's own closure, which faults at exactly its lane.
 */
function memCheck(ins: CInstr, s: MemSpec, k: number, q: number, cache: LaneCache, n: CheckNames = namesOf(k, q)): string {
  const { bad, mk, sp, P } = n;
  const a = s.reg32
    ? `${cache.read('u', 'q', s.reg)} const s0 = q + ${s.lo}; const lo = s0 >>> 0; const hi = (${s.hi} + (s0 > 0xffffffff ? 1 : 0)) >>> 0;`
    : `${cache.read('l', 'q', s.reg)} const s0 = qlo + ${s.lo}; const lo = s0 >>> 0; const hi = (qhi + ${s.hi} + (s0 > 0xffffffff ? 1 : 0)) >>> 0;`;
  const global = `if (lo < $aLo || lo + ${s.size} > $aHi) { const id = $AR.check(lo, ${s.size}); if (id < 0) ${bad} = true; else { const al = $AR.allocs[id]; $aLo = al.base; $aHi = al.base + al.size; } }`;
  const shared = `if (lo + ${s.size} > $SU) ${bad} = true;`;
  let where: string;
  switch (s.space) {
    case Space.Global: where = `if (hi !== ${GLOBAL_HI}) ${bad} = true; else { ${global} }`; break;
    case Space.Shared: where = shared; break;
    default: where = `if (hi === ${GLOBAL_HI}) { if (${sp} === 2) ${bad} = true; ${sp} = 1; ${global} }
      else if (hi === ${SHARED_HI}) { if (${sp} === 1) ${bad} = true; ${sp} = 2; ${shared} }
      else ${bad} = true;`;
  }
  const body = `{ ${a}
      if ((lo & ${s.size - 1}) !== 0) ${bad} = true; else { ${where} }
      ${P}[l] = lo; ${mk} |= 1 << l; }`;
  return ins.guard >= 0 ? `if ((I[${ins.guard} + o] !== 0) !== ${ins.guardNeg}) ${body}` : body;
}

/** Memory instruction k done for one lane, from the index its check left (its closure did it when the check refused). */
function memMove(s: MemSpec, k: number, q: number, cache: LaneCache): string {
  const on = `!$bad${k} && (($mk${k} >>> l) & 1) !== 0`;
  if (s.kind === 'ld') {
    cache.wrote('l', 'x', s.data, false); // forget what the register held
    const hi = s.size === 8 ? `$B${k}[i + 1]` : s.signed ? 'v >= 0x80000000 ? 0xffffffff : 0' : '0';
    return `if (${on}) { const i = $P${q}[l] >>> 2; const v = $B${k}[i]; ${cache.store(s.data, `U[${s.data} + o] = v; U[${s.data} + o + 1] = ${hi};`)} }`;
  }
  const v = s.size === 8 ? `${cache.read('l', 'v', s.data)} $B${k}[i] = vlo; $B${k}[i + 1] = vhi;` : `${cache.read('u', 'v', s.data)} $B${k}[i] = v;`;
  return `if (${on}) { const x = $P${q}[l]; if ((x >>> ${PAGE_SHIFT}) !== $pg${k}) $DT${k}[$pg${k} = x >>> ${PAGE_SHIFT}] = 1; const i = x >>> 2; ${v} }`;
}

/**
 * One fused segment: instructions [from, to) of the block, generated ALU loops and scalar loads/
 * stores. Each memory instruction splits it into lane loops: the loop before it ends with its
 * check for every lane, the loop after it starts by moving its data; in between, a warp the check
 * refused runs the instruction's closure. So each loop holds at most one memory access, done for
 * the lanes in order, and every effect of an instruction on memory happens after all the lanes
 * did the instructions before it and before any lane does one after it, as one at a time.
 */
function splitSegment(code: readonly CInstr[], consts: Constants, p: number, from: number, to: number, items: readonly Item[], xs: unknown[], ex: Exec[],
  dse?: DeadStores): string {
  const out: string[] = [];
  const mems: number[] = [];
  for (let k = from; k < to; k++) if (items[k - from]!.mem !== undefined) mems.push(k);
  // pieces: [start, end) with the memory instruction at `start` leading (moved) when it is one
  const bounds = [from, ...mems.filter((k) => k > from), to];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const start = bounds[i]!, end = bounds[i + 1]!;
    const lead = items[start - from]!.mem !== undefined ? start : -1;
    const tail = end < to ? end : -1;
    // a memory instruction's registers are read from the register file (its check, or its closure when refused)
    if (lead >= 0) dse?.readAll(code[p + lead]!);
    if (lead >= 0) {
      // the check of `lead` ended the previous loop (or runs alone, when the segment starts with it)
      if (start === from) out.push(checkOnly(code, consts, p, lead, items[lead - from]!.mem!, mems.indexOf(lead) & 1));
      out.push(afterCheck(code[p + lead]!, lead, items[lead - from]!.mem!, ex));
    } else {
      out.push(`$ST.k = ${start}; $ST.t = $t;`);
    }
    const cache = new LaneCache(consts, dse);
    const body: string[] = [];
    let plain = 0;
    if (lead >= 0) body.push(memMove(items[lead - from]!.mem!, lead, mems.indexOf(lead) & 1, cache));
    for (let k = lead >= 0 ? start + 1 : start; k < end; k++) {
      const ins = code[p + k]!;
      body.push(laneStep(ins, items[k - from]!, k, cache, xs));
      if (ins.guard < 0) plain++;
    }
    if (tail >= 0) {
      dse?.readAll(code[p + tail]!);
      out.push(`let $mk${tail} = 0, $bad${tail} = false, $sp${tail} = 0;`);
      body.push(memCheck(code[p + tail]!, items[tail - from]!.mem!, tail, mems.indexOf(tail) & 1, cache));
    }
    if (plain > 0) out.push(`$t += ${plain} * $POPC(m);`);
    out.push(laneLoop(cache, body));
  }
  return out.join('\n');
}

function laneLoop(cache: LaneCache, body: readonly string[]): string {
  return `for (let l = 0; l < 32; l++) {
    if (((m >>> l) & 1) === 0) continue;
    const o = l << 1;
    ${cache.decls.length ? `let ${cache.decls.map((v) => `${v} = 0`).join(', ')};` : ''}
    ${body.join('\n')}
  }`;
}

/**
 * Whether every memory instruction of the segment is an unguarded load whose address register
 * no instruction before it in the segment writes: then every lane's address is known at the
 * segment's start, all can be checked first, and the loads done in one lane loop with the ALU
 * instructions (loads alone, no store: the order of the lanes does not show).
 */
function hoistable(code: readonly CInstr[], p: number, from: number, to: number, items: readonly Item[]): boolean {
  const written = new Set<number>();
  let loads = 0;
  for (let k = from; k < to; k++) {
    const it = items[k - from]!;
    if (it.mem !== undefined) {
      const s = it.mem;
      if (s.kind !== 'ld' || code[p + k]!.guard >= 0 || written.has(s.reg)) return false;
      written.add(s.data);
      loads++;
    } else if (it.uni !== undefined) {
      written.add(it.uni.data);
    } else {
      const b = it.alu;
      if (b.spec.dst !== 'n') written.add(b.D);
      if (b.spec.dst2 !== 'n') written.add(b.E);
    }
  }
  return loads > 1 && loads <= HOIST_MAX;
}

/** Loads checked ahead at most (their lane index arrays, module-level scratch like P0/P1). */
const HOIST_MAX = 64;
const HOISTED: Uint32Array[] = Array.from({ length: HOIST_MAX }, () => new Uint32Array(32));

/**
 * A segment: when its loads are hoistable, one loop checks every lane's address of every load
 * (no effect), then, when all passed, one loop does the whole segment; else (or when a lane was
 * refused) the split form (splitSegment). A hoisted segment's split form is a function of its own,
 * generated the first time a check refuses (`lazy` holds its maker): most blocks never need it, and
 * it was most of their text, so of V8's time compiling them.
 */
function fusedSegment(code: readonly CInstr[], consts: Constants, p: number, from: number, to: number, items: readonly Item[], xs: unknown[], ex: Exec[],
  lazy: (() => string)[], dse?: DeadStores): string {
  if (!hoistable(code, p, from, to, items)) return splitSegment(code, consts, p, from, to, items, xs, ex, dse);
  lazy.push(() => splitSegment(code, consts, p, from, to, items, xs, ex));
  const split = `$t = $LZ(${lazy.length - 1})(w, m, $t);`;
  const checks: string[] = [];
  const decl: string[] = [];
  const banks: string[] = [];
  const body: string[] = [];
  const cache = new LaneCache(consts, dse);
  const pre = new LaneCache(consts, dse);
  const loads = new Map<number, { s: MemSpec; guarded: boolean }>();
  for (let k = from; k < to; k++) if (items[k - from]!.mem !== undefined) loads.set(k, { s: items[k - from]!.mem!, guarded: code[p + k]!.guard >= 0 });
  const groups = sharedGroups(loads);
  for (const g of new Set(groups.values())) { checks.push(groupCheck(g)); body.push(groupStart(g, cache)); }
  if (groups.size > 0) banks.push('const $SB = w.cta.shared, $SBu = $SB.u32, $SBf = $SB.f32;');
  let j = 0;
  let plain = 0;
  for (let k = from; k < to; k++) {
    const it = items[k - from]!;
    const ins = code[p + k]!;
    const g = groups.get(k);
    if (it.mem !== undefined) dse?.readAll(ins);
    if (g !== undefined) {
      body.push(groupLoad(g, it.mem!, cache));
      plain++;
    } else if (it.mem !== undefined) {
      const s = it.mem;
      decl.push(`const $HP${j} = $HA[${j}]; let $Hsp${j} = 0, $HB${j} = $NOB;`);
      checks.push(memCheck(ins, s, k, 0, pre, { bad: '$Hbad', mk: '$Hmk', sp: `$Hsp${j}`, P: `$HP${j}` }));
      banks.push(`$HB${j} = ${s.space === Space.Global ? '$AR.bank' : s.space === Space.Shared ? 'w.cta.shared' : `($Hsp${j} === 1 ? $AR.bank : w.cta.shared)`}.u32;`);
      cache.wrote('l', 'x', s.data, false); // forget what the register held
      const hi = s.size === 8 ? `$HB${j}[i + 1]` : s.signed ? 'v >= 0x80000000 ? 0xffffffff : 0' : '0';
      body.push(`{ const i = $HP${j}[l] >>> 2; const v = $HB${j}[i]; ${cache.store(s.data, `U[${s.data} + o] = v; U[${s.data} + o + 1] = ${hi};`)} }`);
      plain++;
      j++;
    } else {
      body.push(laneStep(ins, it, k, cache, xs));
      if (ins.guard < 0) plain++;
    }
  }
  return `{
    ${decl.join('\n')}
    let $Hbad = false, $Hmk = 0;
    ${laneLoop(pre, checks)}
    if (!$Hbad) {
      ${banks.join('\n')}
      $ST.k = ${from}; $ST.t = $t;
      $t += ${plain} * $POPC(m);
      ${laneLoop(cache, body)}
    } else {
      ${split}
    }
  }`;
}

/** A segment that starts with memory instruction k: its check, as a loop of its own. */
function checkOnly(code: readonly CInstr[], consts: Constants, p: number, k: number, s: MemSpec, q: number): string {
  const cache = new LaneCache(consts);
  return `$ST.k = ${k}; $ST.t = $t; let $mk${k} = 0, $bad${k} = false, $sp${k} = 0;
    ${laneLoop(cache, [memCheck(code[p + k]!, s, k, q, cache)])}`;
}

/**
 * Between the loop that checked memory instruction k and the one that moves its data: k is
 * issued (counted); a refused warp runs
 * k's closure now, which may fault (BLOCK_PROGRESS names k); else the bank its lanes' indices are in.
 */
function afterCheck(ins: CInstr, k: number, s: MemSpec, ex: Exec[]): string {
  ex[k] = ins.exec!;
  const bank = s.space === Space.Global ? '$AR.bank' : s.space === Space.Shared ? 'w.cta.shared' : `($sp${k} === 1 ? $AR.bank : w.cta.shared)`;
  return `$t += $POPC($mk${k});
    $ST.k = ${k}; $ST.t = $t;
    let $B${k} = $NOB, $DT${k} = $NOD, $pg${k} = -1;
    if ($bad${k}) { if ($mk${k} !== 0) $EX[${k}](w, $mk${k}); }
    else if ($mk${k} !== 0) { const bk = ${bank}; $B${k} = bk.u32; $DT${k} = bk.dirty; }`;
}

/** PTXDBG_DUMP_BLOCKS=DIR: each generated block's text into DIR (to read what V8 is given). */
const DUMP = typeof process === 'undefined' ? undefined : process.env['PTXDBG_DUMP_BLOCKS'];
let dumped = 0;

export function dumpBlock(pc: number, text: string): void {
  if (DUMP === undefined || DUMP === '') return;
  writeFileSync(`${DUMP}/block-${pc}-${dumped++}.js`, text);
}

function noSlow(): BlockRun {
  throw new Error('a block without uniform loads has no slow form');
}

/** One instruction on the per-instruction form, in program order (it may fault). */
function singleStep(ins: CInstr, k: number): string {
  const mask = ins.guard >= 0 ? `$GM(I, ${ins.guard}, m, ${ins.guardNeg})` : 'm';
  return `$mk = ${mask};
    $t += $POPC($mk);
    $ST.k = ${k}; $ST.t = $t;
    if ($mk !== 0) $EX[${k}](w, $mk);`;
}

/**
 * The block of `len` instructions of `code` from `p` (each Ctl.None with an exec); a recording
 * logs the block's steps as one run around it (machine/run.ts), so the text logs nothing. Throws when the generated text does not compile (the caller then
 * generates it again without fused segments).
 */
export function generateBlock(code: readonly CInstr[], consts: Constants, p: number, len: number, fuse = true, slow: () => BlockRun = noSlow,
  liveOut?: Uint32Array): BlockRun {
  // lean (liveOut given): stores of registers dead after the block that nothing in it reads back are dropped (deadstores.ts)
  const dse = liveOut !== undefined ? new DeadStores() : undefined;
  const xs: unknown[] = [];
  const uni = new Map<number, UniformSpec>();
  const ex: Exec[] = [];
  const parts: string[] = [];
  const lazy: (() => string)[] = [];
  const ranges: [number, number][] = [];
  let K: unknown = undefined;
  let k = 0;
  while (k < len) {
    const items: Item[] = [];
    let j = k;
    for (; fuse && j < len; j++) {
      const exec = code[p + j]!.exec;
      const mem = memSpecOf(exec);
      if (mem !== undefined && inlineSpace(mem.space)) { items.push({ mem }); continue; }
      const u = uniformSpecOf(exec);
      if (u !== undefined) { items.push({ uni: u }); uni.set(j, u); continue; }
      const b = boundLoopOf(exec);
      // K: the helpers a loop calls (one object per program); a loop that calls none fuses with any
      if (b === undefined || (K !== undefined && b.K !== undefined && b.K !== K)) break;
      if (b.K !== undefined) K = b.K;
      items.push({ alu: b });
    }
    if (j > k) {
      // an ALU loop cannot fault; should a helper throw all the same, the block's report names its loop's first instruction
      const before = lazy.length;
      parts.push(fusedSegment(code, consts, p, k, j, items, xs, ex, lazy, dse));
      if (lazy.length > before) ranges.push([k, j]);
      k = j;
      continue;
    }
    const ins = code[p + k]!;
    ex[k] = ins.exec!;
    dse?.readAll(ins);
    parts.push(singleStep(ins, k));
    k++;
  }
  const text = `
    return function block(w, m) {
      const I = w.i32, U = w.u32, F = w.f32, G = w.f64;
      const $AR = w.mem.global, $SU = w.mem.sharedUser;
      let $t = 0, $mk = 0, $aLo = 1, $aHi = 0;
      ${uniformPrologue(uni)}
      ${parts.join('\n')}
      return $t;
    };`;
  const src = dse !== undefined ? dse.finish(text, liveOut!) : text;
  const splits: (SplitRun | undefined)[] = [];
  const make = <R>(text: string): R => (dumpBlock(p, text), new Function(...PARAMS, text) as Factory<R>)(K, xs, ex, BLOCK_PROGRESS, popc, guardMask, P0, P1, NO_WORDS, NO_BYTES, HOISTED, slow, lz);
  const lz = (n: number): SplitRun => splits[n] ??= makeSplit(n);
  const makeSplit = (n: number): SplitRun => {
    const [from, to] = ranges[n]!;
    const segUni = new Map([...uni].filter(([k]) => k >= from && k < to));
    const wrap = (body: string): string => `
      return function split(w, m, $t) {
        const I = w.i32, U = w.u32, F = w.f32, G = w.f64;
        const $AR = w.mem.global, $SU = w.mem.sharedUser;
        let $mk = 0, $aLo = 1, $aHi = 0;
        ${uniformReads(segUni)}
        ${body}
        return $t;
      };`;
    try {
      return make<SplitRun>(wrap(lazy[n]!()));
    } catch (e) {
      // a fused text that does not compile: the segment's instructions one by one (as Block.generate does for a whole block)
      if (!(e instanceof SyntaxError || e instanceof ReferenceError)) throw e;
      const one: string[] = [];
      for (let k = from; k < to; k++) { ex[k] = code[p + k]!.exec!; one.push(singleStep(code[p + k]!, k)); }
      return make<SplitRun>(wrap(one.join('\n')));
    }
  };
  return make<BlockRun>(src);
}
