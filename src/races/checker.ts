/**
 * The race and synchronisation checker: a `Probe` on the machine that keeps shadow memory for
 * shared and global memory and reports data races (RAW/WAR/WAW), benign same-value write races,
 * and barrier divergence.
 *
 * Ordering model (see sync.ts for the clocks):
 *  - within a CTA: barriers (bar.sync / barrier.sync / bar.red with ids and thread counts,
 *    bar.arrive for producers), __syncwarp for lanes of one warp, and release/acquire through
 *    atomics and fences;
 *  - between CTAs: only release/acquire (st.release / atom.release, or a gpu-scope fence before
 *    an atomic or strong store; ld.acquire / atom.acquire, a fenced thread's atomic, or a strong
 *    read followed by a fence), tracked per CTA;
 *  - two atomic (or .relaxed/.acquire/.release) accesses never race, unless one has .cta scope
 *    and they come from different CTAs.
 *
 * Raw results name threads by global id and instructions by global pc; report.ts turns them
 * into the JSON contract.
 *
 * Just over 600 lines on purpose: it is the one Probe class whose per-access path (accessWarp,
 * run for every lane of every shared/global access of a checked run) reads and updates the shadow
 * words, the clocks and the findings together; the clocks (sync.ts), shadow memory (shadow.ts),
 * ordering (ordering.ts), async copies (async.ts) and reporting (report.ts) are split out already.
 */
import { lowestLane } from '../exec/int64.js';
import type { Machine } from '../exec/machine.js';
import { type Bank, GLOBAL_HI, Space } from '../exec/memory.js';
import { Access, AsyncEvent, type Probe } from '../exec/probe.js';
import { AsyncCopies } from './async.js';
import type { Cta, MemoryContext, Warp } from '../exec/state.js';
import * as I from './instr.js';
import { InstrTable } from './instr.js';
import * as S from './shadow.js';
import type { Shadow } from './shadow.js';
import { ReleaseAcquire } from './ordering.js';
import { CtaSync } from './sync.js';

export const RAW = 0;
export const WAR = 1;
export const WAW = 2;
export const KIND_NAMES = ['RAW', 'WAR', 'WAW'] as const;

/** Access classes as stored for reports. */
export const OP_READ = 0;
export const OP_WRITE = 1;
export const OP_ATOMIC = 2;

export interface RawAccess {
  /** CTA linear id * threads per CTA + linear thread index. */
  readonly gtid: number;
  readonly step: number;
  readonly gpc: number;
  readonly op: number;
}

export interface RawRace {
  readonly kind: number;
  /** 0 global, 1 shared. */
  readonly space: number;
  /** Byte offset in the space (arena offset for global). */
  readonly offset: number;
  readonly intraWarp: boolean;
  readonly a: RawAccess;
  readonly b: RawAccess;
  count: number;
}

export interface RawBarrierError {
  readonly kind: 'divergence' | 'deadlock';
  readonly ctaId: number;
  readonly gpc: number;
  readonly message: string;
}

export interface CheckerOptions {
  /** Distinct races kept (further ones are only counted). */
  maxRaces: number;
}

const DEFAULT_OPTIONS: CheckerOptions = { maxRaces: 1000 };

/** Bytes [lo, hi) of a word as a 4-bit mask. */
function byteMask(lo: number, hi: number): number {
  return ((1 << hi) - 1) & ~((1 << lo) - 1);
}

/** A 4-bit byte mask as a 32-bit bit mask. */
function bitMask(m: number): number {
  return ((m & 1 ? 0xff : 0) | (m & 2 ? 0xff00 : 0) | (m & 4 ? 0xff0000 : 0) | (m & 8 ? 0xff000000 : 0)) >>> 0;
}

/** First byte of a byte mask. */
const lowestByte = lowestLane;

const MAX_PENDING = 16;

/** `access` passes its one lane's index to `accessWarp` here. */
const ONE = new Uint32Array(32);

