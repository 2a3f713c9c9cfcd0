/**
 * Execution state: CTAs, warps, call frames with their SIMT reconvergence stacks, and the
 * address translation every memory instruction goes through.
 *
 * SIMT model: immediate post-dominator (IPDOM) stack per call frame. A divergent branch turns the
 * top entry into the reconvergence entry (pc = IPDOM) and pushes one entry per path; an entry is
 * popped when its pc reaches its reconvergence pc. `ret` removes its lanes from every entry of the
 * frame (they wait for the frame's other lanes), `exit` removes them from every frame.
 */
import type { Regs } from './codegen.js';
import type { CFunction } from './compiled.js';
import { Fault } from './fault.js';
import { Access, type Probe } from './probe.js';
import type { ImageTable } from './texture/image.js';
import {
  Bank, BANK_BYTES, FRAME_PARAM_BASE, GLOBAL_HI, type GlobalArena, PAGE_SHIFT, SHARED_HI, Space, spaceOfWindow, spaceOfWindow32, WINDOW32_SHIFT,
} from './memory.js';

export const enum WarpState {
  Ready = 0,
  AtBarrier = 1,
  Exited = 2,
}

const SIMT_MAX = 256;

export class Frame implements Regs {
  i32: Int32Array;
  u32: Uint32Array;
  f32: Float32Array;
  f64: Float64Array;
  /** SIMT stack: pc, reconvergence pc, mask per entry. */
  readonly spc = new Int32Array(SIMT_MAX);
  readonly srpc = new Int32Array(SIMT_MAX);
  readonly smask = new Int32Array(SIMT_MAX);
  depth = 0;
  /** Lanes that executed `ret` in this frame and wait for the rest. */
  returned = 0;
  /** Offset of this frame in each lane's local stack. */
  localBase = 0;
  /** Caller's call instruction index (for the return), -1 for the kernel frame. */
  callPc = -1;

  constructor(readonly fn: CFunction) {
    const buf = fn.template.slice(0);
    this.i32 = new Int32Array(buf);
    this.u32 = new Uint32Array(buf);
    this.f32 = new Float32Array(buf);
    this.f64 = new Float64Array(buf);
  }

  /**
   * Back to the state the constructor leaves, for a frame of a pooled CTA (machine/frames.ts):
   * the word ranges of `zero` (pairs start, end: every slot an instruction may write) zeroed, as
   * the template has them; the others (constants, special registers) are never written, so they
   * hold what they held when the frame was made (machine/frames.ts renew says why that is
   * exact). SIMT entries at and above `depth` are never read (snapshots and restores keep only
   * those below it), so they need no clearing.
   */
  reset(zero: Int32Array): void {
    const u = this.u32;
    for (let i = 0; i < zero.length; i += 2) u.fill(0, zero[i]!, zero[i + 1]!);
    this.depth = 0;
    this.returned = 0;
    this.localBase = 0;
    this.callPc = -1;
  }
}

export class Cta {
  readonly warps: Warp[] = [];
  /** Barrier bookkeeping, 16 hardware barriers: arrived thread counts and expected counts. */
  readonly barArrived = new Int32Array(16);
  readonly barExpected = new Int32Array(16);
  /** bar.red accumulators per barrier: popc count, and-all, or-any. */
  readonly barPopc = new Int32Array(16);
  readonly barAnd = new Int32Array(16);
  readonly barOr = new Int32Array(16);
  liveThreads: number;
  constructor(
    /** Linear id and coordinates; a pooled CTA gets new ones when it is reused (see reset). */
    public id: number,
    public ctaid: readonly [number, number, number],
    readonly shared: Bank,
    readonly nthreads: number,
  ) {
    this.liveThreads = nthreads;
  }

  /**
   * Make this finished CTA the fresh CTA `id` (CTA pooling, machine/frames.ts): every field as the
   * constructor leaves it, shared memory zeroed like a new bank's; its warps are reset by the caller.
   */
  reset(id: number, ctaid: readonly [number, number, number]): void {
    this.id = id;
    this.ctaid = ctaid;
    this.shared.reset();
    this.barArrived.fill(0); this.barExpected.fill(0);
    this.barPopc.fill(0); this.barAnd.fill(0); this.barOr.fill(0);
    this.liveThreads = this.nthreads;
  }
}

