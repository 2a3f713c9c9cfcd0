/**
 * The SIMT machine: lays out memory for a launch, creates CTAs and warps, and schedules warps.
 * This class holds the machine's state and its public API; the work is done by the modules of
 * src/exec/machine/, one job each:
 *   layout.ts     memory layout of the launch (arena, .const, shared, parameters, initializers)
 *   frames.ts     CTAs, warps and frames (special registers)
 *   scheduler.ts  which warp runs next, and for how long (resumable after any warp-step)
 *   run.ts        the hot loop: one warp's turn
 *   control.ts    control instructions (branches, calls, returns, exits, barriers, syncs, traps)
 *   divergence.ts the SIMT reconvergence stack (divergence, path switches, exits)
 *   calls.ts      calls and returns (argument copies, frame set-up)
 *   barriers.ts   CTA barriers and deadlock detection
 *   faults.ts     located fault reports
 */
import { entryOf, type Program, type ProgFunction, type VarInfo } from '../ptx/resolve.js';
import { compileFunction, type Layout } from './compile.js';
import type { CFunction } from './compiled.js';
import type { Fault } from './fault.js';
import type { Bank, GlobalArena, Allocation } from './memory.js';
import type { Cta, Frame, MemoryContext, Warp } from './state.js';
import type { ElemType, Launch } from './launch.js';
import type { ChildGrid, ParamBufferLaunch } from './children.js';
import { layoutMemory, type MemoryLayout } from './machine/layout.js';
import { makeCta, makeCtaShell, newFrame } from './machine/frames.js';
import { advance, prime, QUANTUM, SPIN_QUANTUM } from './machine/scheduler.js';
import { runWarp } from './machine/run.js';
import { report } from './machine/faults.js';
import { DEFAULT_RUN_OPTIONS, type FaultReport, type RunOptions, type RunResult, type StepRecorder } from './machine/types.js';

export { DEFAULT_RUN_OPTIONS, type FaultReport, type RunOptions, type RunResult, type RunStats, type StepRecorder } from './machine/types.js';
export { ptxText } from './machine/faults.js';

/**
 * Compiled functions shared by the Machines of one Program whose layouts agree (`ptxdbg exec`
 * makes a Machine per launch, and replays and tests make many): compiled code depends on the
 * function and on the answers of the Layout interface alone, addressOf (the globalAddr and
 * sharedOff maps) and functionAddress (funcNames), and the key is those answers in full.
 * globalBase, the other input (CFunction.gbase), follows from the program's functions too.
 */
const compiledByProgram = new WeakMap<Program, Map<string, Map<string, CFunction>>>();
const varIds = new WeakMap<VarInfo, number>();
let nextVarId = 0;

function sameLayoutCache(m: Machine): Map<string, CFunction> {
  const id = (v: VarInfo): number => {
    let n = varIds.get(v);
    if (n === undefined) { n = nextVarId++; varIds.set(v, n); }
    return n;
  };
  // a lazily resolved program gains functions (only ever more): their count fixes the numbering
  const parts: string[] = [m.funcNames.join('\0'), `${m.functions.length}`];
  for (const [v, a] of m.globalAddr) parts.push(`g${id(v)}:${a.lo}:${a.hi}`);
  for (const [v, o] of m.sharedOff) parts.push(`s${id(v)}:${o}`);
  const key = parts.join('\n');
  let byLayout = compiledByProgram.get(m.program);
  if (byLayout === undefined) { byLayout = new Map(); compiledByProgram.set(m.program, byLayout); }
  let fns = byLayout.get(key);
  if (fns === undefined) { fns = new Map(); byLayout.set(key, fns); }
  return fns;
}