// Module-local copies of the layout and flag constants: V8 folds module-local constants into
// the hot path but loads imported bindings on every use (measured: a quarter of the per-access cost).
const CHUNK_SHIFT = S.CHUNK_SHIFT, CHUNK_BYTE_SHIFT = S.CHUNK_SHIFT + 2;
const REC = S.REC, REC2 = S.REC2, STEP = S.STEP, PCM = S.PCM, PC_SHIFT = S.PC_SHIFT;
const M_BYTES = S.M_BYTES, M_ATOMIC = S.M_ATOMIC, M_CTA_SCOPE = S.M_CTA_SCOPE, M_LDST = S.M_LDST, M_CLASS = M_ATOMIC | M_CTA_SCOPE | M_LDST;
const M_HAS_R2 = S.M_HAS_R2;
const F_STRONG = I.F_STRONG, F_SCOPE_CTA = I.F_SCOPE_CTA, F_FENCE_WIDE = I.F_FENCE_WIDE, F_FENCE_CTA = I.F_FENCE_CTA, F_NOLOC = I.F_NOLOC, F_LDST = I.F_LDST;

export class RaceChecker implements Probe {
  readonly races = new Map<number, RawRace>();
  readonly benign = new Map<number, RawRace>();
  readonly barrierErrors: RawBarrierError[] = [];
  truncated = 0;
  readonly instr: InstrTable;

  private readonly mem: MemoryContext;
  private readonly nthreads: number;
  private readonly nctas: number;
  private readonly flags: Uint8Array;
  private readonly global: Shadow;
  private readonly ra: ReleaseAcquire;
  /** Per CTA object, the state of the CTA it holds now (the machine reuses finished CTAs: see ctasById). */
  private readonly syncs = new WeakMap<Cta, CtaSync>();
  private lastSync: CtaSync | undefined = undefined;
  /** The checker knows CTAs by id (CtaSync.id), so the machine may pool finished ones while it watches. */
  readonly ctasById = true;
  /** Only global and shared memory are checked. */
  readonly spaces = (1 << Space.Global) | (1 << Space.Shared);
  private readonly errorKeys = new Set<string>();
  private readonly opts: CheckerOptions;
  /** First arena offset of the device heap, and the allocation last seen per heap granule. */
  private readonly heapStart: number;
  private readonly heapGran: Int32Array;

  /** What the last access computed for its step (shared by the lanes of one warp instruction). */
  private kStep = -1;
  private kCs: CtaSync | undefined = undefined;
  private kGpc = 0;
  private kFl = 0;
  private kAsync = 0;
  /** cp.async copies not yet completed by a wait (async.ts). */
  private readonly inFlight = new AsyncCopies();

  // pending same-value checks for write-write conflicts (resolved once the data has moved)
  private npend = 0;
  private readonly pendWord = new Int32Array(MAX_PENDING);
  private readonly pendOld = new Uint32Array(MAX_PENDING);
  private readonly pendMask = new Int32Array(MAX_PENDING);
  private readonly pendBank: (Bank | undefined)[] = new Array<Bank | undefined>(MAX_PENDING).fill(undefined);
  private readonly pendSpace = new Int32Array(MAX_PENDING);
  private readonly pendA = new Float64Array(MAX_PENDING * 4);
  private readonly pendB = new Float64Array(MAX_PENDING * 4);
  private readonly pendIntra = new Uint8Array(MAX_PENDING);

  constructor(readonly machine: Machine, opts: Partial<CheckerOptions> = {}) {
    this.opts = { ...DEFAULT_OPTIONS, ...opts };
    this.mem = machine.mem;
    const [bx, by, bz] = machine.launch.block;
    const [gx, gy, gz] = machine.launch.grid;
    this.nthreads = bx * by * bz;
    this.nctas = gx * gy * gz;
    if (this.nthreads * this.nctas >= 0x7fffffff) throw new Error('launch too large for the race checker (2^31 threads or more)');
    if (machine.instructionCount >= S.MAX_GPC) throw new Error('module too large for the race checker (2^23 instructions or more)');
    this.instr = new InstrTable(machine);
    this.ra = new ReleaseAcquire(this.nthreads, this.nctas);
    this.flags = this.instr.flags;
    const arena = machine.arena;
    this.global = new S.Shadow(arena.bank.size);
    let top = 0;
    for (const a of arena.allocs) if (a.kind !== 'heap') top = Math.max(top, a.base + a.size);
    this.heapStart = Math.ceil(top / 256) * 256 + 256;
    this.heapGran = new Int32Array(Math.floor(Math.max(0, arena.bank.size - this.heapStart) / 256) + 1);
  }

