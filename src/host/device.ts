/**
 * The emulated device of `ptxdbg exec`: a whole program's device memory (one arena for all its
 * allocations and all its modules' variables), its modules (the PTX of each fatbinary the
 * program registers, parsed at first use) and its launches, each run by a fresh Machine in that
 * memory. Device pointers are the Machine's global-window addresses, so a pointer the program
 * holds is the pointer the kernel dereferences.
 */
import { childOrder } from '../exec/children.js';
import { Machine, type FaultReport, type RunOptions, type RunResult } from '../exec/machine.js';
import type { LaneFault, Warp } from '../exec/state.js';
import type { Probe } from '../exec/probe.js';
import { BANK_BYTES, CONST_HI, GLOBAL_BANKS, GLOBAL_HI, type Allocation, GlobalArena, type ResidentMemory } from '../exec/memory.js';
import { constLayout } from '../exec/machine/layout.js';
import type { Launch } from '../exec/launch.js';
import { checkLaunchLimits } from '../exec/limits.js';
import { SPIN_WINDOW } from '../exec/spin.js';
import { sharedUsedBy } from '../exec/reach.js';
import { loadPtx, renderDiagnostics, renderKernelProblems } from '../ptx/index.js';
import type { ParallelRun, Threads } from '../exec/parallel/pool.js';
import { LaunchSetupError, runToEnd, type RanToEnd } from '../exec/run-to-end.js';
import { linkPtx } from '../ptx/link.js';
import { DEVICE_LIMITS } from '../ptx/device-limits.js';
import { entryNames, entryOf, KernelProblems, type Program, type ProgFunction } from '../ptx/resolve.js';
import { FatbinError, parseFatbin } from './fatbin.js';
import { CUDA, CudaError } from './errors.js';
import type { InitCheck } from './initcheck.js';
import type { RawFrame } from './backtrace.js';
import { type AddressMode, ImageTable, parseFormat, texelBytes } from '../exec/texture/image.js';

/** Where device memory appears in the program's address space (the Machine's global window). */
export const WINDOW_BASE = BigInt(GLOBAL_HI) << 32n;
const CONST_BASE = BigInt(CONST_HI) << 32n;
/** Host-visible memory (managed, mapped host) is page-aligned so the program can map it there. */
const HOST_VISIBLE_ALIGN = 4096;
/** Warp-steps between checks that the program still waits for its launch (well under a second). */
const WATCH_SLICE = 1 << 16;
/** CUDA's default device heap for malloc() in kernels. */
const DEVICE_HEAP_BYTES = 8 << 20;

export type AllocKind = 'device' | 'managed' | 'host';

export interface DeviceModule {
  readonly id: number;
  /** The PTX nvcc embedded (the highest architecture when several). */
  readonly ptx: string;
  /** "app (module 2, compute_80)": how reports name it. */
  readonly label: string;
  program: Program | undefined;
  readonly resident: ResidentMemory;
}

/** One kernel parameter's place in the parameter buffer the program packs. */
export interface ParamSlot { offset: number; size: number }

export interface KernelInfo {
  params: ParamSlot[];
  paramBytes: number;
  staticShared: number;
}

export interface LaunchRequest {
  module: number;
  kernel: string;
  grid: [number, number, number];
  block: [number, number, number];
  sharedBytes: number;
  params: Uint8Array;
  cooperative: boolean;
  /** `ptxdbg sanitize`: the program's frames at the launch (src/host/backtrace.ts). */
  hostFrames?: RawFrame[];
  /** A grid launched from device code: its nesting depth (1 for a host launch's child). */
  depth?: number;
  /** ... and who launched it, in words (for reports). */
  launchedBy?: string;
}

/** A texture or surface object as the program's runtime describes it (cudart.c struct ImageMsg). */
export interface ImageRequest {
  base: bigint;
  surface: boolean;
  kind: number; bits: number; channels: number;
  dims: number; width: number; height: number; depth: number; layers: number; cube: boolean; rowPitch: number;
  address: [number, number, number]; filter: number; normalized: boolean; readMode: number;
  border: [number, number, number, number];
}

const ADDRESS_MODES: readonly AddressMode[] = ['wrap', 'clamp', 'mirror', 'border'];

