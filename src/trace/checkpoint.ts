/**
 * Checkpoints: the complete mutable state of a Machine at a warp-step boundary, and its exact
 * restoration. Memory banks and register files are copy-on-write page sets (pages.ts), so a
 * checkpoint costs only what changed since the previous one.
 *
 * What is state: global memory and the allocator, every resident CTA (shared memory, barrier
 * counters) with its warps (local memory, SIMT stacks, call frames and their register files,
 * the frame pools — reused frames keep stale registers, so they are state too), the scheduler
 * (round, position in it, quantum left, random generator), counters and the length of stdout.
 * Constant and kernel-parameter banks never change after launch and are not saved.
 */
import type { Machine } from '../exec/machine.js';
import type { ChildGrid, ParamBufferLaunch } from '../exec/children.js';
import type { ArenaState, Bank } from '../exec/memory.js';
import type { CFunction } from '../exec/compiled.js';
import { Cta, Frame, Warp, type WarpState } from '../exec/state.js';
import { isZeroPage, restorePages, snapDirty, type Pages } from './pages.js';
import { restoreRegs, snapRegs } from './regpages.js';
import { PAGE_SIZE } from '../exec/memory.js';
import { type Frozen, freeze, frozenCtaIds, thaw } from './frozen.js';


export interface FrameSnap {
  readonly fn: string;
  readonly regs: Pages;
  /** The SIMT stack: depth entries of pc, then of reconvergence pc, then of mask (one array, not three). */
  readonly stack: Int32Array;
  readonly depth: number;
  readonly returned: number;
  readonly localBase: number;
  readonly callPc: number;
}

export interface WarpSnap {
  readonly id: number;
  readonly tidBase: number;
  readonly nlanes: number;
  readonly localStride: number;
  readonly local: Pages;
  readonly pc: number;
  readonly mask: number;
  readonly exited: number;
  readonly state: WarpState;
  readonly barrierId: number;
  readonly carry: Uint8Array;
  readonly sp: number;
  readonly barMask: number;
  readonly barDst: number;
  readonly barRed: Warp['barRed'];
  readonly issued: number;
  readonly spins: number;
  readonly parkedBar: number;
  readonly parkedBarId: number;
  readonly frames: readonly FrameSnap[];
  readonly pool: readonly (readonly [string, readonly FrameSnap[]])[];
}

export interface CtaSnap {
  readonly id: number;
  readonly shared: Pages;
  readonly bars: Int32Array;
  readonly liveThreads: number;
  readonly warps: readonly WarpSnap[];
}

/** The resident CTAs with their warps, and the scheduler's round over them. */
export interface Residents {
  readonly resident: readonly CtaSnap[];
  /** Warps of the current round as (resident index, warp index). */
  readonly round: readonly (readonly [number, number])[];
  readonly cur: readonly [number, number] | undefined;
}

export interface Checkpoint {
  readonly step: number;
  readonly threadInstructions: number;
  readonly stdoutLen: number;
  readonly rng: number;
  readonly nextCta: number;
  /** As objects (the newest checkpoint, which the next one shares with), or frozen (frozen.ts). */
  readonly ctas: Residents | Frozen;
  readonly roundPos: number;
  readonly quantumLeft: number;
  readonly roundQuantum: number;
  readonly spinQuantum: number;
  readonly global: Pages;
  /** Global-memory pages written since the previous checkpoint (watchpoints replay only those intervals). */
  readonly dirtyGlobal: Uint32Array;
  readonly arena: ArenaState;
  /** Child grids launched and not yet run, and described launches (exec/cdp.ts): empty for most kernels. */
  readonly children: readonly (readonly [number, ChildGrid])[];
  readonly paramBuffers: readonly (readonly [number, ParamBufferLaunch])[];
}

const NONE: readonly never[] = [];
/** Shared by snapshots whose arrays are all zero (never written: restore only reads them). */
const ZERO_CARRY = new Uint8Array(32);
const NO_DIRTY = new Uint32Array(0);

