/**
 * Checkpoints: the complete mutable state of a Machine at a warp-step boundary, and its exact
 * restoration. Memory banks are copy-on-write page sets (pages.ts), so a checkpoint costs only the
 * memory that changed since the previous one; CTAs, warps and frames (register files encoded,
 * regpages.ts) are frozen into one buffer per checkpoint (frozen.ts).
 *
 * What is state: global memory and the allocator, every resident CTA (shared memory, barrier
 * counters) with its warps (local memory, SIMT stacks, call frames and their register files,
 * the frame pools — reused frames keep stale registers, so they are state too), the scheduler
 * (round, position in it, quantum left, random generator), counters and the length of stdout.
 * Constant and kernel-parameter banks never change after launch and are not saved.
 */
import type { Machine } from '../exec/machine.js';
import { type ArenaState, Bank, type GlobalArena } from '../exec/memory.js';
import { coordsOf } from '../exec/launch.js';
import type { CFunction } from '../exec/compiled.js';
import { Cta, Frame, INITIAL_LOCAL_STRIDE, Warp } from '../exec/state.js';
import { snapDirty, ZERO_PAGE, type Pages } from './pages.js';
import { setPageSet } from '../exec/bank-pages.js';
import { decodeRegs } from './regpages.js';
import { type FrameSnap, type Frozen, freeze, frozenCtaIds, thaw } from './frozen.js';
import type { ChildGrid, ParamBufferLaunch } from '../exec/children.js';

export interface Checkpoint {
  /**
   * Bytes this checkpoint added to the trace: its object and frozen CTAs, and the memory pages,
   * page sets, barrier arrays and allocator state it does not share with an earlier checkpoint.
   */
  readonly bytes: number;
  readonly step: number;
  readonly threadInstructions: number;
  readonly stdoutLen: number;
  readonly rng: number;
  readonly nextCta: number;
  /** The resident CTAs, their warps and the scheduler's round, frozen (frozen.ts). */
  readonly ctas: Frozen;
  readonly roundPos: number;
  readonly quantumLeft: number;
  readonly roundQuantum: number;
  readonly spinQuantum: number;
  readonly global: Pages;
  /** Global memory's banks past the first (arena.ts), by bank number: a big program's. */
  readonly far?: readonly (readonly [number, Pages])[];
  /** Global-memory pages written since the previous checkpoint (watchpoints replay only those intervals). */
  readonly dirtyGlobal: Uint32Array;
  readonly arena: ArenaState;
  /** Child grids launched and not yet run, and described launches (exec/cdp.ts): empty for most kernels. */
  readonly children: readonly (readonly [number, ChildGrid])[];
  readonly paramBuffers: readonly (readonly [number, ParamBufferLaunch])[];
}

const NONE: readonly never[] = [];
/**
 * The page set each global bank held when last snapshotted or restored: the bank equals it on
 * every page not flagged dirty since, so a restore copies only the pages that differ.
 */
const inBank = new WeakMap<Bank, Pages>();
/**
 * The allocator state each arena was last saved to or loaded from: while its version is still
 * that state's, the arena equals it (every change to the allocator bumps the version), and a
 * restore need not load it again (its granule map is 128 KiB for the 8 MiB arena of a program's
 * launch, copied on every goto that restores otherwise).
 */
const inArena = new WeakMap<GlobalArena, ArenaState>();
const NO_DIRTY = new Uint32Array(0);
/** A checkpoint object and its frozen CTAs' objects, besides their buffers (an estimate). */
const CHECKPOINT_BYTES = 256;

/** Whether `a` is `b` from index `at` on. */
function sameAt(a: Int32Array, b: Int32Array, at: number): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[at + i]) return false;
  return true;
}

/** Remembers the previous snapshot of each bank and CTA barrier set so that unchanged ones are shared. */
export class Snapshotter {
  private readonly prevBank = new WeakMap<Bank, Pages>();
  private readonly prevBars = new WeakMap<Cta, Int32Array>();
  private prevArena: ArenaState | undefined;
  private readonly shared = { pages: (b: Bank): Pages => this.bank(b), bars: (c: Cta): Int32Array => this.bars(c) };

  /** What the snapshot being taken adds (see Checkpoint.bytes). */
  private readonly tally = { bytes: 0 };