/**
 * The device memory `exec` provides by default: an A100's 40 GiB, committed in host memory only
 * where the program touches it (banks of 4 GiB, src/exec/arena.ts); `--device-memory` sets up to
 * MAX_PROGRAM_DEVICE_BYTES, an A100 80GB's.
 */
export const DEFAULT_DEVICE_BYTES = 40 * 2 ** 30;
export const MAX_PROGRAM_DEVICE_BYTES = GLOBAL_BANKS * BANK_BYTES;
/** Managed and mapped host memory is shared with the program page by page (mapped.ts), in bank 0 only. */
const HOST_VISIBLE_LIMIT = BANK_BYTES;

export class Device {
  readonly arena = new GlobalArena(1 << 20);
  /** Texture and surface objects the program created; their handles are valid in every launch. */
  readonly images = new ImageTable();
  /** The program's runtime has said hello (it loaded the ptxdbg runtime). */
  connected = false;
  /**
   * True once the program is gone (killed, or exited from another thread): a launch checks it
   * between slices of its run and stops, since no one waits for its result. Unset: never checked.
   */
  programGone: (() => boolean) | undefined;
  /** `sanitize --tool initcheck`: which device bytes have been written (set before the program runs). */
  initCheck: InitCheck | undefined;
  /**
   * Pages [first, last] of device memory had their dirty flags cleared by host-visible memory's
   * syncing (mapped.ts): a whole-program recording (recording.ts ImageTaker) still counts them
   * as changed.
   */
  onDirtyTaken: ((first: number, last: number) => void) | undefined;
  /**
   * Why the program's memory must stay in bank 0 (its first 4 GiB), if it must: a whole-program
   * recording images bank 0 only (recording.ts). A cudaMalloc past it is then refused, saying so.
   */
  firstBankOnly: string | undefined;
  /** Called when the program resets the device, before its memory goes (leak checking). */
  beforeReset: (() => void) | undefined;
  readonly modules: DeviceModule[] = [];
  private readonly kinds = new Map<Allocation, AllocKind>();
  private nextName = 1;
  /** Launches served so far, as the launch handler counts them (a freed allocation is named by when it was freed). */
  launches = 0;

  /** `capacity`: the device's memory in bytes, what totalGlobalMem and cudaMemGetInfo report (at most MAX_PROGRAM_DEVICE_BYTES). */
  constructor(readonly capacity = DEFAULT_DEVICE_BYTES) {
    this.arena.reserveHeapAt(this.arena.extent, DEVICE_HEAP_BYTES, 0);
  }

  // ---- modules --------------------------------------------------------------------------------

  /** Register a fatbinary: its PTX becomes a module (parsed at first use). */
  addModule(fatbin: Uint8Array, app: string): number {
    let entries;
    try {
      entries = parseFatbin(fatbin).filter((e) => e.kind === 'ptx');
    } catch (e) {
      if (e instanceof FatbinError) throw new CudaError(CUDA.invalidKernelImage, `${app}: ${e.message}`);
      throw e;
    }
    if (entries.length === 0) throw new CudaError(CUDA.noKernelImage, `${app}: a fatbinary holds no PTX (only cubins); rebuild with -arch=sm_80 or -gencode arch=compute_80,code=compute_80 so ptxdbg can run its kernels`);
    // one blob per translation unit: several (an -rdc program's) are linked as nvlink would
    const blobs = [...new Set(entries.map((e) => e.blob))];
    const best = blobs.map((b) => entries.filter((e) => e.blob === b).reduce((a, e) => (e.arch > a.arch ? e : a)));
    const id = this.modules.length;
    const arch = Math.min(...best.map((e) => e.arch));
    const label = `${app} (module ${id}, compute_${arch}${best.length > 1 ? `, ${best.length} translation units linked` : ''})`;
    let ptx: string;
    if (best.length === 1) ptx = new TextDecoder().decode(best[0]!.data);
    else {
      const linked = linkPtx(best.map((e, i) => ({ path: `${app}:unit${i + 1}.ptx`, text: new TextDecoder().decode(e.data) })));
      if (linked.text === undefined) throw new CudaError(CUDA.invalidPtx, `${label}: the translation units do not link:\n${linked.errors.join('\n')}`);
      ptx = linked.text;
    }
    this.modules.push({
      id, ptx, label,
      program: undefined, resident: { arena: this.arena, globals: new Map(), constBank: undefined, images: this.images },
    });
    return id;
  }

