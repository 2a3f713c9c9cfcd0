/**
 * The SIMT machine: lays out memory for a launch, creates CTAs and warps, and schedules warps.
 *
 * The hot loop is `runWarp`: it issues up to `budget` instructions of one warp, calling each
 * pre-decoded instruction's lane loop, with control flow (branches, calls, barriers, exits)
 * handled inline by the machine. Faults are exceptions caught once per quantum, outside the loop.
 */
import { isUnsizedParam, type Program, type ProgFunction, type VarInfo } from '../ptx/resolve.js';
import { typeSize } from '../ptx/types.js';
import { compileFunction, initRegisters, type Layout } from './compile.js';
import { type CFunction, type CInstr, Ctl } from './compiled.js';
import { Fault } from './fault.js';
import { lowestLane, popc32 } from './int64.js';
import { Bank, CONST_HI, GLOBAL_HI, GlobalArena, LOCAL_HI, type Allocation } from './memory.js';
import { Cta, Frame, localRead, localWritten, type MemoryContext, Warp, WarpState } from './state.js';
import { systemCall } from './syscalls.js';
import { coordsOf, type Launch, LaunchError, MAX_DEVICE_BYTES } from './launch.js';
import { sharedUsedBy, usesReservedSmem } from './reach.js';
import { describeGlobalOffset, type ElementInfo } from './fault-site.js';
import { arriveParked, mergeParked, parkedAtSync, runnableSibling, syncMembers } from './simt/converge.js';
import { initializerSlots } from './initializer.js';
import { ImageTable, texelBytes, texelCount } from './texture/image.js';
import type { ImageSpec } from './texture/spec.js';
import * as fp from './float/index.js';
import { FUNC_HI } from './syscalls.js';

export interface RunOptions {
  schedule: 'rr' | 'random';
  seed: number;
  maxSteps: number;
  /** CTAs resident at once (their warps interleave). */
  resident: number;
  heapBytes: number;
}

export const DEFAULT_RUN_OPTIONS: RunOptions = {
  schedule: 'rr', seed: 1, maxSteps: 200_000_000, resident: 4, heapBytes: 8 << 20,
};

export interface RunStats {
  warpSteps: number;
  threadInstructions: number;
  wallMs: number;
}

export interface FaultReport {
  kind: string;
  message: string;
  block: [number, number, number] | undefined;
  thread: [number, number, number] | undefined;
  warp: number;
  lane: number;
  function: string;
  pc: number;
  ptx: string;
  file: string | undefined;
  line: number;
  space: string | undefined;
  address: bigint | undefined;
  /** Callers of the faulting function, innermost first. */
  callers: { function: string; file: string | undefined; line: number; pc: number }[];
  /** Extra explanation lines (e.g. the spinning loops behind a step limit, exec/spin.ts). */
  hints?: string[];
}

export interface RunResult {
  ok: boolean;
  fault: FaultReport | undefined;
  stdout: string;
  stats: RunStats;
}

const QUANTUM = 256;
/**
 * Bytes of reserved shared memory a CTA gets when its kernel names %reserved_smem_offset_*
 * (sm_80+ reserve 1 KiB per CTA for the system); offset_0 is its first half, offset_1 its second.
 */
const RESERVED_SMEM = 1024;
/** Uniform backward branches a diverged warp takes before it switches paths (see yieldPath). */
const SPIN_QUANTUM = 256;

/** Where the hot loop appends its step log (implemented by the trace recorder). */
export interface StepRecorder {
  /** The log chunk that holds step `step` (allocating it); also notes that warp `w` issues next. */
  chunkFor(step: number, w: Warp): Uint32Array;
  /** Word offset of step `step` in its chunk. */
  offsetOf(step: number): number;
}

const NO_LOG = new Uint32Array(0);

export class Machine implements Layout {
  readonly arena: GlobalArena;
  readonly constBank: Bank;
  readonly paramBank: Bank;
  readonly mem: MemoryContext;
  readonly buffers: { name: string; alloc: Allocation; type: string; count: number }[] = [];
  private readonly globalAddr = new Map<VarInfo, { lo: number; hi: number }>();
  private readonly sharedOff = new Map<VarInfo, number>();
  private readonly compiled = new Map<string, CFunction>();
  private readonly funcIds = new Map<string, number>();
  readonly funcNames: string[] = [];
  /** Functions' instructions numbered consecutively (the trace's "global pc"). */
  readonly globalBase = new Map<string, number>();
  instructionCount = 0;
  private readonly sharedSize: number;
  /** Start of the reserved shared region (-1 when the kernel does not use one). */
  private readonly reservedBase: number = -1;
  readonly kernel: ProgFunction;
  stdout = '';
  warpSteps = 0;
  threadInstructions = 0;
  /** xorshift state of the random schedule. */
  rng: number;
  private readonly nthreads: number;