/** Bytes of local stack each lane of a new warp has (deep calls grow it: Warp.ensureLocal). */
export const INITIAL_LOCAL_STRIDE = 1024;

export class Warp implements Regs {
  i32!: Int32Array;
  u32!: Uint32Array;
  f32!: Float32Array;
  f64!: Float64Array;
  frame!: Frame;
  readonly frames: Frame[] = [];
  pc = 0;
  /** Active mask of the current SIMT entry (int32). */
  mask = 0;
  /** Lanes that exist (partial warps have fewer). */
  readonly validMask: number;
  exited = 0;
  state: WarpState = WarpState.Ready;
  barrierId = -1;
  /** Per-lane carry flags for addc/subc/madc. */
  readonly carry = new Uint8Array(32);
  /** Each lane's local stack: lane l's byte a is at l*localStride + a. */
  local: Bank;
  localStride: number;
  /** The stride the warp was made with (reset goes back to it). */
  private readonly stride0: number;
  /** Top of every lane's local stack (frames allocate upward). */
  sp = 16;
  /** Side result of translate(): the bank the returned byte index refers to. */
  xbank!: Bank;
  /** Frame pools per function, so calls do not allocate. */
  readonly pool = new Map<CFunction, Frame[]>();
  /**
   * Frames of this warp's previous CTA (CTA pooling): not machine state (pooled frames keep
   * their registers, these do not: newFrame resets them to what a new frame holds).
   */
  readonly spare: Frame[] = [];
  /** Barrier wait: the lanes waiting and the bar.red destination. */
  barMask = 0;
  barDst = -1;
  barRed: 'popc' | 'and' | 'or' | undefined = undefined;
  /** Instructions this warp has issued (drives %clock). */
  issued = 0;
  /**
   * Uniform backward branches taken while the warp is diverged, since its last path switch:
   * independent thread scheduling switches paths after a bounded number (a spinning path cannot
   * be told from one that progresses, so every diverged loop yields now and then).
   */
  spins = 0;
  /**
   * Lanes that arrived at barrier `parkedBarId` while the warp went on running its other paths
   * (independent thread scheduling): their path waits there, the warp does not (0 = none).
   */
  parkedBar = 0;
  parkedBarId = -1;

  constructor(
    /** CTA id * 4096 + warp index; a pooled warp gets a new one (see reset). */
    public id: number,
    readonly cta: Cta,
    /** Linear thread index (within the CTA) of lane 0. */
    readonly tidBase: number,
    readonly nlanes: number,
    readonly mem: MemoryContext,
    localStride: number,
  ) {
    this.validMask = nlanes >= 32 ? -1 : (1 << nlanes) - 1;
    this.localStride = localStride;
    this.stride0 = localStride;
    this.local = new Bank(localStride * 32);
  }

  /**
   * Make this warp of a finished CTA a fresh warp (CTA pooling, machine/frames.ts): every machine
   * field as the constructor leaves it, local memory zeroed like a new bank's; its frames, live
   * or pooled, move to `spare`.
   */
  reset(id: number): void {
    this.id = id;
    this.resetFrames();
    this.resetFields();
  }

  /**
   * reset() of a warp that ran its kernel frame alone (no calls: the common case), keeping that
   * frame in place as the warp's kernel frame instead of passing it through `spare` and back
   * (machine/frames.ts renews it): the frame is returned, its pool entry stays empty, as reset()
   * followed by newFrame() leaves them. Undefined (and nothing changed) for any other warp.
   */
  resetKeeping(id: number, kfn: CFunction): Frame | undefined {
    const fs = this.frames;
    if (fs.length !== 1 || this.pool.size !== 1) return undefined;
    const f = fs[0]!;
    if (f.fn !== kfn || this.pool.get(kfn)?.length !== 0) return undefined;
    this.id = id;
    this.resetFields();
    return f;
  }

  /** reset()'s frames: live and pooled ones move to `spare`. */
  private resetFrames(): void {
    const spare = this.spare;
    // a new warp's pool holds one entry, the kernel's, empty (the hash and checkpoints list
    // entries): without calls that is the pool's only entry, kept; otherwise start from none
    const kfn = this.frames.length > 0 ? this.frames[0]!.fn : undefined;
    const kpool = kfn !== undefined && this.pool.size === 1 ? this.pool.get(kfn) : undefined;
    if (kpool !== undefined) {
      for (let i = 0; i < kpool.length; i++) spare.push(kpool[i]!);
      kpool.length = 0;
    } else {
      for (const fs of this.pool.values()) for (const f of fs) spare.push(f);
      this.pool.clear();
    }
    // pop, not `length = 0`, which would free the array's storage for the next push to make again
    while (this.frames.length > 0) spare.push(this.frames.pop()!);
  }