  program(id: number): Program {
    const m = this.modules[id];
    if (!m) throw new CudaError(CUDA.invalidResourceHandle, `no module ${id}`);
    if (!m.program) {
      const loaded = loadPtx(m.ptx, m.label, { lazy: true });
      if (!loaded.program) throw new CudaError(CUDA.invalidPtx, `the PTX of ${m.label} does not load:\n${renderDiagnostics(loaded)}`);
      m.program = loaded.program;
    }
    return m.program;
  }

  private entry(module: number, kernel: string): ProgFunction {
    const program = this.program(module);
    let f: ProgFunction | undefined;
    try {
      f = entryOf(program, kernel);
    } catch (e) {
      if (e instanceof KernelProblems) throw new CudaError(CUDA.invalidPtx, `the code of kernel ${kernel} in ${this.modules[module]!.label} does not load:\n${renderKernelProblems(program, e)}`);
      throw e;
    }
    if (!f) throw new CudaError(CUDA.invalidDeviceFunction, `no kernel ${kernel} in ${this.modules[module]!.label}`);
    return f;
  }

  kernelInfo(module: number, kernel: string): KernelInfo {
    const f = this.entry(module, kernel);
    const params = f.params.map((p) => ({ offset: p.frameOffset, size: p.size }));
    let paramBytes = 0;
    for (const p of params) paramBytes = Math.max(paramBytes, p.offset + p.size);
    // the static shared memory of this kernel and its callees (a module's other kernels have their own)
    const used = sharedUsedBy(this.program(module), kernel);
    let staticShared = 0;
    for (const v of this.program(module).shared) {
      if (!used.has(v) || v.decl.linkage === 'extern' || v.size === 0) continue;
      staticShared = Math.ceil(staticShared / Math.max(1, v.align)) * Math.max(1, v.align) + v.size;
    }
    return { params, paramBytes, staticShared };
  }

  /**
   * A module variable's device address and size: a .global one in the arena (placed at the
   * module's first use, initialized), a .const one in the module's constant bank.
   */
  symbol(module: number, name: string): { address: bigint; size: number } {
    const program = this.program(module);
    const v = program.globals.find((g) => g.name === name);
    if (!v) throw new CudaError(CUDA.invalidSymbol, `no device variable ${name} in ${this.modules[module]!.label}`);
    this.placeModule(module);
    const res = this.modules[module]!.resident;
    if (v.space === 'const') {
      const off = constLayout(program).offsets.get(v)!;
      return { address: CONST_BASE | (BigInt(module) << 24n) | BigInt(off), size: v.size };
    }
    return { address: WINDOW_BASE + BigInt(res.globals.get(name)!), size: v.size };
  }

  /** Place the module's variables (a Machine lays them out; no kernel runs). */
  placeModule(module: number): void {
    const m = this.modules[module]!;
    if (m.resident.constBank) return;
    const program = this.program(module);
    const first = entryNames(program)[0];
    if (first === undefined) throw new CudaError(CUDA.invalidSymbol, `${m.label} has no kernels, so its variables cannot be placed`);
    const entry = this.entry(module, first);
    const args = entry.params.map((p) => ({ kind: 'bytes' as const, name: p.name, bytes: new Uint8Array(p.size) }));
    new Machine(program, { kernel: entry.name, grid: [1, 1, 1], block: [1, 1, 1], sharedBytes: 0, args, resident: m.resident }).release();
  }

  // ---- memory ---------------------------------------------------------------------------------