function allZero(a: Uint8Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== 0) return false;
  return true;
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether a snapshot's SIMT stack (pcs, reconvergence pcs, masks) is frame f's. */
function sameStack(s: Int32Array, f: Frame): boolean {
  const d = f.depth;
  if (s.length !== 3 * d) return false;
  for (let i = 0; i < d; i++) if (s[i] !== f.spc[i] || s[d + i] !== f.srpc[i] || s[2 * d + i] !== f.smask[i]) return false;
  return true;
}

/** Whether `a` is `b` from index `at` on. */
function sameAt(a: Int32Array, b: Int32Array, at: number): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[at + i]) return false;
  return true;
}

/** Remembers the previous snapshot of each bank/frame so unchanged pages are shared. */
export class Snapshotter {
  private readonly prevBank = new WeakMap<Bank, Pages>();
  /** The previous snapshot of each frame and CTA: what did not change is shared with it. */
  private readonly prevFrame = new WeakMap<Frame, FrameSnap>();
  private readonly prevBars = new WeakMap<Cta, Int32Array>();
  private readonly prevWarp = new WeakMap<Warp, Pick<WarpSnap, 'frames' | 'pool'>>();
  private prevArena: ArenaState | undefined;

  take(m: Machine): Checkpoint {
    const arenaBank = m.arena.bank;
    const dirty: number[] = [];
    for (let i = arenaBank.dirty.indexOf(1); i >= 0; i = arenaBank.dirty.indexOf(1, i + 1)) dirty.push(i);
    const global = this.bank(arenaBank);
    const arena = this.prevArena && this.prevArena.version === m.arena.version ? this.prevArena : m.arena.saveState();
    this.prevArena = arena;
    const locate = (w: Warp): [number, number] => [m.resident.indexOf(w.cta), w.cta.warps.indexOf(w)];
    return {
      step: m.warpSteps,
      threadInstructions: m.threadInstructions,
      stdoutLen: m.stdout.length,
      rng: m.rng,
      nextCta: m.nextCta,
      ctas: { resident: m.resident.map((c) => this.cta(c)), round: m.round.map(locate), cur: m.cur ? locate(m.cur) : undefined },
      roundPos: m.roundPos,
      quantumLeft: m.quantumLeft,
      roundQuantum: m.roundQuantum,
      spinQuantum: m.spinQuantum,
      global,
      dirtyGlobal: dirty.length ? Uint32Array.from(dirty) : NO_DIRTY,
      arena,
      children: m.children.size ? [...m.children] : NONE,
      paramBuffers: m.paramBuffers.size ? [...m.paramBuffers] : NONE,
    };
  }

  private cta(c: Cta): CtaSnap {
    const shared = this.bank(c.shared);
    const parts = [c.barArrived, c.barExpected, c.barPopc, c.barAnd, c.barOr];
    let bars = this.prevBars.get(c);
    if (bars === undefined || !parts.every((a, i) => sameAt(a, bars!, 16 * i))) {
      bars = new Int32Array(80);
      for (let i = 0; i < 5; i++) bars.set(parts[i]!, 16 * i);
      this.prevBars.set(c, bars);
    }
    return { id: c.id, shared, bars, liveThreads: c.liveThreads, warps: c.warps.map((w) => this.warp(w)) };
  }

  private warp(w: Warp): WarpSnap {
    const local = this.bank(w.local);
    return {
      id: w.id, tidBase: w.tidBase, nlanes: w.nlanes, localStride: w.localStride, local,
      pc: w.pc, mask: w.mask, exited: w.exited, state: w.state, barrierId: w.barrierId, carry: allZero(w.carry) ? ZERO_CARRY : w.carry.slice(),
      sp: w.sp, barMask: w.barMask, barDst: w.barDst, barRed: w.barRed, issued: w.issued, spins: w.spins, parkedBar: w.parkedBar, parkedBarId: w.parkedBarId,
      ...this.framesOf(w),
    };
  }