  constructor(readonly program: Program, readonly launch: Launch, readonly opts: RunOptions = DEFAULT_RUN_OPTIONS) {
    const kernel = program.functions.get(launch.kernel);
    if (!kernel || !kernel.isEntry) throw new Error(`no .entry named '${launch.kernel}' in the module`);
    this.kernel = kernel;
    this.rng = (opts.seed >>> 0) || 0x9e3779b9;
    for (const [name, f] of program.functions) {
      this.funcIds.set(name, this.funcNames.length);
      this.funcNames.push(name);
      this.globalBase.set(name, this.instructionCount);
      this.instructionCount += f.instrs.length + 1;
    }
    for (const name of program.prototypes.keys()) { this.funcIds.set(name, this.funcNames.length); this.funcNames.push(name); }

    // global arena: launch buffers, .global variables, device heap
    let need = 1 << 16;
    for (const a of launch.args) if (a.kind === 'buffer') need += Math.ceil((a.count * typeSize(a.type)) / 256) * 256 + 512;
    const images = [...launch.args.flatMap((a) => (a.kind === 'image' ? [a.image] : [])), ...(launch.refs ?? []).flatMap((r) => ('image' in r ? [r.image] : []))];
    for (const im of images) need += Math.ceil((texelCount(im) * texelBytes(im.format)) / 256) * 256 + 512;
    for (const g of program.globals) if (g.space === 'global') need += Math.ceil(g.size / 256) * 256 + 512;
    need += opts.heapBytes + 1024;
    // one host allocation backs all device memory; past this the launch is refused, not crashed
    if (need > MAX_DEVICE_BYTES) throw new LaunchError(`the launch needs ${need} bytes of device memory, more than the ${MAX_DEVICE_BYTES} the emulator provides`);
    this.arena = new GlobalArena(need);
    // .global variables first (their initializers may reference each other)
    let constSize = 0;
    const constOff = new Map<VarInfo, number>();
    for (const g of program.globals) {
      if (g.space === 'global') {
        const a = this.arena.allocate(Math.max(1, g.size), g.name, 'global');
        this.globalAddr.set(g, { lo: a.base, hi: GLOBAL_HI });
      } else if (g.space === 'const') {
        constSize = Math.ceil(constSize / Math.max(1, g.align)) * Math.max(1, g.align);
        constOff.set(g, constSize);
        this.globalAddr.set(g, { lo: constSize, hi: 0 });
        constSize += g.size;
      }
    }
    this.constBank = new Bank(Math.max(16, constSize));
    for (const g of program.globals) {
      if (g.space === 'global') {
        writeInit(this, g, this.arena.bank, this.globalAddr.get(g)!.lo);
        this.arena.bank.touch(this.globalAddr.get(g)!.lo, g.size);
      }
      else if (g.space === 'const') writeInit(this, g, this.constBank, constOff.get(g)!);
    }
    for (const a of launch.args) {
      if (a.kind !== 'buffer') continue;
      const bytes = a.count * typeSize(a.type);
      const alloc = this.arena.allocate(bytes, a.name, 'buffer');
      if (a.init) {
        this.arena.bank.u8.set(a.init.subarray(0, bytes), alloc.base);
        this.arena.bank.touch(alloc.base, bytes);
      }
      this.buffers.push({ name: a.name, alloc, type: a.type, count: a.count });
    }
    // texture and surface images: texels in the arena, handles in a table (src/exec/texture)
    const table = images.length || launch.refs?.length ? new ImageTable() : undefined;
    const handles: bigint[] = [];
    const place = (name: string, im: ImageSpec, ref: string | undefined): bigint => {
      const bytes = texelCount(im) * texelBytes(im.format);
      const alloc = this.arena.allocate(bytes, name, 'buffer');
      if (im.init) {
        this.arena.bank.u8.set(im.init.subarray(0, bytes), alloc.base);
        this.arena.bank.touch(alloc.base, bytes);
      }
      // a surface is an output: `run --out` writes it like a buffer
      if (im.kind === 'surface') this.buffers.push({ name, alloc, type: 'u8', count: bytes });
      return table!.add({ ...im, name, base: alloc.base }, ref);
    };
    for (const a of launch.args) if (a.kind === 'image') handles.push(place(a.name, a.image, undefined));
    for (const r of launch.refs ?? []) {
      if ('image' in r) place(r.name, r.image, r.name);
      else table!.addSampler(r.name, r.sampler);
    }
    this.arena.reserveHeap(opts.heapBytes);

    // shared layout, per kernel as ptxas does it: the static variables this kernel and its callees
    // name, from 0 in declaration order, then dynamic (extern, unsized) shared memory
    const usedShared = sharedUsedBy(program, launch.kernel);
    let sh = 0;
    const dynamic: VarInfo[] = [];
    for (const v of program.shared) {
      if (!usedShared.has(v)) continue;
      if (v.decl.linkage === 'extern' || v.size === 0) { dynamic.push(v); continue; }
      sh = Math.ceil(sh / Math.max(1, v.align)) * Math.max(1, v.align);
      this.sharedOff.set(v, sh);
      sh += v.size;
    }
    sh = Math.ceil(sh / 16) * 16;
    for (const v of dynamic) this.sharedOff.set(v, sh);
    this.sharedSize = sh + launch.sharedBytes;
    // cooperative groups' reserved shared memory (%reserved_smem_offset_*): real storage of its
    // own after the kernel's static and dynamic shared memory, so writes there clobber nothing
    if (usesReservedSmem(program, launch.kernel)) {
      this.reservedBase = Math.ceil(this.sharedSize / 16) * 16;
      this.sharedSize = this.reservedBase + RESERVED_SMEM;
    }

    // kernel parameters
    let psize = 16;
    for (const p of kernel.params) psize = Math.max(psize, p.frameOffset + p.size);
    this.paramBank = new Bank(psize);
    if (launch.args.length !== kernel.params.length) {
      throw new Error(`kernel ${launch.kernel} takes ${kernel.params.length} parameters but the launch gives ${launch.args.length}`);
    }
    let bi = 0;
    let hi = 0;
    launch.args.forEach((a, i) => {
      const p = kernel.params[i]!;
      const off = p.frameOffset;
      const dv = new DataView(this.paramBank.u8.buffer);
      if (a.kind === 'buffer') {
        const b = this.buffers[bi++]!;
        dv.setUint32(off, b.alloc.base, true);
        // a 4-byte pointer parameter (32-bit addressing) carries the low word alone
        if (p.size >= 8) dv.setUint32(off + 4, GLOBAL_HI, true);
      } else if (a.kind === 'bytes') {
        this.paramBank.u8.set(a.bytes.subarray(0, p.size), off);
      } else if (a.kind === 'image') {
        const h = handles[hi++]!;
        dv.setUint32(off, Number(h & 0xffffffffn), true);
        dv.setUint32(off + 4, Number(h >> 32n), true);
      } else writeScalar(dv, off, a.type, a.value);
    });
    this.mem = {
      global: this.arena, constBank: this.constBank, paramBank: this.paramBank, sharedSize: this.sharedSize, probe: undefined, step: 0,
      addr32: program.module.addressSize === 32,
      ...(table ? { images: table } : {}),
    };
    const [bx, by, bz] = launch.block;
    this.nthreads = bx * by * bz;
  }

  // ---- Layout (used by the compiler) ----------------------------------------------------------------

  addressOf(v: VarInfo): { lo: number; hi: number } | undefined {
    if (v.space === 'shared') {
      const o = this.sharedOff.get(v);
      return o === undefined ? undefined : { lo: o, hi: 0 };
    }
    return this.globalAddr.get(v);
  }

  functionAddress(name: string): number {
    return this.funcIds.get(name) ?? -1;
  }

  fn(name: string): CFunction | undefined {
    let c = this.compiled.get(name);
    if (c) return c;
    const p = this.program.functions.get(name);
    if (!p) return undefined;
    c = compileFunction(p, this);
    c.gbase = this.globalBase.get(name)!;
    this.compiled.set(name, c);
    return c;
  }

  // ---- launch --------------------------------------------------------------------------------------

  /** A CTA with its shared memory but no warps (checkpoint restore fills them in). */
  makeCtaShell(id: number): Cta {
    return new Cta(id, coordsOf(id, this.launch.grid), new Bank(Math.max(16, this.sharedSize)), this.nthreads);
  }

  makeCta(id: number): Cta {
    const cta = this.makeCtaShell(id);
    const kfn = this.fn(this.kernel.name)!;
    const nwarps = Math.ceil(this.nthreads / 32);
    for (let wi = 0; wi < nwarps; wi++) {
      const nl = Math.min(32, this.nthreads - wi * 32);
      const w = new Warp(id * 4096 + wi, cta, wi * 32, nl, this.mem, 1024);
      const f = this.newFrame(w, kfn);
      f.localBase = 16;
      w.sp = 16 + kfn.frameSize;
      w.ensureLocal(w.sp + 16);
      f.depth = 1;
      f.spc[0] = 0;
      f.srpc[0] = -1;
      f.smask[0] = w.validMask;
      w.frames.push(f);
      w.setFrame(f);
      w.pc = 0;
      w.mask = w.validMask;
      cta.warps.push(w);
    }
    return cta;
  }