  /**
   * cudaMalloc and friends. A size of 0 gets the null pointer and no allocation (what
   * cudaMalloc answers; cudaFree(NULL) is a no-op); a size the device cannot hold is
   * cudaErrorMemoryAllocation, whatever its value (a size_t may be up to 2^64-1).
   */
  malloc(size: number | bigint, kind: AllocKind): bigint {
    if (BigInt(size) < 0n) throw new CudaError(CUDA.invalidValue, `a size of ${size} bytes`);
    if (BigInt(size) === 0n && kind === 'device') return 0n;
    const free = this.arena.available(this.capacity);
    if (BigInt(size) > BigInt(free)) throw new CudaError(CUDA.memoryAllocation, `out of device memory allocating ${size} bytes (the device has ${this.capacity} bytes, ${free} free)`);
    const n = Number(size);
    const align = kind === 'device' ? 256 : HOST_VISIBLE_ALIGN;
    const span = kind === 'device' ? n : Math.ceil(Math.max(n, 1) / HOST_VISIBLE_ALIGN) * HOST_VISIBLE_ALIGN;
    // a bank is 4 GiB (a typed array's most), and one allocation must lie in one bank
    if (span + 256 > BANK_BYTES) throw new CudaError(CUDA.memoryAllocation, `${size} bytes in one allocation: ptxdbg cannot emulate a single allocation over 4 GiB (the device has ${this.capacity} bytes, ${free} free; allocate it in pieces)`);
    const limit = kind === 'device' && this.firstBankOnly === undefined ? this.capacity : Math.min(this.capacity, HOST_VISIBLE_LIMIT);
    let a;
    try {
      a = this.arena.allocateBlock(span, `${kind === 'device' ? 'cudaMalloc' : kind === 'managed' ? 'cudaMallocManaged' : 'cudaMallocHost'} #${this.nextName++}`, 'buffer', align, limit);
    } catch (e) {
      // growing the arena reserves (not commits) host memory; a host that refuses even that
      if (!(e instanceof RangeError)) throw e;
      throw new CudaError(CUDA.memoryAllocation, `out of device memory allocating ${size} bytes: the host refused to reserve address space for it (${e.message})`);
    }
    // free bytes, but not in one piece (gaps between live allocations)
    if (!a && limit < this.capacity) {
      const why = kind === 'device' ? `${this.firstBankOnly} keeps device memory in its first 4 GiB` : 'managed and mapped host memory are in the first 4 GiB of device memory';
      throw new CudaError(CUDA.memoryAllocation, `out of device memory allocating ${size} bytes: ${why} (ptxdbg's limit, not the device's ${this.capacity} bytes)`);
    }
    if (!a) throw new CudaError(CUDA.memoryAllocation, `out of device memory allocating ${size} bytes: ${free} bytes are free, but no ${size} of them in one piece`);
    // cudaMalloc memory is not zeroed on a GPU, but a reused span would leak old values into a
    // new allocation and make runs depend on history; zero it (what a fresh GPU page holds),
    // writing only pages that were ever written, so untouched memory costs the host nothing
    this.arena.zero(a.base, span);
    // managed and host memory is the program's own memory: it counts as written
    if (kind === 'device') this.initCheck?.uninitialized(a.base, span);
    else this.initCheck?.initialized(a.base, span);
    this.kinds.set(a, kind);
    return WINDOW_BASE + BigInt(a.base);
  }

  /** cudaMemGetInfo: free and total bytes of device memory. */
  memInfo(): { free: number; total: number } {
    return { free: Math.min(this.capacity, this.arena.available(this.capacity)), total: this.capacity };
  }

  free(ptr: bigint): void {
    if (ptr === 0n) return;
    const a = this.allocationAt(ptr);
    if (!a || WINDOW_BASE + BigInt(a.base) !== ptr) {
      const gone = this.freedAllocationAt(ptr);
      const why = gone && WINDOW_BASE + BigInt(gone.base) === ptr ? `${gone.name}, which was freed already (${gone.freedBy})` : 'which is not the start of a live allocation';
      throw new CudaError(CUDA.invalidValue, `cudaFree of 0x${ptr.toString(16)}, ${why}`);
    }
    this.kinds.delete(a);
    this.arena.release(a);
    a.freedBy = this.launches === 0 ? 'by cudaFree before the first launch' : `by cudaFree after launch ${this.launches}`;
  }

  /** The freed allocation that held `ptr`, while its span is quarantined (see GlobalArena.freedAt). */
  freedAllocationAt(ptr: bigint): Allocation | undefined {
    const off = ptr - WINDOW_BASE;
    return off >= 0n && off < BigInt(MAX_PROGRAM_DEVICE_BYTES) ? this.arena.freedAt(Number(off)) : undefined;
  }