export class Machine implements Layout {
  readonly arena: GlobalArena;
  readonly constBank: Bank;
  readonly paramBank: Bank;
  readonly mem: MemoryContext;
  /** The launch's buffers (and a program's outputs, surfaces as bytes): elements of `type`. */
  readonly buffers: { name: string; alloc: Allocation; type: ElemType; count: number }[] = [];
  /** Addresses of .global / .const variables (internal to src/exec/machine/). */
  readonly globalAddr = new Map<VarInfo, { lo: number; hi: number }>();
  /** Offsets of shared variables in the CTA's shared memory (internal). */
  readonly sharedOff = new Map<VarInfo, number>();
  private readonly compiled = new Map<string, CFunction>();
  private readonly funcIds = new Map<string, number>();
  readonly funcNames: string[] = [];
  /** The functions with instructions numbered (globalBase), in that order: those resolved when this Machine was made. */
  readonly functions: ProgFunction[] = [];
  /** Functions' instructions numbered consecutively (the trace's "global pc"). */
  readonly globalBase = new Map<string, number>();
  instructionCount = 0;
  /** Bytes of shared memory per CTA. */
  readonly sharedSize: number;
  /** Start of the reserved shared region (-1 when the kernel does not use one). */
  readonly reservedBase: number = -1;
  /** Arena offset of a cooperative launch's grid-barrier workspace (0: not cooperative). */
  readonly gridSync: number = 0;
  readonly kernel: ProgFunction;
  stdout = '';
  warpSteps = 0;
  threadInstructions = 0;
  /** xorshift state of the random schedule. */
  rng: number;
  /** Threads per CTA. */
  readonly nthreads: number;
  /** Child grids launched by this grid, by parameter buffer (src/exec/children.ts runs them). */
  readonly children = new Map<number, ChildGrid>();
  /**
   * Arena offset of the device runtime's per-thread last errors (a u32 per thread of the grid,
   * by grid-linear index; layout.ts), or 0 when the kernel cannot call it. In device memory so
   * that checkpoints restore it like any other state.
   */
  readonly lastErrors: number = 0;
  /** Functions known to reach a barrier, or not (machine/calls.ts). */
  readonly barrierCallees = new Map<string, boolean>();
  /** Launches described by cudaGetParameterBufferV2, by buffer, until cudaLaunchDeviceV2. */
  readonly paramBuffers = new Map<number, ParamBufferLaunch>();

  /**
   * A Machine for a grid this one launched (src/exec/children.ts runs them): same program and
   * options. The child-grid runner gets its machines here, so that it imports no Machine and the
   * modules of src/exec stay free of import cycles (cdp.ts runs awaited children through it).
   */
  spawn(launch: Launch): Machine {
    return new Machine(this.program, launch, this.opts);
  }

  /**
   * `layout` replaces the launch's own memory layout: a worker thread's Machine takes the one
   * the main thread made (src/exec/parallel/image.ts) instead of laying memory out again.
   */
  constructor(readonly program: Program, readonly launch: Launch, readonly opts: RunOptions = DEFAULT_RUN_OPTIONS, layout?: (m: Machine) => MemoryLayout) {
    const kernel = entryOf(program, launch.kernel); // a lazy program resolves the kernel's code now
    if (!kernel) throw new Error(`no .entry named '${launch.kernel}' in the module`);
    this.kernel = kernel;
    this.rng = (opts.seed >>> 0) || 0x9e3779b9;
    // function ids (pointer values) over every body, resolved or not, so they agree between the
    // kernels of a module; instructions are numbered over the resolved ones, in module order
    for (const decl of program.bodies) {
      const name = decl.name;
      this.funcIds.set(name, this.funcNames.length);
      this.funcNames.push(name);
      const f = program.functions.get(name);
      if (f === undefined) continue;
      this.functions.push(f);
      this.globalBase.set(name, this.instructionCount);
      this.instructionCount += f.instrs.length + 1;
    }
    for (const name of program.prototypes.keys()) { this.funcIds.set(name, this.funcNames.length); this.funcNames.push(name); }
    const lay = layout ? layout(this) : layoutMemory(this);
    this.arena = lay.arena;
    this.constBank = lay.constBank;
    this.paramBank = lay.paramBank;
    this.sharedSize = lay.sharedSize;
    this.reservedBase = lay.reservedBase;
    this.mem = lay.mem;
    this.gridSync = lay.gridSync;
    const [bx, by, bz] = launch.block;
    this.nthreads = bx * by * bz;
    this.lastErrorBlock = lay.lastErrors;
    this.lastErrors = lay.lastErrors?.base ?? 0;
  }

  private readonly lastErrorBlock: Allocation | undefined;