  /** A frame for `fn` on warp `w`, from the warp's pool; special registers filled in. */
  newFrame(w: Warp, fn: CFunction): Frame {
    let pool = w.pool.get(fn);
    if (!pool) { pool = []; w.pool.set(fn, pool); }
    const f = pool.pop() ?? this.initFrame(w, fn);
    if (fn.regInit.length !== 0) initRegisters(fn, f.u32);
    f.depth = 0;
    f.returned = 0;
    return f;
  }

  private initFrame(w: Warp, fn: CFunction): Frame {
    const f = new Frame(fn);
    const u = f.u32;
    const nw = Math.ceil(this.nthreads / 32);
    for (const s of fn.specials) {
      for (let l = 0; l < 32; l++) {
        const tid = coordsOf(w.tidBase + l, this.launch.block);
        let v = 0;
        switch (s.name) {
          case 'tid': v = tid[s.comp] ?? 0; break;
          case 'ntid': v = this.launch.block[s.comp] ?? 1; break;
          case 'ctaid': v = w.cta.ctaid[s.comp] ?? 0; break;
          case 'nctaid': v = this.launch.grid[s.comp] ?? 1; break;
          case 'laneid': v = l; break;
          case 'warpid': v = Math.floor(w.tidBase / 32); break;
          case 'nwarpid': v = nw; break;
          case 'smid': v = 0; break;
          case 'nsmid': v = 1; break;
          case 'gridid': v = 1; break;
          case 'lanemask_eq': v = (1 << l) >>> 0; break;
          case 'lanemask_le': v = l === 31 ? 0xffffffff : ((1 << (l + 1)) - 1) >>> 0; break;
          case 'lanemask_lt': v = ((1 << l) - 1) >>> 0; break;
          case 'lanemask_ge': v = (0xffffffff << l) >>> 0; break;
          case 'lanemask_gt': v = l === 31 ? 0 : (0xffffffff << (l + 1)) >>> 0; break;
          case 'dynamic_smem_size': v = this.launch.sharedBytes; break;
          case 'total_smem_size': case 'aggr_smem_size': v = this.sharedSize; break;
          case 'reserved_smem_offset_begin': case 'reserved_smem_offset_0': v = this.reservedBase; break;
          case 'reserved_smem_offset_1': v = this.reservedBase + RESERVED_SMEM / 2; break;
          case 'reserved_smem_offset_end': v = this.reservedBase + RESERVED_SMEM; break;
          case 'reserved_smem_offset_cap': v = RESERVED_SMEM; break;
          default: v = 0;
        }
        u[s.base + 2 * l] = v >>> 0;
        u[s.base + 2 * l + 1] = 0;
      }
    }
    return f;
  }

  private nextRandom(): number {
    let x = this.rng;
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    this.rng = x;
    return x;
  }

  // ---- scheduler ----------------------------------------------------------------------------------
  //
  // The scheduler is an explicit state machine so a run can stop after any warp-step and resume
  // exactly as if it had not stopped: checkpoints, `goto` and single-stepping depend on it.
  // Round-robin: each round takes the warps that are ready at its start, QUANTUM steps each.
  // Random: each round picks one ready warp and a quantum from the seeded generator.

  /** CTAs not yet started (linear ids from here on). */
  nextCta = 0;
  /** Resident CTAs in start order. */
  resident: Cta[] = [];
  /** Warps of the current round, the next one to start, and the warp in its turn (if any). */
  round: Warp[] = [];
  roundPos = 0;
  cur: Warp | undefined = undefined;
  quantumLeft = 0;
  /** The run ended: every CTA finished or a fault stopped it. */
  finished = false;
  fault: FaultReport | undefined = undefined;
  /** Step index of the instruction that faulted (-1 when the fault is not an instruction's). */
  faultStep = -1;
  /** When set, every issued warp-step is appended to this log (see src/trace/). */
  recorder: StepRecorder | undefined = undefined;
  /** Recording stops the scheduler at multiples of this many steps (checkpoints). */
  boundary = 0;

  /** Run the whole grid. */
  run(): RunResult {
    const t0 = performance.now();
    this.advance(Infinity);
    return this.result(performance.now() - t0);
  }

  result(wallMs: number): RunResult {
    return {
      ok: this.fault === undefined,
      fault: this.fault,
      stdout: this.stdout,
      stats: { warpSteps: this.warpSteps, threadInstructions: this.threadInstructions, wallMs },
    };
  }

  /**
   * Execute until `limit` warp-steps have been issued in total, or the run finishes or faults.
   * Stopping and resuming gives the same execution as not stopping.
   */
  advance(limit: number): void {
    let inWarp = false;
    let last: Warp | undefined = this.cur;
    try {
      while (!this.finished && this.warpSteps < limit) {
        if (this.cur === undefined && !this.startTurn()) { this.finished = true; break; }
        const w = this.cur!;
        last = w;
        // never past the step limit, so a runaway kernel stops exactly there
        let budget = Math.min(this.quantumLeft, limit - this.warpSteps, this.opts.maxSteps + 1 - this.warpSteps);
        if (this.boundary > 0) budget = Math.min(budget, this.boundary - (this.warpSteps % this.boundary));
        const before = this.warpSteps;
        inWarp = true;
        const blocked = this.runWarp(w, budget);
        inWarp = false;
        this.quantumLeft -= this.warpSteps - before;
        if (blocked || this.quantumLeft <= 0) this.cur = undefined;
        if (this.warpSteps > this.opts.maxSteps) {
          throw new Fault('step-limit', `step limit reached: ${this.opts.maxSteps} warp-steps executed without the kernel finishing (runaway loop?); raise it with --max-steps`);
        }
      }
    } catch (e) {
      if (!(e instanceof Fault)) throw e;
      this.fault = this.report(e, this.cur ?? last);
      this.faultStep = inWarp ? this.warpSteps - 1 : -1;
      this.finished = true;
    }
  }

  /**
   * Start the first CTAs and choose the first warp without executing anything, so that position 0
   * of a recording shows resident threads. The run is the same with or without it.
   */
  prime(): void {
    if (this.cur !== undefined || this.finished) return;
    try {
      if (!this.startTurn()) this.finished = true;
    } catch (e) {
      if (!(e instanceof Fault)) throw e;
      this.fault = this.report(e, undefined);
      this.finished = true;
    }
  }