  kindOf(a: Allocation): AllocKind | undefined { return this.kinds.get(a); }

  allocationAt(ptr: bigint): Allocation | undefined {
    const off = ptr - WINDOW_BASE;
    if (off < 0n || off >= BigInt(MAX_PROGRAM_DEVICE_BYTES)) return undefined;
    const id = this.arena.checkAt(Number(off), 1);
    return id < 0 ? undefined : this.arena.allocs[id];
  }

  /** Live program allocations (cudaMalloc, managed, host), in address order. */
  allocations(): Allocation[] {
    return [...this.kinds.keys()].filter((a) => !a.freed).sort((a, b) => a.base - b.base);
  }

  /** The bytes [ptr, ptr+n) of device memory, or a CudaError naming what is wrong. */
  view(ptr: bigint, n: number): Uint8Array {
    if (n === 0) return new Uint8Array(0);
    if ((ptr >> 32n) === BigInt(CONST_HI)) {
      const module = Number((ptr >> 24n) & 0xffn);
      const off = Number(ptr & 0xffffffn);
      const m = this.modules[module];
      if (!m) throw new CudaError(CUDA.invalidValue, `0x${ptr.toString(16)} is not a device address`);
      this.placeModule(module);
      const bank = m.resident.constBank;
      if (!bank || off + n > bank.size) throw new CudaError(CUDA.invalidValue, `${n} bytes at 0x${ptr.toString(16)} run past the module's constant memory`);
      return bank.u8.subarray(off, off + n);
    }
    const off = ptr - WINDOW_BASE;
    const inDevice = off >= 0n && off < BigInt(MAX_PROGRAM_DEVICE_BYTES);
    if (!inDevice || this.arena.checkAt(Number(off), n) < 0) {
      const a = inDevice ? this.arena.allocationNear(Number(off)) : undefined;
      const gone = this.freedAllocationAt(ptr);
      const near = gone ? `; they are in ${gone.name} (${gone.size} bytes), freed ${gone.freedBy ?? ''}`
        : a && !a.freed ? `; the nearest allocation is ${a.name} at 0x${(WINDOW_BASE + BigInt(a.base)).toString(16)} (${a.size} bytes)` : '';
      throw new CudaError(CUDA.invalidValue, `${n} bytes at 0x${ptr.toString(16)} are not inside one device allocation${near}`);
    }
    return this.arena.bytes(Number(off), n);
  }

  write(ptr: bigint, bytes: Uint8Array): void { this.view(ptr, bytes.length).set(bytes); this.written(ptr, bytes.length); }

  read(ptr: bigint, n: number): Uint8Array { return this.view(ptr, n); }

  copy(dst: bigint, src: bigint, n: number): void { this.view(dst, n).set(this.view(src, n).slice()); this.written(dst, n); }

  set(dst: bigint, value: number, n: number): void { this.view(dst, n).fill(value & 255); this.written(dst, n); }

  /** Bytes [ptr, ptr+n) were written from outside a kernel (initcheck counts them initialized). */
  written(ptr: bigint, n: number): void {
    const off = Number(ptr - WINDOW_BASE);
    if (off < 0 || off >= MAX_PROGRAM_DEVICE_BYTES) return;
    this.arena.touch(off, n);
    this.initCheck?.initialized(off, n);
  }

  /** cudaDeviceReset: every allocation is released; modules keep their code, variables restart. */
  reset(): void {
    this.beforeReset?.();
    for (const a of this.allocations()) this.arena.release(a);
    this.kinds.clear();
  }