  /** Install on the machine (before `run()`); `detach()` removes it. */
  attach(): void {
    this.mem.probe = this;
  }

  detach(): void {
    this.flushPending();
    if (this.mem.probe === this) this.mem.probe = undefined;
  }

  /** After the run: resolve pending checks, turn a barrier deadlock into a barrier error, free the shadow. */
  finish(): void {
    this.detach();
    this.global.release();
    if (this.partial.length !== 0) this.judgePartial(undefined, -1);
    const f = this.machine.fault;
    if (f && f.kind === 'deadlock') {
      const cta = f.block ? f.block[0] + this.machine.launch.grid[0] * (f.block[1] + this.machine.launch.grid[1] * f.block[2]) : 0;
      const gbase = (fn: string): number => this.machine.globalBase.get(fn) ?? 0;
      let gpc = gbase(f.function) + f.pc;
      // a barrier inside a header wrapper (__syncthreads_count in -G builds): name the user's call
      for (const c of f.callers) {
        if ((this.flags[gpc]! & F_NOLOC) === 0) break;
        gpc = gbase(c.function) + c.pc;
      }
      this.addError('deadlock', cta, gpc, f.message);
    }
  }

  /** The synchronisation state of the CTA `cta` holds now. */
  private syncOf(cta: Cta): CtaSync {
    const last = this.lastSync;
    return last !== undefined && last.cta === cta && last.id === cta.id ? last : this.syncFor(cta);
  }

  private syncFor(cta: Cta): CtaSync {
    let s = this.syncs.get(cta);
    // a CTA object reused for a later CTA (the earlier one finished) starts afresh
    if (s === undefined || s.id !== cta.id) {
      s = new CtaSync(cta, this.nthreads, this.mem.sharedSize);
      this.syncs.set(cta, s);
    }
    this.lastSync = s;
    return s;
  }

  /** Global pc of the instruction `w` is executing (the machine keeps w.pc current for probes). */
  private currentGpc(w: Warp): number {
    return w.frame.fn.gbase + w.pc;
  }

  /** The nearest call site with a user-source location (see F_NOLOC), or `gpc` itself. */
  private userSite(w: Warp, gpc: number): number {
    const frames = w.frames;
    for (let i = frames.length - 2; i >= 0; i--) {
      const site = frames[i]!.fn.gbase + frames[i + 1]!.callPc;
      if ((this.flags[site]! & F_NOLOC) === 0) return site;
    }
    return gpc;
  }

  /** Global pc to report for the instruction executing in `w`. */
  private reportGpc(w: Warp): number {
    const gpc = this.currentGpc(w);
    return (this.flags[gpc]! & F_NOLOC) !== 0 ? this.userSite(w, gpc) : gpc;
  }

  // ---- memory accesses --------------------------------------------------------------------------

  access(w: Warp, space: Space, bank: Bank, idx: number, size: number, lane: number, acc: Access, _address: number): void {
    if (space !== Space.Global && space !== Space.Shared) return;
    ONE[lane] = idx;
    this.accessWarp(w, space, bank, ONE, 1 << lane, size, acc);
  }

