/**
 * What the engine needs of a whole program's recording (issue #25), as an interface: the engine
 * may not import src/host (the layering), so the host side implements this from its
 * ProgramRecording (src/host/program-source.ts) and hands it to `openProgramEngine`.
 *
 * Launches are numbered from 1 in program order (the numbers `exec --stats` and `--break K#N`
 * count by); host events and output sit between them. A launch is reopened from its start state
 * (`start`): the PTX of its module and a Launch whose resident memory is the device memory at
 * its start, recorded into a Session when the user first goes into it (program/timeline.ts).
 */
import type { Launch } from '../../exec/launch.js';
import type { Dim3 } from '../types.js';

/** One launch of the program, as the program's run saw it. */
export interface ProgramLaunch {
  /** Its number in the program, from 1. */
  readonly index: number;
  /** The kernel's PTX (mangled) name. */
  readonly kernel: string;
  /** The module (by id) it belongs to. */
  readonly module: number;
  readonly grid: Dim3;
  readonly block: Dim3;
  /** Where the host launched it: `app.cu:42 in main`; a child grid's is its parent's. */
  readonly site: string | undefined;
  /** Warp-steps it ran in the program's run (undefined when it did not run). */
  readonly steps: number | undefined;
  /** Whether it can be reopened (`start` gives its state); false: left unrecorded (--record, the budget). */
  readonly recorded: boolean;
  /** Launched from device code by this kernel (a child grid). */
  readonly launchedBy?: string | undefined;
  /**
   * Its fault in the program's run, in one line (`out-of-bounds global write at faulty.cu:18,
   * block (0,0,0) thread (5,0,0)`); a continue stops there.
   */
  readonly fault?: string | undefined;
}

/** A host call between launches (cudaMalloc, cudaMemcpy*, cudaMemset*, cudaFree, ...). */
export interface ProgramHostCall {
  readonly kind: 'host';
  /** Its place among the program's events (ProgramSource.events). */
  readonly event: number;
  /** The API function the program called (cudaMemcpy, cudaMemset, ...), or the operation's name. */
  readonly api: string;
  /** What it did to device memory: write (host to device), read (device to host), set, copy, malloc, free, ... */
  readonly op: string;
  /** `app.cu:42 in main`, when known. */
  readonly site: string | undefined;
  /** Device memory it wrote: [address, address + size). */
  readonly writes: readonly { readonly address: bigint; readonly size: number }[];
}

/** The program's own stdout/stderr, or a kernel's printf output, at its place. */
export interface ProgramOutput {
  readonly kind: 'output';
  readonly event: number;
  readonly stream: 'stdout' | 'stderr' | 'printf';
  readonly text: string;
}

/** A launch's place among the events. */
export interface ProgramLaunchEvent {
  readonly kind: 'launch';
  readonly event: number;
  /** Its number (ProgramLaunch.index). */
  readonly launch: number;
}

export type ProgramEventInfo = ProgramHostCall | ProgramOutput | ProgramLaunchEvent;

/** What reopening a launch needs: its module's PTX (and a name for it) and the launch with its start memory. */
export interface LaunchStart {
  /** A name for the module (the Session's ptxPath: shown, never read when ptxText is given). */
  readonly ptxPath: string;
  readonly ptxText: string;
  readonly launch: Launch;
}

export interface ProgramSource {
  /** The program and its arguments, as run. */
  readonly app: string;
  readonly args: readonly string[];
  /** Every launch, by index - 1. */
  readonly launches: readonly ProgramLaunch[];
  /** Host calls, launches and output in program order. */
  readonly events: readonly ProgramEventInfo[];
  /** The PTX text of each module, by module id (a breakpoint's function is looked for in it). */
  readonly modules: readonly { readonly label: string; readonly ptx: string }[];
  /** Launch `index`'s start state (undefined when it was not recorded). */
  start(index: number): LaunchStart | undefined;
  /**
   * Global memory [address, address + n) just before event `event` (events.length: at the end),
   * or undefined where the recording holds none (after recording stopped).
   */
  memoryAt(event: number, address: bigint, n: number): Uint8Array | undefined;
  /**
   * Write launch `index` as a bundle under `dir` (what `ptxdbg capture` writes for it:
   * `dir/0002-gather/` with kernel.ptx, launch.json, in/ and expected/), returning the bundle's
   * directory; undefined when the launch was not recorded.
   */
  capture?(index: number, dir: string): string | undefined;
  /** The program's exit code, once it ended. */
  readonly exitCode: number | undefined;
  /** Why recording stopped before the program's end, if it did. */
  readonly stopped: 'interrupted' | 'budget' | undefined;
}