  /** cudaCreateTextureObject / cudaCreateSurfaceObject: an image over device memory; its handle. */
  createImage(r: ImageRequest): bigint {
    const kindName = r.kind === 2 ? (r.bits === 16 ? 'half' : r.bits === 32 ? 'float' : '') : `${r.kind === 0 ? 'u' : ''}${r.bits === 8 ? 'char' : r.bits === 16 ? 'short' : r.bits === 32 ? 'int' : ''}`;
    const format = parseFormat(`${kindName}${r.channels > 1 ? r.channels : ''}`);
    if (!format || ![1, 2, 4].includes(r.channels)) throw new CudaError(CUDA.invalidValue, `a ${r.bits}-bit ${r.channels}-channel texel format ptxdbg's texture unit does not have`);
    const dims = r.dims === 1 || r.dims === 2 || r.dims === 3 ? r.dims : undefined;
    if (!dims || r.width < 1 || r.height < 1 || r.depth < 1 || r.layers < 1) throw new CudaError(CUDA.invalidValue, `an image of ${r.width}x${r.height}x${r.depth} (${r.layers} layers)`);
    const pitch = r.rowPitch || r.width * texelBytes(format);
    if (pitch < r.width * texelBytes(format)) throw new CudaError(CUDA.invalidValue, `a row pitch of ${pitch} bytes is less than a row of ${r.width} texels`);
    const bytes = pitch * r.height * r.depth * r.layers * (r.cube ? 6 : 1);
    this.view(r.base, bytes); // the texels must lie in one allocation
    // the texture unit reads bank 0 (texture/compile.ts)
    if (r.base - WINDOW_BASE >= BigInt(BANK_BYTES)) throw new CudaError(CUDA.invalidValue, `an image at 0x${r.base.toString(16)}: ptxdbg's texture unit reads only the first 4 GiB of device memory yet; allocate the image's memory first`);
    const mode = (m: number): AddressMode => ADDRESS_MODES[m] ?? 'clamp';
    return this.images.add({
      kind: r.surface ? 'surface' : 'texture', format, dims, width: r.width, height: r.height, depth: r.depth, layers: r.layers, cube: r.cube,
      sampler: {
        address: [mode(r.address[0]), mode(r.address[1]), mode(r.address[2])], filter: r.filter === 1 ? 'linear' : 'point',
        normalized: r.normalized, readMode: r.readMode === 1 ? 'normalizedFloat' : 'element', border: r.border,
      },
      name: `${r.surface ? 'surface' : 'texture'} #${this.images.images.length + 1}`,
      base: Number(r.base - WINDOW_BASE),
      ...(r.rowPitch ? { rowPitch: pitch } : {}),
    });
  }

  // ---- launches -------------------------------------------------------------------------------

  /** The Launch of a request: raw parameter bytes, in this device's memory. */
  launchOf(r: LaunchRequest): { program: Program; launch: Launch } {
    const program = this.program(r.module);
    const f = this.entry(r.module, r.kernel);
    const info = this.kernelInfo(r.module, r.kernel);
    if (r.params.length < info.paramBytes) throw new CudaError(CUDA.invalidValue, `${r.kernel}: ${r.params.length} bytes of parameters, the kernel takes ${info.paramBytes}`);
    for (const d of [...r.grid, ...r.block]) if (!Number.isInteger(d) || d < 1) throw new CudaError(CUDA.invalidConfiguration, `${r.kernel}: invalid configuration grid (${r.grid.join(',')}) block (${r.block.join(',')})`);
    const threads = r.block[0] * r.block[1] * r.block[2];
    const L = DEVICE_LIMITS;
    if (threads > L.threadsPerBlock || r.block[0] > L.blockDim[0] || r.block[1] > L.blockDim[1] || r.block[2] > L.blockDim[2]) throw new CudaError(CUDA.invalidConfiguration, `${r.kernel}: invalid configuration: block (${r.block.join(',')}) is ${threads} threads (at most 1024, and 1024x1024x64 per dimension)`);
    if (r.grid[0] > L.gridDim[0] || r.grid[1] > L.gridDim[1] || r.grid[2] > L.gridDim[2]) throw new CudaError(CUDA.invalidConfiguration, `${r.kernel}: grid (${r.grid.join(',')}) exceeds the device's maximum grid size`);
    try {
      checkLaunchLimits(f, r.block);
    } catch (e) {
      throw new CudaError(CUDA.invalidConfiguration, `${r.kernel}: ${(e as Error).message}`);
    }
    // a cooperative grid must be resident at once: 32 blocks on each of the 8 emulated SMs at most
    if (r.cooperative && r.grid[0] * r.grid[1] * r.grid[2] > 256) throw new CudaError(CUDA.cooperativeLaunchTooLarge, `${r.kernel}: a cooperative launch of ${r.grid[0] * r.grid[1] * r.grid[2]} blocks is more than can be resident at once (256)`);
    if (r.sharedBytes > L.sharedPerBlock) throw new CudaError(CUDA.invalidConfiguration, `${r.kernel}: ${r.sharedBytes} bytes of dynamic shared memory (the device has 227 KiB per block)`);
    const args = info.params.map((p, i) => ({ kind: 'bytes' as const, name: f.params[i]!.name, bytes: r.params.slice(p.offset, p.offset + p.size) }));
    return {
      program,
      launch: {
        kernel: r.kernel, grid: r.grid, block: r.block, sharedBytes: r.sharedBytes, args, resident: this.modules[r.module]!.resident,
        ...(r.cooperative ? { cooperative: true } : {}), ...(r.depth ? { depth: r.depth } : {}),
      },
    };
  }