  /** A warp's frames and pools, as the previous snapshot's arrays where every element is the same. */
  private framesOf(w: Warp): Pick<WarpSnap, 'frames' | 'pool'> {
    const frames = w.frames.map((f) => this.frame(f));
    const pool = [...w.pool].map(([fn, fs]) => [fn.name, fs.map((f) => this.frame(f))] as const);
    const prev = this.prevWarp.get(w);
    if (prev === undefined) {
      const snap = { frames, pool };
      this.prevWarp.set(w, snap);
      return snap;
    }
    const sameFrames = sameItems(prev.frames, frames);
    const samePool = prev.pool.length === pool.length && prev.pool.every(([name, fs], i) => name === pool[i]![0] && sameItems(fs, pool[i]![1]));
    const snap = { frames: sameFrames ? prev.frames : frames, pool: samePool ? prev.pool : pool };
    if (!sameFrames || !samePool) this.prevWarp.set(w, snap);
    return snap;
  }

  private bank(b: Bank): Pages {
    const pages = snapDirty(b.u8, b.dirty, this.prevBank.get(b));
    b.clearDirty();
    this.prevBank.set(b, pages);
    return pages;
  }

  private frame(f: Frame): FrameSnap {
    const prev = this.prevFrame.get(f);
    const regs = snapRegs(f.i32, prev?.regs);
    const d = f.depth;
    let stack: Int32Array;
    if (prev !== undefined && sameStack(prev.stack, f)) {
      stack = prev.stack;
      // nothing changed: the previous snapshot itself (a frame waiting at a barrier, or in a pool)
      if (regs === prev.regs && prev.fn === f.fn.name && prev.returned === f.returned && prev.localBase === f.localBase && prev.callPc === f.callPc) return prev;
    } else {
      stack = new Int32Array(3 * d);
      for (let i = 0; i < d; i++) { stack[i] = f.spc[i]!; stack[d + i] = f.srpc[i]!; stack[2 * d + i] = f.smask[i]!; }
    }
    const snap: FrameSnap = {
      fn: f.fn.name, regs, stack,
      depth: d, returned: f.returned, localBase: f.localBase, callPc: f.callPc,
    };
    this.prevFrame.set(f, snap);
    return snap;
  }
}

function residents(c: Checkpoint): Residents {
  return 'resident' in c.ctas ? c.ctas : thaw(c.ctas);
}

/** `c` with its CTAs frozen (frozen.ts): once a newer checkpoint is taken, nothing shares with c's objects. */
export function frozen(c: Checkpoint): Checkpoint {
  return 'resident' in c.ctas ? { ...c, ctas: freeze(c.ctas) } : c;
}

/** Ids of the CTAs resident at checkpoint `c`. */
export function residentIds(c: Checkpoint): number[] {
  return 'resident' in c.ctas ? c.ctas.resident.map((r) => r.id) : frozenCtaIds(c.ctas);
}