  /** Choose the next warp and quantum; false when the grid has finished. */
  private startTurn(): boolean {
    for (;;) {
      if (this.roundPos < this.round.length) {
        const w = this.round[this.roundPos++]!;
        if (w.state !== WarpState.Ready) continue;
        this.cur = w;
        this.quantumLeft = this.roundQuantum;
        return true;
      }
      // end of a round: retire finished CTAs, start new ones, collect the ready warps
      this.retire();
      const [gx, gy, gz] = this.launch.grid;
      const total = gx * gy * gz;
      if (this.nextCta >= total && this.resident.length === 0) return false;
      while (this.resident.length < this.opts.resident && this.nextCta < total) this.resident.push(this.makeCta(this.nextCta++));
      const ready: Warp[] = [];
      for (const c of this.resident) for (const w of c.warps) if (w.state === WarpState.Ready) ready.push(w);
      if (ready.length === 0) {
        // every resident warp is blocked or done: finished CTAs retire (and new ones start); else deadlock
        if (this.retire()) { this.round = []; this.roundPos = 0; continue; }
        const c = this.resident.find((r) => r.warps.some((w) => w.state === WarpState.AtBarrier))!;
        throw this.deadlock(c);
      }
      if (this.opts.schedule === 'random') {
        this.roundQuantum = 1 + (this.nextRandom() % QUANTUM);
        this.round = [ready[this.nextRandom() % ready.length]!];
      } else {
        this.roundQuantum = QUANTUM;
        this.round = ready;
      }
      this.roundPos = 0;
    }
  }

  /** Quantum of the current round (each warp of a round-robin round gets it afresh). */
  roundQuantum = QUANTUM;
  /** Backward-branch quantum of the path switch; varied per switch under --schedule random. */
  spinQuantum = SPIN_QUANTUM;

  private retire(): boolean {
    let any = false;
    for (let i = this.resident.length - 1; i >= 0; i--) {
      if (this.resident[i]!.warps.every((w) => w.state === WarpState.Exited)) { this.resident.splice(i, 1); any = true; }
    }
    return any;
  }

  /**
   * The hot loop: issue up to `budget` instructions of warp `w`. Returns true when the warp
   * blocked (barrier, exit) before using its budget.
   * Plain instructions run their lane loop and advance; control instructions are handled here.
   */
  runWarp(w: Warp, budget: number): boolean {
    let f = w.frame;
    let code = f.fn.code;
    let gbase = f.fn.gbase;
    let pc = w.pc;
    let mask = w.mask;
    let rpc = f.srpc[f.depth - 1]!;
    let steps = 0;
    let thr = 0;
    let blocked = false;
    // recording: (global instruction index, active mask) per step, into a preallocated chunk
    const rec = this.recorder;
    const log = rec !== undefined ? rec.chunkFor(this.warpSteps, w) : NO_LOG;
    let lp = rec !== undefined ? rec.offsetOf(this.warpSteps) : 0;
    const probing = this.mem.probe !== undefined;
    const step0 = this.warpSteps;
    const issued0 = w.issued;
    try {
      while (budget-- > 0) {
        const ins = code[pc]!;
        if (rec !== undefined) { log[lp] = gbase + pc; log[lp + 1] = mask; lp += 2; }
        // observers (race checker, watchpoints) read the step and the executing instruction
        if (probing) { this.mem.step = step0 + steps; w.pc = pc; }
        let m = mask;
        if (ins.guard >= 0) m = guardMask(f.i32, ins.guard, m, ins.guardNeg);
        steps++;
        thr += popc32(m);
        if (ins.ctl === Ctl.None) {
          // %clock counts this warp's issued instructions, so it must not depend on where a turn
          // was split (checkpoints, goto)
          if (ins.readsClock) w.issued = issued0 + steps - 1;
          if (m !== 0) ins.exec!(w, m);
          pc++;
          if (pc === rpc) {
            w.pc = pc;
            this.reconverge(w);
            pc = w.pc; mask = w.mask; rpc = f.srpc[f.depth - 1]!;
            if (w.state !== WarpState.Ready) { blocked = true; break; }
          }
          continue;
        }
        w.pc = pc;
        w.mask = mask;
        blocked = this.control(w, ins, m) || w.state !== WarpState.Ready;
        f = w.frame;
        code = f.fn.code;
        gbase = f.fn.gbase;
        pc = w.pc;
        mask = w.mask;
        rpc = f.depth > 0 ? f.srpc[f.depth - 1]! : -1;
        if (blocked) break;
      }
    } finally {
      // also on a fault, so the report names the faulting instruction
      w.pc = pc;
      w.mask = mask;
      this.warpSteps += steps;
      this.threadInstructions += thr;
      w.issued = issued0 + steps;
    }
    return blocked;
  }

  /** Pop SIMT entries whose pc reached their reconvergence point. */
  private reconverge(w: Warp): void {
    const f = w.frame;
    while (f.depth > 1 && w.pc === f.srpc[f.depth - 1]) {
      f.depth--;
      w.pc = f.spc[f.depth - 1]!;
      w.mask = f.smask[f.depth - 1]!;
    }
    f.spc[f.depth - 1] = w.pc;
    // the path to run waits at a barrier that has not completed: now the warp waits for it
    if (w.parkedBar !== 0 && (w.mask & w.parkedBar) !== 0 && w.state === WarpState.Ready) {
      w.state = WarpState.AtBarrier;
      w.barrierId = w.parkedBarId;
      w.barMask = w.parkedBar;
      w.barDst = -1;
    }
  }