  /**
   * The launches of the grids `parent` (a launch of module `module`) launched from device code,
   * in the order they run (src/exec/children.ts); their parameter buffers are released.
   */
  childRequests(parent: Machine, module: number): LaunchRequest[] {
    return childOrder(parent).map((c) => {
      parent.arena.free(c.buffer);
      return {
        module, kernel: c.kernel, grid: c.grid, block: c.block, sharedBytes: c.sharedBytes, params: c.params, cooperative: false,
        depth: (parent.launch.depth ?? 0) + 1, launchedBy: `block (${c.by.block.join(',')}) thread (${c.by.thread.join(',')})`,
      };
    });
  }

  /**
   * Advance `m` in slices up to its spin-observing window (runObservingSpins runs the rest) while
   * the program still waits for it; a CudaError when the program has gone. Public for the launches
   * that build their own machine (the race checker's, exec --races, racecheck, synccheck).
   */
  runWhileWaitedFor(m: Machine): void {
    const gone = this.programGone;
    if (!gone) return;
    const end = m.opts.maxSteps + 1 - SPIN_WINDOW;
    while (!m.finished && m.warpSteps < end) {
      m.advance(Math.min(end, m.warpSteps + WATCH_SLICE));
      if (!m.finished && gone()) throw new CudaError(CUDA.launchFailure, `stopped after ${m.warpSteps} warp-steps: the program has ended, no one waits for this launch`);
    }
  }

  /**
   * Run a launch to the end in this device's memory; on `threads` threads when it may
   * (src/exec/parallel/: not under initcheck, which observes every access).
   */
  run(r: LaunchRequest, opts: RunOptions, threads: Threads = 1, faultSink?: LaneFault[], probe?: Probe): { machine: Machine; result: RunResult; parallel?: ParallelRun; laneFaults?: FaultReport[] } {
    const { program, launch } = this.launchOf(r);
    const m = this.modules[r.module]!;
    let machine: Machine | undefined;
    let ran: RanToEnd;
    // sanitize: refused accesses are noted, reported before the machine's objects are reused
    let laneFaults: FaultReport[] | undefined;
    try {
      ran = runToEnd(program, launch, opts, {
        threads, source: { text: m.ptx, label: m.label }, ...(this.programGone ? { gone: this.programGone } : {}),
        attach: (made) => {
          // observers go on the first Machine only (a rerun after worker threads runs without them, as before)
          const first = machine === undefined;
          machine = made;
          if (!first) return;
          this.initCheck?.attach(made);
          if (faultSink) made.mem.faultSink = faultSink;
          if (probe) made.mem.probe = probe;
          return () => this.initCheck?.detach();
        },
        before: (made) => this.runWhileWaitedFor(made),
      });
      // each as its warp was then: its frames at the fault over the warp (block, thread ids)
      if (faultSink) laneFaults = faultSink.map((l) => ran.machine.report(Object.assign(l.fault, { pc: l.pc }), Object.create(l.warp, { frame: { value: l.frames[l.frames.length - 1] }, frames: { value: l.frames } }) as Warp));
    } catch (e) {
      // the launch was checked before (launchOf): its setup's own error, as it was thrown
      throw e instanceof LaunchSetupError ? e.cause : e;
    } finally {
      (machine as Machine | undefined)?.release();
    }
    const { parallel, result } = ran;
    return { machine: ran.machine, result, ...(parallel ? { parallel } : {}), ...(laneFaults ? { laneFaults } : {}) };
  }
}