  /**
   * The accesses of lanes `mask` of one warp instruction, in lane order (`access` passes one
   * lane). Plain stores stop early where a same-value check needs the data of the lanes before
   * (see `pend`): after a lane that left a check pending, and before a lane writing a word an
   * earlier lane of this call wrote; the caller moves the data of the lanes taken and calls again.
   */
  accessWarp(w: Warp, space: Space, bank: Bank, idx: Uint32Array, mask: number, size: number, acc: Access): number {
    if (this.npend !== 0) this.flushPending();
    const step = this.mem.step;
    let cs: CtaSync;
    let gpc: number;
    let fl: number;
    if (step === this.kStep) {
      // the same warp instruction again (a step is one instruction of one warp)
      cs = this.kCs!; gpc = this.kGpc; fl = this.kFl;
    } else {
      cs = this.syncOf(w.cta);
      gpc = this.currentGpc(w);
      fl = this.flags[gpc]!;
      this.kAsync = this.instr.asyncCopy[gpc]!;
      if ((fl & F_NOLOC) !== 0) gpc = this.userSite(w, gpc);
      this.kStep = step; this.kCs = cs; this.kGpc = gpc; this.kFl = fl;
    }
    const ctaLo = cs.id * this.nthreads + 1;
    const ctaHi = ctaLo + this.nthreads;
    const fullStep = cs.fullStep;
    const sp = space === Space.Global ? 0 : 1;
    const shadow = sp === 0 ? this.global : cs.shared;
    const writes = shadow.writes, reads = shadow.reads;
    const atomic = acc === Access.Atomic || (fl & F_STRONG) !== 0;
    const write = acc !== Access.Read;
    const stores = write && !atomic;
    const cls = (atomic ? M_ATOMIC : 0) | ((fl & F_SCOPE_CTA) !== 0 ? M_CTA_SCOPE : 0) | ((fl & F_LDST) !== 0 ? M_LDST : 0);
    const pcCls = gpc * (1 << PC_SHIFT) + cls;
    const first = 31 - Math.clz32(mask & -mask);
    const top = 31 - Math.clz32(mask);
    const touched = shadow.touched;
    const heapStart = this.heapStart;
    const issue = this.kAsync !== 0 && write && sp === 1;
    // atomics that only note their strong reads (ReleaseAcquire.quietReads): nothing in the loop
    // releases a location or fences, so this holds for every lane of the call
    const quiet = atomic ? this.ra.quietReads(cs, fl) : null;
    const noteRead = acc !== Access.Write;
    // the chunk last found prepared (lanes of one instruction mostly share it)
    let chunk = -1;
    // the highest word an earlier lane of this call wrote: a store to a word above it cannot be
    // one an earlier lane of this call wrote, so it needs no `writtenAt` look-up (a word written by
    // an earlier call for this instruction already holds that lane's data: stopping there or not
    // leaves the same pending check, see accessWarp's doc)
    let hiWord = -1;
    for (let lane = first; lane <= top; lane++) {
      if (((mask >>> lane) & 1) === 0) continue;
      const idx0 = idx[lane]!;
      const t = w.tidBase + lane;
      const me = ctaLo + t;
      if (sp === 0) {
        const c = idx0 >>> CHUNK_BYTE_SHIFT;
        if (c !== chunk) {
          if (touched[c] === 0) shadow.touch(c);
          chunk = c;
        }
        if (idx0 >= heapStart) this.heapCheck(idx0, size);
      }
      const last = (idx0 + size - 1) >>> 2;
      if (stores) {
        if ((idx0 >>> 2) <= hiWord && this.writtenAt(writes, idx0, size, step)) return mask & ((1 << lane) - 1);
        if (last > hiWord) hiWord = last;
      }
      // accesses are naturally aligned: a sub-word access stays in one word, larger ones cover whole words
      const bytes = size >= 4 ? M_BYTES : byteMask(idx0 & 3, (idx0 & 3) + size);
      if (sp === 1 && this.inFlight.size !== 0) this.asyncConflicts(cs, t, me, idx0 >>> 2, last, bytes, write, atomic, step, gpc);
      if (issue) {
        for (let word = idx0 >>> 2; word <= last; word++) this.inFlight.issue(me, cs.id, word, bytes, step, gpc, shadow);
      }
      for (let word = idx0 >>> 2; word <= last; word++) {
        const b = word * REC;
        // conflict with the last write
        const wt = writes[b]!;
        // (fast path: a thread of this CTA before its last full barrier)
        if (wt !== 0 && wt !== me && !(wt >= ctaLo && wt < ctaHi && fullStep > (writes[b + STEP]! >>> 0))) {
          const wm = writes[b + PCM]!;
          if ((wm & bytes) !== 0 && !(atomic && (wm & M_ATOMIC) !== 0 && this.atomicPair(wt, me, wm | cls, wm & cls))) {
            this.checkWrite(cs, t, me, sp, bank, word, bytes, writes, b, write, atomic, step, gpc);
          }
        }
        const r1 = reads[b]!;
        if (write) {
          // conflicts with the reads since that write
          writes[b] = me; writes[b + STEP] = step; writes[b + PCM] = pcCls | bytes;
          if (r1 !== 0) {
            const m1 = reads[b + PCM]!;
            if (r1 !== me && (m1 & bytes) !== 0 && !(r1 >= ctaLo && r1 < ctaHi && fullStep > (reads[b + STEP]! >>> 0))) {
              this.checkRead(cs, t, me, sp, word, bytes, reads, b, atomic, cls, step, gpc);
            }
            // reads entirely covered by this write are ordered before any later access that is ordered after it
            let keep2 = false;
            if ((m1 & M_HAS_R2) !== 0) {
              const second = shadow.second;
              const b2 = word * REC2;
              const r2 = second[b2]!;
              if (r2 !== 0 && r2 !== me && (second[b2 + PCM]! & bytes) !== 0) this.checkRead(cs, t, me, sp, word, bytes, second, b2, atomic, cls, step, gpc);
              keep2 = r2 !== 0 && (second[b2 + PCM]! & M_BYTES & ~bytes) !== 0;
              if (!keep2) second[b2] = 0;
            }
            if ((m1 & M_BYTES & ~bytes) !== 0) {
              if ((m1 & M_HAS_R2) !== 0 && !keep2) reads[b + PCM] = m1 & ~M_HAS_R2;
            } else if (keep2) {
              // the first reader is covered but the second is not: it becomes the first
              const second = shadow.second;
              const b2 = word * REC2;
              reads[b] = second[b2]!; reads[b + STEP] = second[b2 + STEP]!; reads[b + PCM] = second[b2 + PCM]! & ~M_HAS_R2;
              second[b2] = 0;
            } else reads[b] = 0;
          }
        } else if (r1 === me && (reads[b + PCM]! & M_CLASS) === cls) {
          reads[b + STEP] = step; reads[b + PCM] = pcCls | bytes | (reads[b + PCM]! & (M_BYTES | M_HAS_R2));
        } else if (r1 !== 0) {
          // a second reader: the first moves to the second-reader record
          const second = shadow.second;
          const b2 = word * REC2;
          second[b2] = r1; second[b2 + STEP] = reads[b + STEP]!; second[b2 + PCM] = reads[b + PCM]! & ~M_HAS_R2;
          shadow.touched2[word >>> CHUNK_SHIFT] = 1;
          reads[b] = me; reads[b + STEP] = step; reads[b + PCM] = pcCls | bytes | M_HAS_R2;
        } else {
          reads[b] = me; reads[b + STEP] = step; reads[b + PCM] = pcCls | bytes;
        }
      }
      if (quiet !== null) {
        if (noteRead) quiet[t] = sp === 0 ? (idx0 >>> 2) + 1 : -((idx0 >>> 2) + 1);
      } else if (atomic) this.ra.atomic(cs, t, sp, idx0 >>> 2, step, fl, acc);
      if (this.npend !== 0 && lane !== top) return mask & (((1 << lane) << 1) - 1);
    }
    return mask;
  }

