/**
 * The memory itself: a Bank (bank.ts) is one ArrayBuffer with aliasing typed-array views (v86's
 * habit), so an aligned access is a single indexed load; the GlobalArena (arena.ts) places
 * allocations in the global banks. The state spaces and the generic address map are in spaces.ts.
 * All are re-exported here: the one module the rest of the code imports memory from.
 */

export * from './spaces.js';
export * from './bank.js';
export * from './arena.js';
import type { ImageTable } from './texture/image.js';
import type { Allocation, GlobalArena } from './arena.js';
import type { Bank } from './bank.js';


/**
 * Device memory that outlives one launch: a whole program's (`ptxdbg exec`) or a captured
 * bundle's. A launch that names one runs in its arena: the module's .global variables are placed
 * there once (initialized at their first launch) and keep their values from launch to launch,
 * and its .const bank is the module's, written by the program between launches.
 */
export interface ResidentMemory {
  readonly arena: GlobalArena;
  /** Arena offset of each .global variable of the module, by name. */
  readonly globals: Map<string, number>;
  /** The module's constant bank, made at its first launch. */
  constBank: Bank | undefined;
  /** Texture and surface objects the program created (their handles outlive launches). */
  readonly images?: ImageTable;
  /** The grid-barrier workspace of its cooperative launches, made at the first. */
  gridSync?: Allocation;
  /** Regions a run reports as its outputs (`run --out`): a captured bundle's. */
  readonly outputs?: readonly Allocation[];
}