/** Put the machine in exactly the state of `c`. */
export function restore(m: Machine, c: Checkpoint, stdout: string): void {
  const r = residents(c);
  m.warpSteps = c.step;
  m.threadInstructions = c.threadInstructions;
  m.stdout = stdout.slice(0, c.stdoutLen);
  m.rng = c.rng;
  m.nextCta = c.nextCta;
  m.finished = false;
  m.fault = undefined;
  m.faultStep = -1;
  restorePages(m.arena.bank.u8, c.global, PAGE_SIZE);
  m.arena.loadState(c.arena);
  m.children.clear();
  for (const [k, v] of c.children) m.children.set(k, v);
  m.paramBuffers.clear();
  for (const [k, v] of c.paramBuffers) m.paramBuffers.set(k, v);
  const fnOf = (name: string): CFunction => {
    const f = m.fn(name);
    if (!f) throw new Error(`checkpoint names unknown function ${name}`);
    return f;
  };
  const frame = (s: FrameSnap): Frame => {
    const f = new Frame(fnOf(s.fn));
    restoreRegs(f.i32, s.regs);
    const d = s.depth;
    f.spc.set(s.stack.subarray(0, d)); f.srpc.set(s.stack.subarray(d, 2 * d)); f.smask.set(s.stack.subarray(2 * d, 3 * d));
    f.depth = s.depth; f.returned = s.returned; f.localBase = s.localBase; f.callPc = s.callPc;
    return f;
  };
  m.resident = r.resident.map((cs) => {
    const cta = m.makeCtaShell(cs.id);
    restorePages(cta.shared.u8, cs.shared, PAGE_SIZE);
    cta.shared.markAllWritten(); // no dirty marks: a reuse of this CTA must zero every page
    cta.barArrived.set(cs.bars.subarray(0, 16)); cta.barExpected.set(cs.bars.subarray(16, 32));
    cta.barPopc.set(cs.bars.subarray(32, 48)); cta.barAnd.set(cs.bars.subarray(48, 64)); cta.barOr.set(cs.bars.subarray(64, 80));
    cta.liveThreads = cs.liveThreads;
    for (const ws of cs.warps) {
      const w = new Warp(ws.id, cta, ws.tidBase, ws.nlanes, m.mem, ws.localStride);
      restorePages(w.local.u8, ws.local, PAGE_SIZE);
      w.local.markAllWritten();
      w.pc = ws.pc; w.mask = ws.mask; w.exited = ws.exited; w.state = ws.state; w.barrierId = ws.barrierId;
      w.carry.set(ws.carry); w.sp = ws.sp; w.barMask = ws.barMask; w.barDst = ws.barDst; w.barRed = ws.barRed;
      w.issued = ws.issued; w.spins = ws.spins; w.parkedBar = ws.parkedBar; w.parkedBarId = ws.parkedBarId;
      for (const fs of ws.frames) w.frames.push(frame(fs));
      if (w.frames.length) w.setFrame(w.frames[w.frames.length - 1]!);
      for (const [name, fs] of ws.pool) w.pool.set(fnOf(name), fs.map(frame));
      cta.warps.push(w);
    }
    return cta;
  });
  const at = (r: readonly [number, number]): Warp => m.resident[r[0]]!.warps[r[1]]!;
  m.round = r.round.map(at);
  m.roundPos = c.roundPos;
  m.cur = r.cur ? at(r.cur) : undefined;
  m.quantumLeft = c.quantumLeft;
  m.roundQuantum = c.roundQuantum;
  m.spinQuantum = c.spinQuantum;
}

/** Distinct bytes held by a list of checkpoints (shared pages, page sets and frame snapshots counted once). */
export function checkpointBytes(cps: readonly Checkpoint[]): number {
  const seen = new Set<Uint8Array>();
  const seenSets = new Set<Pages>();
  const seenFrames = new Set<FrameSnap>();
  let n = 0;
  const arenas = new Set<ArenaState>();
  const frame = (f: FrameSnap, sets: Pages[], size: number): void => {
    if (seenFrames.has(f)) return;
    seenFrames.add(f);
    sets.push(f.regs);
    n += size;
  };
  for (const c of cps) {
    const sets: Pages[] = [c.global];
    if (!('resident' in c.ctas)) {
      // frozen: its buffer, its references, and the page sets among them (shared with other checkpoints)
      const f = c.ctas;
      n += f.nums.byteLength + f.regs.byteLength + f.refs.length * 8 + 64;
      for (const x of f.refs) if (Array.isArray(x)) sets.push(x as Pages); else if (ArrayBuffer.isView(x)) n += x.byteLength + 64;
    } else for (const cs of c.ctas.resident) {
      sets.push(cs.shared);
      n += 80 * 4 + 64;
      for (const ws of cs.warps) {
        sets.push(ws.local);
        n += 128;
        for (const f of ws.frames) frame(f, sets, f.depth * 12 + 64);
        for (const [, fs] of ws.pool) for (const f of fs) frame(f, sets, 64);
      }
    }
    n += uniqueSets(sets, seen, seenSets);
    n += c.dirtyGlobal.byteLength;
    if (!arenas.has(c.arena)) { arenas.add(c.arena); n += c.arena.granules.byteLength + c.arena.allocs.length * 64; }
  }
  return n;
}

function uniqueSets(sets: Pages[], seen: Set<Uint8Array>, seenSets: Set<Pages>): number {
  let n = 0;
  for (const s of sets) {
    if (seenSets.has(s)) continue;
    seenSets.add(s);
    // the page reference array itself
    n += s.length * 8;
    for (const p of s) {
      if (isZeroPage(p) || seen.has(p)) continue;
      seen.add(p);
      n += p.byteLength;
    }
  }
  return n;
}