  /** Was a word of bytes [i, i + size) last written at `step` (by an earlier lane of this instruction)? */
  private writtenAt(writes: Int32Array, i: number, size: number, step: number): boolean {
    for (let word = i >>> 2; word <= (i + size - 1) >>> 2; word++) {
      const b = word * REC;
      if (writes[b] !== 0 && (writes[b + STEP]! >>> 0) === step) return true;
    }
    return false;
  }

  /** Accesses to shared words a cp.async may still be writing: races with the copy, whoever makes them. */
  private asyncConflicts(cs: CtaSync, t: number, me: number, first: number, last: number, mask: number,
    write: boolean, atomic: boolean, step: number, gpc: number): void {
    for (let word = first; word <= last; word++) {
      const f = this.inFlight.lookup(cs.id, word);
      if (f === undefined || f.step === step || (f.mask & mask) === 0) continue;
      this.report(write ? WAW : RAW, 1, word * 4 + lowestByte(f.mask & mask), f.me - 1, f.step, f.gpc, OP_WRITE,
        me - 1, step, gpc, atomic ? OP_ATOMIC : write ? OP_WRITE : OP_READ, t);
    }
  }

  asyncCopies(w: Warp, mask: number, ev: AsyncEvent, n: number): void {
    if (this.npend !== 0) this.flushPending();
    const base = w.cta.id * this.nthreads + 1 + w.tidBase;
    const step = this.mem.step;
    for (let l = 0; l < 32; l++) {
      if (((mask >>> l) & 1) === 0) continue;
      if (ev === AsyncEvent.Commit) this.inFlight.commit(base + l);
      else this.inFlight.complete(base + l, ev === AsyncEvent.WaitGroup ? n : -1, step);
    }
  }