  /** Returns true when the warp can no longer issue in this quantum (barrier, exit). */
  private control(w: Warp, ins: CInstr, m: number): boolean {
    const f = w.frame;
    switch (ins.ctl) {
      case Ctl.Bra: {
        const active = w.mask;
        if (m === active) {
          // a diverged warp switches paths after a bounded number of backward branches, so a
          // path spinning on a lock held by another path of the same warp cannot starve it
          if (ins.target <= w.pc && f.depth > 1 && ++w.spins >= this.spinQuantum) {
            w.pc = ins.target;
            w.spins = 0;
            if (this.opts.schedule === 'random') this.spinQuantum = 1 + (this.nextRandom() % SPIN_QUANTUM);
            this.yieldPath(w, f);
            return false;
          }
          w.pc = ins.target;
        } else if (m === 0) w.pc++;
        else this.diverge(w, f, ins.rpc, [ins.target, m], [w.pc + 1, active & ~m]);
        this.reconverge(w);
        return false;
      }
      case Ctl.Brx: {
        // brx.idx: group lanes by target
        const active = m;
        if (active === 0) { w.pc++; this.reconverge(w); return false; }
        const groups = new Map<number, number>();
        for (let l = 0; l < 32; l++) {
          if (!((active >>> l) & 1)) continue;
          const idx = f.u32[ins.brxIndex + 2 * l]!;
          const t = ins.brxTargets[idx];
          if (t === undefined) throw laneFault(new Fault('invalid', `brx.idx index ${idx} is outside the target list`), l);
          groups.set(t, (groups.get(t) ?? 0) | (1 << l));
        }
        const entries = [...groups.entries()];
        if (entries.length === 1 && w.mask === active) w.pc = entries[0]![0];
        else this.diverge(w, f, ins.rpc, ...entries);
        this.reconverge(w);
        return false;
      }
      case Ctl.Call: return this.call(w, ins, m);
      case Ctl.Ret: {
        if (m === 0) { w.pc++; this.reconverge(w); return false; }
        if (w.frames.length === 1) return this.exitLanes(w, m);
        for (let i = 0; i < f.depth; i++) f.smask[i] = f.smask[i]! & ~m;
        f.returned |= m;
        return this.normalize(w);
      }
      case Ctl.Exit: {
        if (m === 0) { w.pc++; this.reconverge(w); return false; }
        return this.exitLanes(w, m);
      }
      case Ctl.Bar: return this.barrier(w, ins, m);
      case Ctl.WarpSync: {
        if (m === 0) { w.pc++; this.reconverge(w); return false; }
        const members = syncMembers(ins, w, m) & w.validMask & ~w.exited;
        if ((members & ~m) !== 0) {
          // lanes of the member mask are on other paths: merge those parked here (the merged
          // path executes at its next step), else let them run first (src/exec/simt)
          if (mergeParked(f, w.pc, members & ~w.parkedBar) !== 0) { w.mask = f.smask[f.depth - 1]!; return false; }
          if (runnableSibling(f, f.fn.code, w.parkedBar)) { w.spins = 0; this.yieldPath(w, f); return false; }
        }
        if (ins.exec) ins.exec(w, m);
        w.pc++;
        this.reconverge(w);
        return false;
      }
      case Ctl.Trap: {
        if (m === 0) { w.pc++; this.reconverge(w); return false; }
        throw laneFault(new Fault('trap', 'trap instruction executed (__trap())'), firstLane(m));
      }
      case Ctl.Brkpt: {
        if (m === 0) { w.pc++; this.reconverge(w); return false; }
        throw laneFault(new Fault('brkpt', 'brkpt instruction executed'), firstLane(m));
      }
      default: {
        if (m === 0) { w.pc++; this.reconverge(w); return false; }
        throw laneFault(new Fault('unsupported', ins.note || 'instruction not supported'), firstLane(m));
      }
    }
  }

  /**
   * Independent thread scheduling: park the running path (top entry) and run another one of the
   * warp. First choice, a pending sibling path (same reconvergence pc, not yet arrived there),
   * rotated to the top so k siblings take turns. Otherwise lanes that already arrived at an
   * enclosing reconvergence point (they wait in the join entry but are in no live path) leave as
   * a path of their own that continues past it; it merges with the others at the join's own
   * reconvergence point. With neither, the running path just continues.
   */
  private yieldPath(w: Warp, f: Frame): void {
    const t = f.depth - 1;
    f.spc[t] = w.pc;
    const x = f.srpc[t]!;
    let lo = t;
    let pick = -1;
    // a sibling that can run goes first; lanes that arrived at an enclosing join next; a sibling
    // waiting at a barrier or warp sync last (it re-checks and yields back)
    let waiting = -1;
    for (let i = t - 1; i >= 1 && f.srpc[i] === x; i--) {
      lo = i;
      if (f.spc[i] === x) continue;
      if (parkedAtSync(f.fn.code, f.spc[i]!, f.smask[i]!, w.parkedBar)) { if (waiting < 0) waiting = i; } else if (pick < 0) pick = i;
    }
    if (pick < 0 && this.leaveJoin(w, f)) return;
    if (pick < 0) pick = waiting;
    if (pick >= 0) {
      // rotate entries lo..t up by one: the running path goes to the bottom of its siblings
      const pc = f.spc[t]!, rpc = f.srpc[t]!, mask = f.smask[t]!;
      f.spc.copyWithin(lo + 1, lo, t); f.srpc.copyWithin(lo + 1, lo, t); f.smask.copyWithin(lo + 1, lo, t);
      f.spc[lo] = pc; f.srpc[lo] = rpc; f.smask[lo] = mask;
      w.pc = f.spc[t]!;
      w.mask = f.smask[t]!;
      this.reconverge(w);
    }
  }

  /**
   * Lanes that arrived at an enclosing reconvergence point (they wait in its join entry but are
   * in no live path) leave it as a path of their own that continues past it; it merges with the
   * others at the join's own reconvergence point. Under independent thread scheduling reaching a
   * reconvergence point is no wait. The running path must have its pc saved. False when none.
   */
  private leaveJoin(w: Warp, f: Frame): boolean {
    const t = f.depth - 1;
    // walk the enclosing joins outward; lanes in a live entry (one whose pc is not its
    // reconvergence pc) above a join have not arrived there
    let live = 0;
    let j = t + 1;
    let level = f.srpc[t]!;
    while (level >= 0) {
      let p = j - 1;
      while (p >= 0 && !(f.spc[p] === level && f.srpc[p] !== level)) p--;
      if (p < 0) return false;
      for (let i = p + 1; i < j; i++) if (f.spc[i] !== f.srpc[i]) live |= f.smask[i]!;
      const arrived = f.smask[p]! & ~live;
      if (arrived !== 0) {
        if (f.depth >= f.spc.length) throw new Fault('stack-overflow', 'SIMT reconvergence stack overflow');
        f.smask[p] = f.smask[p]! & ~arrived;
        f.spc[f.depth] = level;
        f.srpc[f.depth] = f.srpc[p]!;
        f.smask[f.depth] = arrived;
        f.depth++;
        w.pc = level;
        w.mask = arrived;
        this.reconverge(w);
        return true;
      }
      live |= f.smask[p]!;
      j = p;
      level = f.srpc[p]!;
    }
    return false;
  }


  /**
   * Under independent thread scheduling a path that reaches a blocking barrier waits there while
   * the warp's other paths run on. When a sibling path is pending and not itself at a barrier,
   * this path's arrival is deferred (it stays at the barrier) and the sibling runs; it arrives
   * once its siblings have merged, exited or reached a barrier too (siblings parked at the same
   * barrier then arrive with it, see barrier()). With no sibling to run, lanes that already
   * reached an enclosing reconvergence point run on past it (leaveJoin): an early return exits,
   * and a barrier skipped by lanes that stay alive is reported where they next wait.
   */
  private deferBarrier(w: Warp): boolean {
    const f = w.frame;
    const t = f.depth - 1;
    const x = f.srpc[t]!;
    const code = f.fn.code;
    for (let i = t - 1; i >= 1 && f.srpc[i] === x; i--) {
      const pc = f.spc[i]!;
      if (pc !== x && !parkedAtSync(code, pc, f.smask[i]!, w.parkedBar)) {
        w.spins = 0;
        this.yieldPath(w, f);
        return true;
      }
    }
    return false;
  }