  /** Give back what the launch took from memory that outlives it (resident memory). */
  release(): void {
    if (this.launch.resident && this.lastErrorBlock) this.arena.release(this.lastErrorBlock);
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

  /** The module's `.target` list (Layout: instruction selection refuses what it lacks). */
  get target(): readonly string[] {
    return this.program.module.target;
  }

  /** The module's `.version` (Layout). */
  get version(): string | undefined {
    return this.program.module.version;
  }

  fn(name: string): CFunction | undefined {
    let c = this.compiled.get(name);
    if (c) return c;
    const p = this.program.functions.get(name);
    // a body resolved after this Machine was made (another kernel's) has no numbered instructions here
    if (!p || !this.globalBase.has(name)) return undefined;
    const same = this.sameLayout ??= sameLayoutCache(this);
    c = same.get(name);
    if (c === undefined) {
      c = compileFunction(p, this);
      c.gbase = this.globalBase.get(name)!;
      same.set(name, c);
    }
    this.compiled.set(name, c);
    return c;
  }

  /** Compiled functions of the Machines of this program with this layout (see sameLayoutCache). */
  private sameLayout: Map<string, CFunction> | undefined = undefined;

  // ---- launch (machine/frames.ts) -------------------------------------------------------------------

  /** A CTA with its shared memory but no warps (checkpoint restore fills them in). */
  makeCtaShell(id: number): Cta { return makeCtaShell(this, id); }

  makeCta(id: number): Cta { return makeCta(this, id); }

  /** A frame for `fn` on warp `w`, from the warp's pool; special registers filled in. */
  newFrame(w: Warp, fn: CFunction): Frame { return newFrame(this, w, fn); }

  // ---- scheduler state (machine/scheduler.ts) --------------------------------------------------------

  /** CTAs not yet started (linear ids from here on). */
  nextCta = 0;
  /**
   * Set when worker threads share this grid: element 0 is the next CTA id to start, taken with
   * Atomics.add by each thread's Machine (src/exec/parallel/). Undefined: this Machine runs all.
   */
  ctaClaims: Int32Array | undefined = undefined;
  /** CTAs this Machine took from ctaClaims. */
  ctasClaimed = 0;
  /** Resident CTAs in start order. */
  resident: Cta[] = [];
  /** Finished CTAs that makeCta reuses (not machine state: a reused CTA is reset to a new one). */
  readonly ctaPool: Cta[] = [];
  /** Warps of the current round, the next one to start, and the warp in its turn (if any). */
  round: Warp[] = [];
  roundPos = 0;
  cur: Warp | undefined = undefined;
  quantumLeft = 0;
  /** The run ended: every CTA finished or a fault stopped it. */
  finished = false;
  fault: FaultReport | undefined = undefined;
  /**
   * brkpt instructions executed with active lanes, and where the first was (as a fault report
   * locates it): the debugger stops there; a run without one goes on and says so (cli run).
   */
  brkptCount = 0;
  firstBrkpt: FaultReport | undefined = undefined;
  /** Step index of the instruction that faulted (-1 when the fault is not an instruction's). */
  faultStep = -1;
  /** When set, every issued warp-step is appended to this log (see src/trace/). */
  recorder: StepRecorder | undefined = undefined;
  /** Recording stops the scheduler at multiples of this many steps (checkpoints). */
  boundary = 0;
  /** Quantum of the current round (each warp of a round-robin round gets it afresh). */
  roundQuantum = QUANTUM;
  /** Backward-branch quantum of the path switch; varied per switch under --schedule random. */
  spinQuantum = SPIN_QUANTUM;

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
  advance(limit: number): void { advance(this, limit); }

  /**
   * Start the first CTAs and choose the first warp without executing anything, so that position 0
   * of a recording shows resident threads. The run is the same with or without it.
   */
  prime(): void { prime(this); }

  /** The hot loop (machine/run.ts): issue up to `budget` instructions of warp `w`. */
  runWarp(w: Warp, budget: number): boolean { return runWarp(this, w, budget); }

  /** Turn a Fault into a located report. */
  report(e: Fault, current: Warp | undefined): FaultReport { return report(this, e, current); }
}