  /** The current access overlaps the last write of another thread: a race unless ordered. */
  private checkWrite(cs: CtaSync, t: number, me: number, sp: number, bank: Bank, word: number, mask: number,
    pg: Int32Array, b: number, write: boolean, atomic: boolean, step: number, gpc: number): void {
    const wt = pg[b]!;
    const ws = pg[b + STEP]! >>> 0;
    if (this.ordered(cs, t, wt - 1, ws)) return;
    const wm = pg[b + PCM]!;
    const wpc = wm >>> PC_SHIFT;
    const other = (wm & M_ATOMIC) !== 0 ? OP_ATOMIC : OP_WRITE;
    if (write && !atomic && other === OP_WRITE) {
      // same value or not is known once this lane's data has moved
      this.pend(sp, bank, word, wm & mask, wt - 1, ws, wpc, me - 1, step, gpc, t);
    } else {
      const op = atomic ? OP_ATOMIC : write ? OP_WRITE : OP_READ;
      this.report(write ? WAW : RAW, sp, word * 4 + lowestByte(wm & mask), wt - 1, ws, wpc, other, me - 1, step, gpc, op, t);
    }
  }

  /** The current write overlaps an earlier read (record at `r`) of another thread. */
  private checkRead(cs: CtaSync, t: number, me: number, sp: number, word: number, mask: number,
    pg: Int32Array, r: number, atomic: boolean, cls: number, step: number, gpc: number): void {
    const rt = pg[r]!;
    const rm = pg[r + PCM]!;
    if (atomic && (rm & M_ATOMIC) !== 0 && this.atomicPair(rt, me, rm | cls, rm & cls)) return;
    const rs = pg[r + STEP]! >>> 0;
    if (this.ordered(cs, t, rt - 1, rs)) return;
    this.report(WAR, sp, word * 4 + lowestByte(rm & mask), rt - 1, rs, rm >>> PC_SHIFT, (rm & M_ATOMIC) !== 0 ? OP_ATOMIC : OP_READ,
      me - 1, step, gpc, atomic ? OP_ATOMIC : OP_WRITE, t);
  }

  /**
   * Two atomic-class accesses: atomic with respect to each other unless a .cta-scoped one crosses
   * CTAs, or both are strong loads/stores by lanes of one warp (see M_LDST). `metas`: either
   * side's flags; `both`: flags both sides have.
   */
  private atomicPair(otherPlus1: number, mePlus1: number, metas: number, both: number): boolean {
    if ((both & M_LDST) === 0 && (metas & M_CTA_SCOPE) === 0) return true;
    const n = this.nthreads;
    const sameCta = Math.floor((otherPlus1 - 1) / n) === Math.floor((mePlus1 - 1) / n);
    if ((both & M_LDST) !== 0 && sameCta && Math.floor(((otherPlus1 - 1) % n) / 32) === Math.floor(((mePlus1 - 1) % n) / 32)) return false;
    if ((metas & M_CTA_SCOPE) === 0) return true;
    return sameCta;
  }

  /** Is `other`'s access at `otherStep` ordered before the current access of thread `t` of cs? */
  private ordered(cs: CtaSync, t: number, other: number, otherStep: number): boolean {
    const n = this.nthreads;
    const oc = Math.floor(other / n);
    if (oc !== cs.id) {
      const acq = cs.acquired;
      return acq !== null && acq[oc]! > otherStep;
    }
    return cs.knows(t, other - oc * n, otherStep);
  }