  /** Split the current SIMT entry into paths [pc, mask], reconverging at `rpc`. */
  private diverge(w: Warp, f: Frame, rpc: number, ...paths: [number, number][]): void {
    const top = f.depth - 1;
    // a path that already reconverges at `rpc` splits into siblings of its own siblings (no new
    // join level: a loop whose divergent exit leads to one point does not deepen the stack)
    if (top >= 1 && f.srpc[top] === rpc) f.depth--;
    else f.spc[top] = rpc;
    if (f.depth + paths.length > f.spc.length) throw new Fault('stack-overflow', 'SIMT reconvergence stack overflow');
    // which path runs first: the first (the branch taken) under round-robin; any of them, from
    // the seeded generator, under --schedule random (paths of a warp are scheduled independently)
    const first = this.opts.schedule === 'random' && paths.length > 1 ? this.nextRandom() % paths.length : 0;
    // push in reverse so the first path runs first
    for (let k = paths.length - 1; k >= 0; k--) {
      const [pc, mask] = paths[(k + first) % paths.length]!;
      f.spc[f.depth] = pc;
      f.srpc[f.depth] = rpc;
      f.smask[f.depth] = mask;
      f.depth++;
    }
    w.pc = f.spc[f.depth - 1]!;
    w.mask = f.smask[f.depth - 1]!;
  }

  private exitLanes(w: Warp, m: number): boolean {
    const gone = m & ~w.exited;
    w.exited |= m;
    for (const fr of w.frames) for (let i = 0; i < fr.depth; i++) fr.smask[i] = fr.smask[i]! & ~m;
    const cta = w.cta;
    cta.liveThreads -= popc32(gone);
    const done = this.normalize(w);
    this.checkBarriers(cta);
    return done;
  }

  /** Drop empty SIMT entries and finished frames (returning to callers). True if the warp stops. */
  private normalize(w: Warp): boolean {
    for (;;) {
      const f = w.frame;
      while (f.depth > 0 && f.smask[f.depth - 1] === 0) f.depth--;
      if (f.depth > 0) {
        w.pc = f.spc[f.depth - 1]!;
        w.mask = f.smask[f.depth - 1]!;
        if (w.pc < 0) throw new Fault('invalid', 'internal: lanes parked at function exit');
        this.reconverge(w);
        return false;
      }
      if (w.frames.length === 1) {
        w.state = WarpState.Exited;
        w.mask = 0;
        return true;
      }
      this.returnFrom(w);
    }
  }

  private returnFrom(w: Warp): void {
    const callee = w.frames.pop()!;
    const caller = w.frames[w.frames.length - 1]!;
    const lanes = callee.returned & ~w.exited;
    const callIns = caller.fn.code[callee.callPc]!;
    const info = callIns.call!;
    const prog = callee.fn.prog;
    // copy return values back
    info.rets.forEach((ref, i) => {
      const rv = prog.rets[i];
      if (!rv) return;
      const rreg = prog.retRegs[i];
      copyValue(w, lanes, rreg ? { kind: 'reg', base: rreg.slot * 64, size: ref.size, frame: callee } : { kind: 'mem', off: callee.localBase + rv.frameOffset, size: rv.size },
        ref.kind === 'reg' ? { kind: 'reg', base: ref.base, size: ref.size, frame: caller } : { kind: 'mem', off: caller.localBase + ref.offset, size: ref.size });
    });
    w.sp = callee.localBase;
    w.pool.get(callee.fn)!.push(callee);
    w.setFrame(caller);
    caller.spc[caller.depth - 1] = callee.callPc + 1;
    w.pc = callee.callPc + 1;
    w.mask = caller.smask[caller.depth - 1]!;
  }

  private call(w: Warp, ins: CInstr, m: number): boolean {
    const info = ins.call!;
    if (m === 0) { w.pc++; this.reconverge(w); return false; }
    let name = info.callee;
    let lanes = m;
    if (name === undefined) {
      // indirect: group lanes by target; other groups wait at this call (pc) and run after
      const u = w.frame.u32;
      const first = firstLane(m);
      const id = u[info.calleeReg + 2 * first]!;
      const hi = u[info.calleeReg + 2 * first + 1]!;
      let same = 0;
      for (let l = 0; l < 32; l++) if ((m >>> l) & 1 && u[info.calleeReg + 2 * l] === id && u[info.calleeReg + 2 * l + 1] === hi) same |= 1 << l;
      if (hi !== FUNC_HI || id >= this.funcNames.length) {
        throw laneFault(new Fault('bad-call', `indirect call through an invalid function pointer 0x${((BigInt(hi) << 32n) | BigInt(id)).toString(16)}`), first);
      }
      if (same !== m) {
        this.diverge(w, w.frame, w.pc + 1, [w.pc, same], [w.pc, m & ~same]);
      }
      lanes = same;
      name = this.funcNames[id]!;
    }
    const callee = this.fn(name);
    if (!callee) {
      const handled = systemCall(this, w, name, info, lanes);
      if (!handled) throw laneFault(new Fault('bad-call', `call to '${name}', which has no body in this module and is not a supported system call`), firstLane(lanes));
      w.pc++;
      this.reconverge(w);
      return false;
    }
    const caller = w.frame;
    caller.spc[caller.depth - 1] = w.pc;
    const nf = this.newFrame(w, callee);
    nf.callPc = w.pc;
    nf.localBase = (w.sp + 15) & ~15;
    // an unsized (variadic) parameter sits at the frame's end and holds what this call passes
    let frameEnd = callee.frameSize;
    info.args.forEach((ref, i) => {
      const p = callee.prog.params[i];
      if (p && isUnsizedParam(p)) frameEnd = Math.max(frameEnd, p.frameOffset + ref.size);
    });
    w.sp = nf.localBase + ((frameEnd + 15) & ~15);
    if (w.frames.length > 10000) throw laneFault(new Fault('stack-overflow', 'call stack overflow: more than 10000 nested calls (runaway recursion?)'), firstLane(lanes));
    w.ensureLocal(w.sp + 16);
    // zero the callee's frame memory for determinism
    const stride = w.localStride;
    for (let l = 0; l < 32; l++) {
      if (!((lanes >>> l) & 1)) continue;
      w.local.u8.fill(0, l * stride + nf.localBase, l * stride + w.sp);
      localWritten(w, l, nf.localBase, w.sp - nf.localBase);
    }
    const prog = callee.prog;
    info.args.forEach((ref, i) => {
      const p = prog.params[i];
      if (!p) return;
      const preg = prog.paramRegs[i];
      copyValue(w, lanes,
        ref.kind === 'reg' ? { kind: 'reg', base: ref.base, size: ref.size, frame: caller } : { kind: 'mem', off: caller.localBase + ref.offset, size: ref.size },
        preg ? { kind: 'reg', base: preg.slot * 64, size: Math.max(4, typeSize(preg.type)), frame: nf } : { kind: 'mem', off: nf.localBase + p.frameOffset, size: isUnsizedParam(p) ? ref.size : p.size });
    });
    nf.depth = 1;
    nf.spc[0] = 0;
    nf.srpc[0] = -1;
    nf.smask[0] = lanes;
    w.frames.push(nf);
    w.setFrame(nf);
    w.pc = 0;
    w.mask = lanes;
    return false;
  }