  take(m: Machine): Checkpoint {
    this.tally.bytes = 0;
    const arenaBank = m.arena.bank;
    const dirty: number[] = [];
    for (let i = arenaBank.dirty.indexOf(1); i >= 0; i = arenaBank.dirty.indexOf(1, i + 1)) dirty.push(i);
    const global = this.bank(arenaBank);
    inBank.set(arenaBank, global);
    const far = m.arena.far.length === 0 ? undefined : this.farBanks(m);
    let arena = this.prevArena;
    if (arena === undefined || arena.version !== m.arena.version) {
      arena = m.arena.saveState();
      this.tally.bytes += arena.granules.byteLength + arena.allocs.length * 64;
    }
    this.prevArena = arena;
    inArena.set(m.arena, arena);
    const ctas = freeze(m, this.shared);
    const dirtyGlobal = dirty.length ? Uint32Array.from(dirty) : NO_DIRTY;
    return {
      bytes: this.tally.bytes + CHECKPOINT_BYTES + ctas.nums.byteLength + ctas.bytes.byteLength + ctas.refs.length * 8 + dirtyGlobal.byteLength,
      step: m.warpSteps,
      threadInstructions: m.threadInstructions,
      stdoutLen: m.stdout.length,
      rng: m.rng,
      nextCta: m.nextCta,
      ctas,
      roundPos: m.roundPos,
      quantumLeft: m.quantumLeft,
      roundQuantum: m.roundQuantum,
      spinQuantum: m.spinQuantum,
      global,
      ...(far ? { far } : {}),
      dirtyGlobal,
      arena,
      children: m.children.size ? [...m.children] : NONE,
      paramBuffers: m.paramBuffers.size ? [...m.paramBuffers] : NONE,
    };
  }

  /** The pages of global memory's banks past the first (their dirty ones copied, as bank 0's). */
  private farBanks(m: Machine): (readonly [number, Pages])[] {
    const out: (readonly [number, Pages])[] = [];
    m.arena.far.forEach((b, k) => {
      if (!b) return;
      const pages = this.bank(b);
      inBank.set(b, pages);
      out.push([k, pages]);
    });
    return out;
  }

  private bars(c: Cta): Int32Array {
    const parts = [c.barArrived, c.barExpected, c.barPopc, c.barAnd, c.barOr];
    let bars = this.prevBars.get(c);
    if (bars === undefined || !parts.every((a, i) => sameAt(a, bars!, 16 * i))) {
      bars = new Int32Array(80);
      for (let i = 0; i < 5; i++) bars.set(parts[i]!, 16 * i);
      this.prevBars.set(c, bars);
      this.tally.bytes += bars.byteLength + 64;
    }
    return bars;
  }

  private bank(b: Bank): Pages {
    const pages = snapDirty(b.u8, b.dirty, this.prevBank.get(b), this.tally);
    b.clearDirty();
    this.prevBank.set(b, pages);
    return pages;
  }
}

/** Ids of the CTAs resident at checkpoint `c`. */
export function residentIds(c: Checkpoint): number[] {
  return frozenCtaIds(c.ctas);
}

/**
 * The machine's resident CTAs and its pooled finished ones (machine/frames.ts), taken out of the
 * pool, for a restore to reuse with their warps, frames and banks (a goto restores often, and new
 * ones were a megabyte of garbage or more each time, kept alive through the re-execution that
 * follows and so freed late; after a run to its end, as when a launch has just been recorded,
 * every CTA is in the pool); none while a probe that may know CTAs by identity watches (as for
 * CTA pooling).
 */
function reusable(m: Machine): Cta[] {
  const p = m.mem.probe;
  if (p !== undefined && p.ctasById !== true) return [];
  const out = m.resident.concat(m.ctaPool);
  m.ctaPool.length = 0;
  return out;
}

/** A frame of `fn` that warp `w` set aside (Warp.reset), taken out; undefined when there is none. */
function spareFrame(w: Warp, fn: CFunction): Frame | undefined {
  const i = w.spare.findIndex((f) => f.fn === fn);
  if (i < 0) return undefined;
  const f = w.spare[i]!;
  w.spare[i] = w.spare[w.spare.length - 1]!;
  w.spare.pop();
  return f;
}

/**
 * Bank `b` (a CTA's shared or a warp's local memory) set to `pages`, writing only the pages that
 * differ: a page zero in both is skipped (setPageSet), where writing every page was 64 KiB of
 * memset a warp per restore (its 32 KiB of local memory zeroed, then written), mostly never used.
 * Its flags then say which pages may be non-zero (written), as a reuse of the bank zeroes them.
 */
function restoreBank(b: Bank, pages: Pages): void {
  setPageSet(b, pages, ZERO_PAGE);
  b.clearDirty();
}