  /** Heap memory reused by malloc after free starts with a clean history. */
  private heapCheck(idx: number, size: number): void {
    const id = this.machine.arena.check(idx, size);
    const g = (idx - this.heapStart) >>> 8;
    if (this.heapGran[g] === id + 1) return;
    this.heapGran[g] = id + 1;
    const first = (this.heapStart + g * 256) >>> 2;
    this.global.clear(first, first + 63);
  }

  private pend(sp: number, bank: Bank, word: number, mask: number, other: number, os: number, opc: number, me: number, step: number, gpc: number, t: number): void {
    if (this.npend === MAX_PENDING) this.flushPending();
    const i = this.npend++;
    this.pendWord[i] = word;
    this.pendOld[i] = bank.u32[word]!;
    this.pendMask[i] = mask;
    this.pendBank[i] = bank;
    this.pendSpace[i] = sp;
    this.pendA[i * 4] = other; this.pendA[i * 4 + 1] = os; this.pendA[i * 4 + 2] = opc;
    this.pendB[i * 4] = me; this.pendB[i * 4 + 1] = step; this.pendB[i * 4 + 2] = gpc;
    const n = this.nthreads;
    this.pendIntra[i] = Math.floor(other / n) === Math.floor(me / n) && ((other % n) >>> 5) === (t >>> 5) ? 1 : 0;
  }

  /** Write-write conflicts whose data has now moved: same value = benign, else a race. */
  private flushPending(): void {
    for (let i = 0; i < this.npend; i++) {
      const word = this.pendWord[i]!;
      const mask = this.pendMask[i]!;
      const now = this.pendBank[i]!.u32[word]!;
      const same = ((now ^ this.pendOld[i]!) & bitMask(mask)) === 0;
      const a: RawAccess = { gtid: this.pendA[i * 4]!, step: this.pendA[i * 4 + 1]!, gpc: this.pendA[i * 4 + 2]!, op: OP_WRITE };
      const b: RawAccess = { gtid: this.pendB[i * 4]!, step: this.pendB[i * 4 + 1]!, gpc: this.pendB[i * 4 + 2]!, op: OP_WRITE };
      this.record(same ? this.benign : this.races, WAW, this.pendSpace[i]!, word * 4 + lowestByte(mask), this.pendIntra[i] === 1, a, b);
      this.pendBank[i] = undefined;
    }
    this.npend = 0;
  }

  private report(kind: number, sp: number, offset: number, other: number, os: number, opc: number, oop: number, me: number, step: number, gpc: number, op: number, t: number): void {
    const n = this.nthreads;
    const intra = Math.floor(other / n) === Math.floor(me / n) && ((other % n) >>> 5) === (t >>> 5);
    const key = this.key(kind, sp, intra, opc, gpc);
    const hit = this.races.get(key);
    if (hit !== undefined) { hit.count++; return; }
    this.record(this.races, kind, sp, offset, intra, { gtid: other, step: os, gpc: opc, op: oop }, { gtid: me, step, gpc, op });
  }

  private key(kind: number, sp: number, intra: boolean, gpcA: number, gpcB: number): number {
    return ((gpcA * 16777216 + gpcB) * 16) + kind * 4 + sp * 2 + (intra ? 1 : 0);
  }

  private record(into: Map<number, RawRace>, kind: number, sp: number, offset: number, intra: boolean, a: RawAccess, b: RawAccess): void {
    const key = this.key(kind, sp, intra, a.gpc, b.gpc);
    const hit = into.get(key);
    if (hit !== undefined) { hit.count++; return; }
    if (into.size >= this.opts.maxRaces) { this.truncated++; return; }
    into.set(key, { kind, space: sp, offset, intraWarp: intra, a, b, count: 1 });
  }