  private barrier(w: Warp, ins: CInstr, m: number): boolean {
    const b = ins.bar!;
    if (m === 0) { w.pc++; this.reconverge(w); return false; }
    if (b.op !== 'arrive' && this.deferBarrier(w)) return false;
    if (ins.exec) ins.exec(w, m);
    // sibling paths parked at a bar.sync of the same barrier arrive with this one
    if (b.op === 'sync') m |= arriveParked(w.frame, b);
    const cta = w.cta;
    const lane = firstLane(m);
    const id = b.idReg >= 0 ? w.frame.u32[b.idReg + 2 * lane]! : b.id;
    if (id > 15) throw laneFault(new Fault('invalid', `barrier id ${id} out of range 0..15`), lane);
    const n = popc32(m);
    if (cta.barArrived[id] === 0) {
      cta.barPopc[id] = 0; cta.barAnd[id] = 1; cta.barOr[id] = 0;
      cta.barExpected[id] = b.countReg >= 0 ? w.frame.u32[b.countReg + 2 * lane]! : 0;
    }
    cta.barArrived[id] = cta.barArrived[id]! + n;
    const probe = this.mem.probe;
    if (probe !== undefined) probe.barrierArrive(w, id, m, cta.barExpected[id]!, b.op === 'arrive');
    if (b.op === 'red') {
      for (let l = 0; l < 32; l++) {
        if (!((m >>> l) & 1)) continue;
        const v = (w.frame.i32[b.pred + 2 * l]! !== 0) !== b.predNeg;
        if (v) cta.barPopc[id] = cta.barPopc[id]! + 1;
        else cta.barAnd[id] = 0;
        if (v) cta.barOr[id] = 1;
      }
    }
    w.pc++;
    if (b.op === 'arrive') {
      this.checkBarriers(cta);
      this.reconverge(w);
      return false;
    }
    if (b.op === 'sync' && (w.parkedBar === 0 || w.parkedBarId === id)) {
      // lanes waiting at an enclosing reconvergence point run on past it while this path waits
      // at the barrier (an early return exits; lanes that skip the barrier reach the next one)
      const f = w.frame;
      f.spc[f.depth - 1] = w.pc;
      if (this.leaveJoin(w, f)) {
        w.parkedBar |= m;
        w.parkedBarId = id;
        w.spins = 0;
        this.checkBarriers(cta);
        return false;
      }
    }
    w.state = WarpState.AtBarrier;
    w.barrierId = id;
    w.barMask = m;
    w.barDst = b.op === 'red' ? b.dst : -1;
    w.barRed = b.redOp;
    this.checkBarriers(cta);
    return w.state === WarpState.AtBarrier;
  }

  /** Release every barrier whose expected thread count has arrived (exited threads excused). */
  private checkBarriers(cta: Cta): void {
    for (let id = 0; id < 16; id++) {
      const arrived = cta.barArrived[id]!;
      if (arrived === 0) continue;
      // an explicit thread count must be met in full (bar.arrive counts too); a whole-CTA
      // barrier only waits for threads that have not exited
      const expected = cta.barExpected[id]! || cta.liveThreads;
      if (arrived < expected) continue;
      cta.barArrived[id] = 0;
      const probe = this.mem.probe;
      if (probe !== undefined) probe.barrierRelease(cta, id);
      for (const w of cta.warps) {
        if (w.parkedBarId === id) { w.parkedBar = 0; w.parkedBarId = -1; }
        if (w.state !== WarpState.AtBarrier || w.barrierId !== id) continue;
        if (w.barDst >= 0) {
          const red = w.barRed;
          const v = red === 'popc' ? cta.barPopc[id]! : red === 'and' ? cta.barAnd[id]! : cta.barOr[id]!;
          for (let l = 0; l < 32; l++) if ((w.barMask >>> l) & 1) { w.frame.u32[w.barDst + 2 * l] = v; }
        }
        w.state = WarpState.Ready;
        w.barrierId = -1;
        this.reconverge(w);
      }
    }
  }

  private deadlock(cta: Cta): Fault {
    const waiting = cta.warps.filter((w) => w.state === WarpState.AtBarrier);
    const w = waiting[0]!;
    const id = w.barrierId;
    const f = new Fault('deadlock', `deadlock: barrier ${id} in block (${cta.ctaid.join(',')}) can never complete: ${cta.barArrived[id]} thread(s) arrived, ${cta.barExpected[id] || cta.liveThreads} expected; waiting warps: ${waiting.map((x) => x.tidBase / 32).join(', ')}`);
    f.lane = firstLane(w.barMask);
    (f as Fault & { warp?: Warp; pc?: number }).warp = w;
    (f as Fault & { warp?: Warp; pc?: number }).pc = w.pc - 1;
    return f;
  }

  /** An out-of-bounds global access, restated by the allocation and element it hit or ran past. */
  private locateAccess(e: Fault): string {
    if (e.kind !== 'oob' || e.space !== 'global' || e.address === undefined) return e.message;
    const elements = new Map<number, ElementInfo>();
    for (const b of this.buffers) elements.set(b.alloc.base, { name: b.name, elemSize: typeSize(b.type as never), count: b.count });
    const site = describeGlobalOffset(this.arena, Number(e.address & 0xffffffffn), elements);
    if (!site) return e.message;
    const at = /^(.*) at (0x[0-9a-f]+)$/.exec(e.message);
    return at ? `${at[1]} at ${site.replace(/;/, ` (${at[2]});`)}` : `${e.message}: ${site}`;
  }

  /** Turn a Fault into a located report. */
  report(e: Fault, current: Warp | undefined): FaultReport {
    const extra = e as Fault & { warp?: Warp; pc?: number };
    const w = extra.warp ?? current;
    const fnName = w ? w.frame.fn.name : this.kernel.name;
    const pc = extra.pc ?? (w ? w.pc : 0);
    const prog = w ? w.frame.fn.prog : this.kernel;
    const lane = e.lane >= 0 ? e.lane : w ? firstLane(w.mask || w.validMask) : 0;
    let block: [number, number, number] | undefined;
    let thread: [number, number, number] | undefined;
    if (w) {
      block = [...w.cta.ctaid] as [number, number, number];
      thread = coordsOf(w.tidBase + lane, this.launch.block);
    }
    const fileIdx = prog.locFile[pc] ?? -1;
    const file = fileIdx >= 0 ? this.program.files.get(fileIdx) : undefined;
    const line = prog.locLine[pc] ?? 0;
    const ins = prog.instrs[pc];
    const ptx = ins ? ptxText(this.program.module.source, ins.src.span) : '';
    const callers: FaultReport['callers'] = [];
    if (w) {
      for (let i = w.frames.length - 1; i > 0; i--) {
        const callPc = w.frames[i]!.callPc;
        const caller = w.frames[i - 1]!.fn.prog;
        const fi = caller.locFile[callPc] ?? -1;
        callers.push({ function: caller.name, file: fi >= 0 ? this.program.files.get(fi) : undefined, line: caller.locLine[callPc] ?? 0, pc: callPc });
      }
    }
    return {
      kind: e.kind, message: this.locateAccess(e), block, thread, warp: w ? w.tidBase / 32 : -1, lane, function: fnName, pc, ptx,
      file, line, space: e.space, address: e.address, callers,
    };
  }
}