  /** reset()'s other fields, every one as the constructor leaves it (frames aside). */
  private resetFields(): void {
    this.pc = 0;
    this.mask = 0;
    this.exited = 0;
    this.state = WarpState.Ready;
    this.barrierId = -1;
    this.carry.fill(0);
    if (this.localStride === this.stride0) this.local.reset();
    else {
      // regrown by deep calls: start again at the original stride, as a new warp does
      this.local = new Bank(this.stride0 * 32);
      this.localStride = this.stride0;
    }
    this.sp = 16;
    this.barMask = 0;
    this.barDst = -1;
    this.barRed = undefined;
    this.issued = 0;
    this.spins = 0;
    this.parkedBar = 0;
    this.parkedBarId = -1;
  }

  /** Lanes of this warp that arrived at barrier `id` and wait for it to complete. */
  arrivedAt(id: number): number {
    return (this.state === WarpState.AtBarrier && this.barrierId === id ? this.barMask : 0) | (this.parkedBarId === id ? this.parkedBar : 0);
  }

  clock(): number {
    return this.issued * 4 + this.id;
  }

  setFrame(f: Frame): void {
    this.frame = f;
    this.i32 = f.i32;
    this.u32 = f.u32;
    this.f32 = f.f32;
    this.f64 = f.f64;
  }

  /** Make sure every lane has `bytes` of local stack; regrows (rare) by re-striding. */
  ensureLocal(bytes: number): void {
    if (bytes <= this.localStride) return;
    let stride = this.localStride;
    while (stride < bytes) stride *= 2;
    if (stride > 1 << 20) throw new Fault('stack-overflow', `call stack overflow: a thread needs more than 1 MiB of local memory (runaway recursion?)`);
    const old = this.local.u8;
    const oldStride = this.localStride;
    this.local.grow(stride * 32);
    const u8 = this.local.u8;
    for (let l = 31; l >= 0; l--) {
      u8.copyWithin(l * stride, l * oldStride, l * oldStride + oldStride);
      if (l > 0) u8.fill(0, l * stride + oldStride, (l + 1) * stride);
    }
    void old;
    this.localStride = stride;
  }

  /**
   * translate()'s common cases, small enough to inline in the load/store loops: an aligned,
   * in-bounds global or shared address, or a read of a kernel parameter or constant, while no
   * probe watches. Returns the byte index in `this.xbank` (a write marks its page dirty), or -1:
   * translate() decides (and raises faults).
   */
  quickIndex(space: Space, lo: number, hi: number, size: number, write: boolean): number {
    const mem = this.mem;
    if ((lo & (size - 1)) !== 0 || mem.probe !== undefined) return -1;
    let bank: Bank;
    if (hi === GLOBAL_HI && (space === Space.Global || space === Space.Generic)) {
      if (mem.global.check(lo, size) < 0) return -1;
      bank = mem.global.bank;
    } else if (space === Space.Shared || (space === Space.Generic && hi === SHARED_HI)) {
      // the reserved region and the gap before it take the slow path (translate checks the gap)
      if (lo + size > mem.sharedUser) return -1;
      bank = this.cta.shared;
    } else if (!write && (space === Space.Param ? lo < FRAME_PARAM_BASE : space === Space.Const)) {
      bank = space === Space.Param ? mem.paramBank : mem.constBank;
      if (lo + size > bank.size) return -1;
    } else return -1;
    if (write) bank.dirty[lo >>> PAGE_SHIFT] = 1;
    this.xbank = bank;
    return lo;
  }