  fence(w: Warp, mask: number): void {
    if (this.npend !== 0) this.flushPending();
    const cs = this.syncOf(w.cta);
    const step = this.mem.step;
    const fl = this.flags[this.currentGpc(w)]!;
    const wide = (fl & F_FENCE_WIDE) !== 0 || (fl & F_FENCE_CTA) === 0;
    for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) this.ra.fence(cs, w.tidBase + l, step, wide);
  }

  // ---- barriers and warp synchronisation --------------------------------------------------------

  barrierArrive(w: Warp, id: number, mask: number, expected: number, arriveOnly: boolean): void {
    if (this.npend !== 0) this.flushPending();
    const cs = this.syncOf(w.cta);
    const gpc = this.reportGpc(w);
    const live = w.validMask & ~w.exited;
    if ((mask & live) !== live && !arriveOnly) {
      // judged when the barrier completes: lanes that exit meanwhile (an early return, which
      // independent thread scheduling runs while this path waits) are excused, as by bar.sync
      this.partial.push({ w, ctaId: w.cta.id, id, mask, gpc });
    } else if ((mask & live) !== live) {
      this.partialError(w, id, mask, live & ~mask, gpc);
    }
    cs.arrive(w.tidBase, mask, id, expected, arriveOnly, this.mem.step, gpc);
  }

  private partialError(w: Warp, id: number, mask: number, missing: number, gpc: number): void {
    this.addError('divergence', w.cta.id, gpc,
      `barrier ${id} reached by only part of warp ${w.tidBase >>> 5} (lanes ${hex(mask)}); live lanes ${hex(missing >>> 0)} did not arrive with it`);
  }

  /** Partial-warp arrivals at a barrier, judged when it completes (or the run ends). */
  private readonly partial: { w: Warp; ctaId: number; id: number; mask: number; gpc: number }[] = [];

  /** Report the partial arrivals whose missing lanes are still alive (`cta`/`id`, or all). */
  private judgePartial(cta: Cta | undefined, id: number): void {
    for (let i = this.partial.length - 1; i >= 0; i--) {
      const p = this.partial[i]!;
      if (cta !== undefined && (p.ctaId !== cta.id || p.id !== id)) continue;
      this.partial.splice(i, 1);
      // a warp now in another CTA: its CTA finished, every lane of it exited
      if (p.w.cta.id !== p.ctaId) continue;
      const missing = p.w.validMask & ~p.w.exited & ~p.mask;
      if (missing !== 0) this.partialError(p.w, p.id, p.mask, missing, p.gpc);
    }
  }

  barrierRelease(cta: Cta, id: number): void {
    if (this.npend !== 0) this.flushPending();
    if (this.partial.length !== 0) this.judgePartial(cta, id);
    const cs = this.syncOf(cta);
    const places = cs.release(id, this.mem.step);
    if (places.length < 2) return;
    // __syncthreads() at different source lines completing one barrier: divergent barriers
    const lines = new Map<string, number>();
    for (const g of places) {
      const loc = this.instr.location(g);
      const k = `${loc.path}:${loc.line}`;
      if (!lines.has(k)) lines.set(k, g);
    }
    if (lines.size < 2) return;
    const where = [...lines.keys()].map((k) => k.split('/').pop()).join(', ');
    for (const g of lines.values()) {
      this.addError('divergence', cta.id, g, `barrier ${id} completed by threads waiting at different barriers (${where})`);
    }
  }

  warpSync(w: Warp, active: number, members: number): void {
    if (this.npend !== 0) this.flushPending();
    const L = active & members & w.validMask & ~w.exited;
    if ((L & (L - 1)) === 0) return; // fewer than two lanes: nothing to order
    const cs = this.syncOf(w.cta);
    cs.warpSync(w.tidBase, L, this.mem.step);
  }

  private addError(kind: 'divergence' | 'deadlock', ctaId: number, gpc: number, message: string): void {
    const key = `${kind}:${gpc}`;
    if (this.errorKeys.has(key)) return;
    this.errorKeys.add(key);
    this.barrierErrors.push({ kind, ctaId, gpc, message });
  }

  /** 64-bit address of a global arena offset, as the program sees it. */
  static globalAddress(offset: number): number {
    return GLOBAL_HI * 4294967296 + offset;
  }
}

function hex(m: number): string {
  return `0x${(m >>> 0).toString(16).padStart(8, '0')}`;
}
