/** The Machine's public option, result and hook types (re-exported by src/exec/machine.ts). */
import type { Warp } from '../state.js';

export interface RunOptions {
  schedule: 'rr' | 'random';
  seed: number;
  maxSteps: number;
  /** CTAs resident at once (their warps interleave). */
  resident: number;
  heapBytes: number;
  /**
   * Run straight-line runs of instructions as compiled blocks (src/exec/block/); false: one
   * instruction at a time. Unset: on, unless PTXDBG_BLOCKS=0. The execution is the same.
   */
  blocks?: boolean;
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

/** Where the hot loop appends its step log (implemented by the trace recorder). */
export interface StepRecorder {
  /** The log chunk that holds step `step` (allocating it); also notes that warp `w` issues next. */
  chunkFor(step: number, w: Warp): Uint32Array;
  /** Word offset of step `step` in its chunk. */
  offsetOf(step: number): number;
}