  /**
   * An access translate() refuses: thrown, or under `ptxdbg sanitize` (mem.faultSink set) noted
   * and sent to a scratch bank, so the instruction goes on to its other lanes and every faulting
   * lane is known (compute-sanitizer reports each thread). Only reached on a fault.
   */
  private denied(f: Fault): number {
    const sink = this.mem.faultSink;
    if (sink === undefined || sink.length >= SINK_MAX) throw f;
    // the call stack as it is now: the warp returns and goes on before the fault is reported
    sink.push({ fault: f, warp: this, pc: this.pc, frames: this.frames.map((fr) => ({ fn: fr.fn, callPc: fr.callPc })) });
    this.xbank = SCRATCH;
    return 0;
  }

  /**
   * translate() of a global address past the first 4 GiB (high word GLOBAL_HI + k: bank k, see
   * arena.ts), a path of its own so that bank 0's stays as it was. A probe (race checker,
   * initcheck, watchpoints) knows bank 0's offsets only: with one set, such an access is refused
   * in words rather than observed wrongly.
   */
  private translateFar(lo: number, hi: number, size: number, lane: number, acc: Access): number {
    const write = acc !== Access.Read;
    const arena = this.mem.global;
    const k = hi - GLOBAL_HI;
    const bank = arena.far[k];
    if (bank === undefined || arena.checkAt(k * BANK_BYTES + lo, size) < 0) return this.denied(Fault.access('oob', Space.Global, lo, hi, size, lane, write));
    if (this.mem.probe !== undefined) {
      const at = ((BigInt(hi) << 32n) | BigInt(lo)).toString(16);
      throw new Fault('unsupported', `${write ? 'write' : 'read'} of global 0x${at}: ptxdbg's observers (race checker, initcheck, watchpoints, history) cannot follow device memory past the first 4 GiB yet; run without them, or allocate less`);
    }
    if (write) bank.dirty[lo >>> PAGE_SHIFT] = 1;
    this.xbank = bank;
    return lo;
  }

  /**
   * Translate an address of `space` for `lane` into a byte index of `this.xbank`, checking bounds
   * and natural alignment. Throws a Fault naming space and address. A write marks the page dirty
   * (checkpoints copy only dirty pages); a probe, when set, sees the access.
   */
  translate(space: Space, lo: number, hi: number, size: number, lane: number, acc: Access): number {
    const write = acc !== Access.Read;
    if ((lo & (size - 1)) !== 0) return this.denied(Fault.access('misaligned', space, lo, hi, size, lane, write));
    let sp = space;
    if (sp === Space.Generic) {
      const win = spaceOfWindow(hi);
      if (win !== -1) sp = win;
      else {
        // 32-bit addressing (.address_size 32, ISA 1.x): a 32-bit pointer, in a window of its top byte
        if (hi !== 0 || this.mem.addr32 !== true) return this.denied(Fault.access('invalid', space, lo, hi, size, lane, write));
        sp = spaceOfWindow32(lo);
        if (sp !== Space.Global) lo = (lo & ((1 << WINDOW32_SHIFT) - 1)) >>> 0;
      }
    } else if (sp === Space.Global && hi !== GLOBAL_HI && spaceOfWindow(hi) !== Space.Global) {
      if (hi !== 0 || this.mem.addr32 !== true) return this.denied(Fault.access('invalid', space, lo, hi, size, lane, write));
    }
    const mem = this.mem;
    let bank: Bank;
    let idx = lo;
    switch (sp) {
      case Space.Global:
        if (hi > GLOBAL_HI) return this.translateFar(lo, hi, size, lane, acc);
        if (mem.global.check(lo, size) < 0) return this.denied(Fault.access('oob', sp, lo, hi, size, lane, write));
        bank = mem.global.bank;
        break;
      case Space.Shared:
        if (lo + size > mem.sharedSize || (lo + size > mem.sharedUser && lo < mem.reservedBase)) return this.denied(Fault.access('oob', sp, lo, hi, size, lane, write));
        bank = this.cta.shared;
        break;
      case Space.Local:
        if (lo + size > this.localStride) return this.denied(Fault.access('oob', sp, lo, hi, size, lane, write));
        bank = this.local;
        idx = lane * this.localStride + lo;
        break;
      case Space.Const:
        if (write) return this.denied(Fault.access('readonly', sp, lo, hi, size, lane, write));
        if (lo + size > mem.constBank.size) return this.denied(Fault.access('oob', sp, lo, hi, size, lane, write));
        bank = mem.constBank;
        break;
      default:
        if (lo >= FRAME_PARAM_BASE) {
          const off = lo - FRAME_PARAM_BASE;
          if (off + size > this.localStride) return this.denied(Fault.access('oob', Space.Param, lo, hi, size, lane, write));
          bank = this.local;
          idx = lane * this.localStride + off;
        } else {
          if (write) return this.denied(Fault.access('readonly', Space.Param, lo, hi, size, lane, write));
          if (lo + size > mem.paramBank.size) return this.denied(Fault.access('oob', Space.Param, lo, hi, size, lane, write));
          bank = mem.paramBank;
        }
    }
    if (write) bank.dirty[idx >>> PAGE_SHIFT] = 1;
    const probe = mem.probe;
    if (probe !== undefined) probe.access(this, sp, bank, idx, size, lane, acc, lo);
    this.xbank = bank;
    return idx;
  }
}

