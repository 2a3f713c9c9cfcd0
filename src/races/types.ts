/**
 * The race checker's report model. `RaceReport` is the `ptxdbg races --json` contract (issue #7):
 * field names and value spellings here are what scripts parse, so change them only additively.
 */

import type { SharedSpace } from '../exec/memory.js';

export type HazardKind = 'RAW' | 'WAR' | 'WAW';
/** Where races happen: the spaces threads share (src/exec/memory.ts's MemorySpace subset). */
export type RaceSpace = SharedSpace;
export type AccessOp = 'read' | 'write' | 'atomic';
export type Dim3 = [number, number, number];

/** One side of a race: who accessed, where in the program, and when (trace step). */
export interface AccessReport {
  block: Dim3;
  thread: Dim3;
  op: AccessOp;
  /** Base name of the source file (`kernel.cu`), or null without line info. */
  file: string | null;
  line: number;
  /** PTX instruction index within `function`. */
  pc: number;
  /** Warp-step index of the access: the debugger's trace position before that step. */
  step: number;
  function: string;
  /** The PTX instruction text. */
  ptx: string;
  /** Full source path as given by `.file`. */
  path: string | null;
}

export interface RaceEntry {
  kind: HazardKind;
  space: RaceSpace;
  /** Address of the first conflicting byte in the state space (shared offset, or 64-bit global address). */
  address: number;
  /** Source-level variable and element via DWARF (`tile[3][17]`), null when unknown. */
  variable: string | null;
  /** Both threads are lanes of the same warp (a race only under independent thread scheduling). */
  intraWarp: boolean;
  /** Earlier access first (smaller step). */
  accesses: [AccessReport, AccessReport];
  /** PTX symbol and byte offset in it, when the address is in a declared variable. */
  symbol: string | null;
  symbolOffset: number | null;
  /** Launch buffer and element (`total[0]`) for global addresses in a launch buffer. */
  buffer: string | null;
  /** How many conflicting access pairs with this (kind, space, pc pair, intra-warp) were seen. */
  count: number;
  /** With --schedules: the seeds under which this race showed up. */
  seeds?: number[];
  /** The child grid it happened in (dynamic parallelism), named as it was launched. */
  grid?: string;
}

export type BarrierErrorKind = 'divergence' | 'deadlock';

export interface BarrierError {
  kind: BarrierErrorKind;
  block: Dim3;
  file: string | null;
  line: number;
  pc: number;
  function: string;
  ptx: string;
  message: string;
  seeds?: number[];
  /** The child grid it happened in (dynamic parallelism), named as it was launched. */
  grid?: string;
}

export interface ScheduleSummary {
  count: number;
  seeds: number[];
  /** Buffers or printf output differed between schedules. */
  outputsDiffer: boolean;
  /** Names of the buffers (and `stdout`) whose final contents differed. */
  differing: string[];
}

export interface RaceReport {
  races: RaceEntry[];
  benign: RaceEntry[];
  barrierErrors: BarrierError[];
  /** Distinct races beyond the report limit that were counted but not kept. */
  truncated: number;
  /** A fault other than a barrier deadlock ended the run (message), or null. */
  fault: string | null;
  schedules?: ScheduleSummary;
}