/** Put the machine in exactly the state of `c`. */
export function restore(m: Machine, c: Checkpoint, stdout: string): void {
  const r = thaw(c.ctas);
  m.warpSteps = c.step;
  m.threadInstructions = c.threadInstructions;
  m.stdout = stdout.slice(0, c.stdoutLen);
  m.rng = c.rng;
  m.nextCta = c.nextCta;
  m.finished = false;
  m.fault = undefined;
  m.faultStep = -1;
  const bank = m.arena.bank;
  setPageSet(bank, c.global, ZERO_PAGE, inBank.get(bank));
  inBank.set(bank, c.global);
  for (const [k, pages] of c.far ?? []) {
    const b = m.arena.far[k];
    if (!b) continue; // (banks are made between launches: every one a checkpoint names exists)
    setPageSet(b, pages, ZERO_PAGE, inBank.get(b));
    inBank.set(b, pages);
  }
  if (inArena.get(m.arena) !== c.arena || m.arena.version !== c.arena.version) {
    m.arena.loadState(c.arena);
    inArena.set(m.arena, c.arena);
  }
  m.children.clear();
  for (const [k, v] of c.children) m.children.set(k, v);
  m.paramBuffers.clear();
  for (const [k, v] of c.paramBuffers) m.paramBuffers.set(k, v);
  const fnOf = (name: string): CFunction => {
    const f = m.fn(name);
    if (!f) throw new Error(`checkpoint names unknown function ${name}`);
    return f;
  };
  const frame = (s: FrameSnap, w: Warp | undefined): Frame => {
    const fn = fnOf(s.fn);
    const f = (w !== undefined ? spareFrame(w, fn) : undefined) ?? new Frame(fn);
    decodeRegs(f.i32, s.regs); // every slot: a reused frame keeps nothing of its own
    const d = s.depth;
    f.spc.set(s.stack.subarray(0, d)); f.srpc.set(s.stack.subarray(d, 2 * d)); f.smask.set(s.stack.subarray(2 * d, 3 * d));
    f.depth = s.depth; f.returned = s.returned; f.localBase = s.localBase; f.callPc = s.callPc;
    return f;
  };
  // the CTAs being left are reused (see reusable)
  const spare = reusable(m);
  m.resident = r.resident.map((cs) => {
    const old = spare.pop();
    const cta = old ?? m.makeCtaShell(cs.id);
    const oldWarps = old !== undefined ? cta.warps.splice(0) : [];
    if (old !== undefined) { cta.id = cs.id; cta.ctaid = coordsOf(cs.id, m.launch.grid); }
    restoreBank(cta.shared, cs.shared);
    cta.barArrived.set(cs.bars.subarray(0, 16)); cta.barExpected.set(cs.bars.subarray(16, 32));
    cta.barPopc.set(cs.bars.subarray(32, 48)); cta.barAnd.set(cs.bars.subarray(48, 64)); cta.barOr.set(cs.bars.subarray(64, 80));
    cta.liveThreads = cs.liveThreads;
    cs.warps.forEach((ws, i) => {
      const prev = oldWarps[i];
      let w: Warp;
      let reused = false;
      if (prev !== undefined && prev.tidBase === ws.tidBase && prev.nlanes === ws.nlanes && ws.frames.length > 0) {
        w = prev;
        reused = true;
        w.reset(ws.id); // as the constructor leaves it, its frames kept aside in w.spare
        w.pool.clear();
        if (w.localStride !== ws.localStride) { w.local = new Bank(ws.localStride * 32); w.localStride = ws.localStride; }
      } else {
        // made at the initial stride and grown to the saved one, so that a reset (a pooled warp
        // taking a new CTA) goes back to the initial stride as the original warp did
        w = new Warp(ws.id, cta, ws.tidBase, ws.nlanes, m.mem, INITIAL_LOCAL_STRIDE);
        if (ws.localStride !== INITIAL_LOCAL_STRIDE) { w.local = new Bank(ws.localStride * 32); w.localStride = ws.localStride; }
      }
      restoreBank(w.local, ws.local);
      w.pc = ws.pc; w.mask = ws.mask; w.exited = ws.exited; w.state = ws.state; w.barrierId = ws.barrierId;
      w.carry.set(ws.carry); w.sp = ws.sp; w.barMask = ws.barMask; w.barDst = ws.barDst; w.barRed = ws.barRed;
      w.issued = ws.issued; w.spins = ws.spins; w.parkedBar = ws.parkedBar; w.parkedBarId = ws.parkedBarId;
      const from = reused ? w : undefined;
      for (const fs of ws.frames) w.frames.push(frame(fs, from));
      if (w.frames.length) w.setFrame(w.frames[w.frames.length - 1]!);
      for (const [name, fs] of ws.pool) w.pool.set(fnOf(name), fs.map((f) => frame(f, from)));
      cta.warps.push(w);
    });
    return cta;
  });
  // the ones left over serve makeCta, which makes a reused CTA equal to a new one
  for (const c of spare) m.ctaPool.push(c);
  const at = (r: readonly [number, number]): Warp => m.resident[r[0]]!.warps[r[1]]!;
  m.round = r.round.map(at);
  m.roundPos = c.roundPos;
  m.cur = r.cur ? at(r.cur) : undefined;
  m.quantumLeft = c.quantumLeft;
  m.roundQuantum = c.roundQuantum;
  m.spinQuantum = c.spinQuantum;
}

/** Bytes held by the checkpoints of a trace (each counts what it does not share with an earlier one). */
export function checkpointBytes(cps: readonly Checkpoint[]): number {
  let n = 0;
  for (const c of cps) n += c.bytes;
  return n;
}
