/**
 * A laid-out launch as worker threads receive it: the main thread's Machine lays memory out once
 * (buffers, .global variables, parameters, constants); a worker re-creates the same Program from
 * the same PTX text and takes that layout as it is, so compiled code sees the same addresses and
 * every load and store lands in the one shared global bank.
 */
import type { Machine, RunOptions } from '../machine.js';
import type { Launch } from '../launch.js';
import type { Program } from '../../ptx/resolve.js';
import { Bank, GlobalArena, type ArenaState } from '../memory.js';
import type { MemoryLayout } from '../machine/layout.js';
import { LaunchMemory } from '../state.js';
import { ImageTable, type ImageTableState } from '../texture/image.js';

/** Structured-clonable: what a worker needs besides the PTX text. */
export interface LaunchImage {
  readonly launch: Pick<Launch, 'kernel' | 'grid' | 'block' | 'sharedBytes'>;
  readonly opts: RunOptions;
  readonly global: SharedArrayBuffer;
  readonly globalSize: number;
  /** Global memory's banks past the first (a program's past 4 GiB): [bank number, bytes, size]. */
  readonly far: readonly (readonly [number, SharedArrayBuffer, number])[];
  readonly allocator: ArenaState;
  readonly constBytes: Uint8Array;
  readonly paramBytes: Uint8Array;
  /** [index in program.globals, lo, hi] of each placed .global/.const variable. */
  readonly globals: readonly (readonly [number, number, number])[];
  /** [index in program.shared, offset] of each shared variable the kernel uses. */
  readonly shared: readonly (readonly [number, number])[];
  readonly sharedSize: number;
  readonly sharedUser: number;
  readonly reservedBase: number;
  readonly addr32: boolean;
  /** The striped locks of atomics (MemoryContext.atomicLocks), shared by every thread. */
  readonly atomicLocks: SharedArrayBuffer;
  /** Texture and surface objects and references (their texels are in the global bank). */
  readonly images: ImageTableState | undefined;
}

/** Stripes of the atomics' locks: a power of two (memops.ts masks with it). */
const LOCK_STRIPES = 1024;

/**
 * The image of `m`'s layout; moves its global bank into shared memory (Bank.share) and gives
 * `m`'s atomics the locks the workers' take too (until the caller clears mem.atomicLocks).
 */
export function captureImage(m: Machine): LaunchImage {
  const atomicLocks = new SharedArrayBuffer(4 * LOCK_STRIPES);
  m.mem.atomicLocks = new Int32Array(atomicLocks);
  const global = m.arena.bank.share();
  const far: [number, SharedArrayBuffer, number][] = [];
  m.arena.far.forEach((b, k) => { if (b) far.push([k, b.share(), b.size]); });
  const globals: [number, number, number][] = [];
  m.program.globals.forEach((v, i) => {
    const a = m.globalAddr.get(v);
    if (a) globals.push([i, a.lo, a.hi]);
  });
  const shared: [number, number][] = [];
  m.program.shared.forEach((v, i) => {
    const o = m.sharedOff.get(v);
    if (o !== undefined) shared.push([i, o]);
  });
  const { kernel, grid, block, sharedBytes } = m.launch;
  return {
    launch: { kernel, grid, block, sharedBytes },
    opts: m.opts,
    global,
    globalSize: m.arena.bank.size,
    far,
    allocator: m.arena.saveState(true),
    constBytes: m.constBank.u8.slice(),
    paramBytes: m.paramBank.u8.slice(),
    globals,
    shared,
    sharedSize: m.mem.sharedSize,
    sharedUser: m.mem.sharedUser,
    reservedBase: m.mem.reservedBase,
    addr32: m.mem.addr32 === true,
    atomicLocks,
    images: m.mem.images?.state(),
  };
}

/** The launch a worker's Machine runs (its arguments are already in the image's memory). */
export function imageLaunch(image: LaunchImage): Launch {
  return { ...image.launch, args: [] };
}

/** The Machine layout hook that installs `image` (see the Machine constructor). */
export function layoutFromImage(image: LaunchImage, program: Program): (m: Machine) => MemoryLayout {
  return (m) => {
    for (const [i, lo, hi] of image.globals) {
      const v = program.globals[i];
      if (v === undefined) throw new Error(`worker: the module has no global variable #${i}`);
      m.globalAddr.set(v, { lo, hi });
    }
    for (const [i, off] of image.shared) {
      const v = program.shared[i];
      if (v === undefined) throw new Error(`worker: the module has no shared variable #${i}`);
      m.sharedOff.set(v, off);
    }
    const arena = new GlobalArena(image.globalSize, image.global);
    arena.loadState(image.allocator, true); // the worker's own copy (posted to it)
    for (const [k, bytes, size] of image.far) arena.far[k] = new Bank(size, bytes);
    const constBank = bankOf(image.constBytes);
    const paramBank = bankOf(image.paramBytes);
    const mem = new LaunchMemory(arena, constBank, paramBank, image.sharedSize, image.sharedUser, image.reservedBase, image.addr32,
      image.images ? ImageTable.fromState(image.images) : undefined);
    mem.atomicLocks = new Int32Array(image.atomicLocks);
    return {
      arena, constBank, paramBank, sharedSize: image.sharedSize, reservedBase: image.reservedBase, mem,
      gridSync: 0, lastErrors: undefined,
    };
  };
}

function bankOf(bytes: Uint8Array): Bank {
  const b = new Bank(bytes.length);
  b.u8.set(bytes);
  return b;
}