export function ptxText(source: string, span: { start: number; end: number }): string {
  return source.slice(span.start, span.end).replace(/\s+/g, ' ').trim();
}

/** The lane a fault is reported for: the first of `m` (lane 0 when none). */
function firstLane(m: number): number {
  return Math.max(0, lowestLane(m));
}

function laneFault(f: Fault, lane: number): Fault {
  if (f.lane < 0) f.lane = lane;
  return f;
}

function guardMask(i32: Int32Array, base: number, m: number, neg: boolean): number {
  let r = 0;
  for (let l = 0; l < 32; l++) if (((m >>> l) & 1) && (i32[base + 2 * l] !== 0) !== neg) r |= 1 << l;
  return r;
}

/** Scratch for copyValue: calls are frequent in -G code, so no allocation per call. */
const COPY_TMP = new Uint8Array(16);
const COPY_VIEW = new DataView(COPY_TMP.buffer);

type ValueLoc = { kind: 'reg'; base: number; size: number; frame: Frame } | { kind: 'mem'; off: number; size: number };

/** Copy a call argument / return value between registers and frame memory, per lane. */
function copyValue(w: Warp, lanes: number, from: ValueLoc, to: ValueLoc): void {
  const size = Math.min(from.size, to.size);
  const stride = w.localStride;
  const u8 = w.local.u8;
  const tmp = COPY_TMP;
  const tv = COPY_VIEW;
  for (let l = 0; l < 32; l++) {
    if (!((lanes >>> l) & 1)) continue;
    if (from.kind === 'mem') localRead(w, l, from.off, size);
    if (from.kind === 'mem' && to.kind === 'mem') {
      localWritten(w, l, to.off, size);
      u8.copyWithin(l * stride + to.off, l * stride + from.off, l * stride + from.off + size);
      continue;
    }
    tmp.fill(0);
    if (from.kind === 'reg') {
      tv.setUint32(0, from.frame.u32[from.base + 2 * l]!, true);
      tv.setUint32(4, from.frame.u32[from.base + 2 * l + 1]!, true);
    } else tmp.set(u8.subarray(l * stride + from.off, l * stride + from.off + Math.min(size, 16)));
    if (to.kind === 'reg') {
      to.frame.u32[to.base + 2 * l] = tv.getUint32(0, true);
      to.frame.u32[to.base + 2 * l + 1] = size > 4 ? tv.getUint32(4, true) : 0;
    } else {
      localWritten(w, l, to.off, size);
      u8.set(tmp.subarray(0, Math.min(size, 16)), l * stride + to.off);
    }
  }
}

function writeScalar(dv: DataView, off: number, type: string, value: number | bigint): void {
  const n = typeof value === 'bigint' ? Number(value) : value;
  switch (type) {
    case 'u8': case 's8': dv.setUint8(off, n & 255); break;
    case 'u16': case 's16': dv.setUint16(off, n & 0xffff, true); break;
    case 'f16': dv.setUint16(off, n, true); break;
    case 'u32': case 's32': dv.setUint32(off, n >>> 0, true); break;
    case 'f32': dv.setFloat32(off, n, true); break;
    case 'f64': dv.setFloat64(off, n, true); break;
    default: dv.setBigUint64(off, BigInt.asUintN(64, BigInt(typeof value === 'bigint' ? value : Math.trunc(n))), true);
  }
}

/** Write a variable's initializer into its bank. */
function writeInit(m: Machine, v: VarInfo, bank: Bank, base: number): void {
  const init = v.decl.init;
  if (!init) return;
  const dv = new DataView(bank.u8.buffer);
  const slots = initializerSlots(v.decl, m.program.structs, Math.max(v.size, 1));
  let k = 0;
  const put = (i: NonNullable<typeof init>): void => {
    if (i.kind === 'list') { for (const x of i.items) put(x); return; }
    const slot = slots[k++];
    if (slot === undefined || slot.off + (typeSize(slot.type) || 1) > Math.max(v.size, 1)) return;
    const off = base + slot.off;
    const t = slot.type;
    const elem = typeSize(t) || 1;
    if (i.kind === 'int') {
      if (t === 'f32') dv.setFloat32(off, Number(i.value), true);
      else if (t === 'f64') dv.setFloat64(off, Number(i.value), true);
      else if (elem === 8) dv.setBigUint64(off, BigInt.asUintN(64, i.value), true);
      else if (elem === 4) dv.setUint32(off, Number(BigInt.asUintN(32, i.value)), true);
      else if (elem === 2) dv.setUint16(off, Number(BigInt.asUintN(16, i.value)), true); // f16/bf16: a bit pattern
      else dv.setUint8(off, Number(BigInt.asUintN(8, i.value)));
    } else if (i.kind === 'float') {
      if (elem === 8) dv.setFloat64(off, i.value, true);
      else if (t === 'f16') dv.setUint16(off, fp.toF16(i.value, fp.RN), true);
      else if (t === 'bf16') dv.setUint16(off, fp.toBf16(i.value, fp.RN), true);
      else if (elem === 4) {
        if (i.f32Bits !== undefined) dv.setUint32(off, i.f32Bits, true);
        else dv.setFloat32(off, i.value, true);
      } else dv.setUint8(off, Math.trunc(i.value) & 255);
    } else {
      // address of a symbol (generic() or plain)
      const target = [...m.program.globals, ...m.program.shared].find((g) => g.name === i.name);
      let lo = 0, hi = 0;
      if (target) {
        const a = m.addressOf(target);
        if (a) {
          lo = a.lo; hi = a.hi;
          if (i.generic) hi = target.space === 'global' ? GLOBAL_HI : target.space === 'const' ? CONST_HI : target.space === 'shared' ? 0x7e00 : LOCAL_HI;
        }
      } else {
        const id = m.functionAddress(i.name);
        if (id >= 0) { lo = id; hi = FUNC_HI; }
      }
      const addr = ((BigInt(hi) << 32n) | BigInt(lo >>> 0)) + i.addend;
      if (elem === 8) dv.setBigUint64(off, BigInt.asUintN(64, addr), true);
      else dv.setUint32(off, Number(BigInt.asUintN(32, addr)), true);
    }
  };
  put(init);
}
