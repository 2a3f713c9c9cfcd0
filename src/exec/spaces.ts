/**
 * The state spaces and the generic address map (memory.ts holds the memory itself).
 *
 * Every space is one ArrayBuffer with aliasing typed-array views (v86's habit), so an aligned
 * access is a single indexed load. Generic 64-bit addresses carry their space in the high word:
 *
 *   0x00007f00_xxxxxxxx  global  (the same value is the .global state-space address; past the
 *                                first 4 GiB, bank k of global memory has high word 0x7f00 + k)
 *   0x00007e00_xxxxxxxx  shared  (low word = .shared address of the issuing CTA)
 *   0x00007d00_xxxxxxxx  local   (low word = .local address of the issuing thread)
 *   0x00007c00_xxxxxxxx  const
 *   0x00007b00_xxxxxxxx  param   (kernel parameter bank)
 *
 * so `cvta` is a move of the high word and `isspacep` a compare. Null (0) is in no window.
 */

export const GLOBAL_HI = 0x7f00;
/** Global memory's 4 GiB banks at most (an 80 GiB device): high words GLOBAL_HI … GLOBAL_HI + 19. */
export const GLOBAL_BANKS = 20;
export const SHARED_HI = 0x7e00;
export const LOCAL_HI = 0x7d00;
/** High word of function "addresses" (`mov.u64 %rd, func` for indirect calls). */
export const FUNC_HI = 0x7a00;
export const CONST_HI = 0x7c00;
export const PARAM_HI = 0x7b00;

/** Param-space addresses at or above this are a thread's call-frame params (in its local stack). */
export const FRAME_PARAM_BASE = 0x80000000;

export const enum Space {
  Global = 0,
  Shared = 1,
  Local = 2,
  Const = 3,
  Param = 4,
  Generic = 5,
}

export const SPACE_NAMES = ['global', 'shared', 'local', 'const', 'param', 'generic'] as const;

// The one map between state spaces and generic windows, both directions; by enum here (the hot
// path) and by name below (the engine's src/engine/spaces.ts wraps these, it keeps no copy).

/** The generic window (high word) of a state space (generic: 0). */
export function windowOf(space: Space): number {
  switch (space) {
    case Space.Global: return GLOBAL_HI;
    case Space.Shared: return SHARED_HI;
    case Space.Local: return LOCAL_HI;
    case Space.Const: return CONST_HI;
    case Space.Param: return PARAM_HI;
    default: return 0;
  }
}

/** The state space whose window is `hi`, or -1. */
export function spaceOfWindow(hi: number): Space | -1 {
  switch (hi) {
    case GLOBAL_HI: return Space.Global;
    case SHARED_HI: return Space.Shared;
    case LOCAL_HI: return Space.Local;
    case CONST_HI: return Space.Const;
    case PARAM_HI: return Space.Param;
    // global memory's banks past the first (arena.ts BANK_BYTES)
    default: return hi > GLOBAL_HI && hi < GLOBAL_HI + GLOBAL_BANKS ? Space.Global : -1;
  }
}

/**
 * 32-bit generic addressing (.address_size 32, ISA 1.x): a generic address has no high word, so
 * the shared, local and const windows are the top byte of the 32-bit address (16 MiB each, past
 * any global arena address); everything else is global.
 */
export const WINDOW32_SHIFT = 24;
export function window32Of(space: Space): number {
  switch (space) {
    case Space.Shared: return 0xfe;
    case Space.Local: return 0xfd;
    case Space.Const: return 0xfc;
    default: return 0;
  }
}
export function spaceOfWindow32(lo: number): Space {
  switch (lo >>> WINDOW32_SHIFT) {
    case 0xfe: return Space.Shared;
    case 0xfd: return Space.Local;
    case 0xfc: return Space.Const;
    default: return Space.Global;
  }
}

/**
 * A memory space by name: the one type for it at every layer (the engine, the front ends and the
 * race checker take their subsets from it by Extract). `generic` is an address in the generic
 * windows; the others are the state spaces an address is in.
 */
export type MemorySpace = (typeof SPACE_NAMES)[number];
/** A state space proper (an address in one, not a generic address). */
export type WindowedSpace = Exclude<MemorySpace, 'generic'>;
/** The spaces a thread's data lives in and a watchpoint can watch. */
export type DataSpace = Extract<MemorySpace, 'global' | 'shared' | 'local'>;
/** The spaces two threads can share, hence race in. */
export type SharedSpace = Extract<MemorySpace, 'global' | 'shared'>;
/** The old name of MemorySpace (kept for the callers not yet moved to it). */
export type SpaceName = MemorySpace;

/** The window of a state space by name (generic: 0). */
export function windowOfName(name: WindowedSpace): number {
  return windowOf(SPACE_NAMES.indexOf(name) as Space);
}

/** The name of the state space whose window is `hi`, if any. */
export function spaceNameOfWindow(hi: number): WindowedSpace | undefined {
  const s = spaceOfWindow(hi);
  return s < 0 ? undefined : (SPACE_NAMES[s as Space] as WindowedSpace);
}
