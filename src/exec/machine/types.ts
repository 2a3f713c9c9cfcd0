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
  /**
   * No one looks at registers during this run (plain `run` and `exec` launches: not recorded, not
   * a debugger's): blocks may leave registers that are dead after them unwritten (block/deadstores.ts).
   * Memory and everything the program computes are the same. Recording and probes turn it off.
   */
  deadStores?: boolean;
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

/**
 * Where the hot loop appends its step log (implemented by the trace recorder), as runs: a run is
 * consecutive steps of one turn of one warp at consecutive instructions with one mask (a block's
 * execution, a straight line stepped one at a time), 3 words: its first step (as an offset from
 * `runBase`), the global instruction index of that step and the warp's mask. A run's length is the
 * next run's offset less its own, so the hot loop writes one entry per block, not per step.
 */
export interface StepRecorder {
  /**
   * The run array into which the turn of warp `w` starting at step `step` appends, from run
   * `nrun`; also notes that warp `w` issues next. The turn logs no step at or past `runEnd`.
   */
  runsFor(step: number, w: Warp): Int32Array;
  /** Runs in the array runsFor returned (the turn writes it back when it ends). */
  nrun: number;
  /** The step that offset 0 of that array stands for. */
  runBase: number;
  /** Steps at and past this one go to another array (a turn stops before it). */
  runEnd: number;
}