/** Memory shared by all warps of a launch. */
export interface MemoryContext {
  readonly global: GlobalArena;
  readonly constBank: Bank;
  readonly paramBank: Bank;
  /** Bytes of shared memory per CTA (static + dynamic, and the reserved region past a gap). */
  readonly sharedSize: number;
  /** End of the kernel's own (static + dynamic) shared memory. */
  readonly sharedUser: number;
  /** Start of the reserved region (-1: none); [sharedUser, reservedBase) is out of bounds. */
  readonly reservedBase: number;
  /** Observer of memory accesses and synchronisation (race checker, watchpoints); usually unset. */
  probe: Probe | undefined;
  /** Global index of the warp-step being executed; kept current only while a probe is set. */
  step: number;
  /** 32-bit addressing: pointers are the low word alone (global addresses with no window). */
  readonly addr32?: boolean;
  /** Texture and surface images of the launch (src/exec/texture), when it has any. */
  readonly images?: ImageTable;
  /**
   * Set while worker threads share the global bank (src/exec/parallel/): striped locks each
   * atomic read-modify-write holds, so atomics of different threads never interleave.
   */
  atomicLocks?: Int32Array | undefined;
  /** `ptxdbg sanitize`: refused accesses are noted here instead of thrown (Warp.denied). */
  faultSink?: LaneFault[] | undefined;
}

/**
 * A launch's MemoryContext, every field set by the constructor in one order. Not an object
 * literal: V8 builds a literal's boilerplate when the literal runs a second time, and that
 * generalized the field types of its map, so at a program's second launch every compiled block
 * and the hot loop (whose optimized code depended on them) were thrown away and warmed again.
 */
export class LaunchMemory implements MemoryContext {
  probe: Probe | undefined = undefined;
  step = 0;
  atomicLocks: Int32Array | undefined = undefined;
  faultSink: LaneFault[] | undefined = undefined;
  constructor(
    readonly global: GlobalArena,
    readonly constBank: Bank,
    readonly paramBank: Bank,
    readonly sharedSize: number,
    readonly sharedUser: number,
    readonly reservedBase: number,
    readonly addr32: boolean,
    readonly images: ImageTable | undefined,
  ) {}
}

/** An access a lane was refused, with the warp and instruction it happened in. */
export interface LaneFault { fault: Fault; warp: Warp; pc: number; frames: Pick<Frame, 'fn' | 'callPc'>[] }

/** A fault sink holds this many at most; the next refused access is thrown (the run stops). */
const SINK_MAX = 10_000;

/** Where refused accesses go under a fault sink: big enough for the widest access (v4.b64). */
const SCRATCH = new Bank(64);

/**
 * A machine-internal write to a lane's local stack (call frames, arguments, return values):
 * marks the pages dirty and, before the bytes change, tells a probe (watchpoints see it).
 */
/**
 * A machine-internal read of a lane's local stack (argument and return-value copies of calls):
 * tells a probe, so that dataflow questions can follow a value through a call.
 */
export function localRead(w: Warp, lane: number, off: number, size: number): void {
  const p = w.mem.probe;
  if (p !== undefined && size > 0) p.access(w, Space.Local, w.local, lane * w.localStride + off, size, lane, Access.Read, off);
}

export function localWritten(w: Warp, lane: number, off: number, size: number): void {
  if (size <= 0) return;
  const idx = lane * w.localStride + off;
  w.local.touch(idx, size);
  const p = w.mem.probe;
  if (p !== undefined) p.access(w, Space.Local, w.local, idx, size, lane, Access.Write, off);
}
