/**
 * The debugger engine's vocabulary, shared by its front ends (TUI, batch mode, `races`).
 * Positions are warp-step counts: position p is the machine state after p warp-steps, and
 * "the current instruction" of a thread is the one it issues next.
 */
import type { Program } from '../ptx/resolve.js';
import type { MemorySpace } from '../exec/memory.js';

export type Dim3 = [number, number, number];

/** One frame of a thread's call stack, innermost first. */
export interface FrameInfo {
  readonly level: number;
  readonly function: string;
  /** Instruction index within the function (the call site for outer frames). */
  readonly pc: number;
  readonly file: string | undefined;
  readonly line: number;
  /** A function inlined into the frame's code (-lineinfo `.loc ... inlined_at`): no frame of its own in memory. */
  readonly inlined?: boolean;
}

/** What a thread is doing at the current position. */
export type LaneState = 'active' | 'inactive' | 'barrier' | 'exited' | 'not-started' | 'retired';

export interface Where {
  /** Current position and the number of recorded steps. */
  readonly step: number;
  readonly total: number;
  readonly block: Dim3;
  readonly thread: Dim3;
  /** Warp index within the block, and lane. */
  readonly warp: number;
  readonly lane: number;
  readonly state: LaneState;
  readonly function: string;
  readonly pc: number;
  /** PTX text of the instruction at pc. */
  readonly ptx: string;
  readonly file: string | undefined;
  readonly line: number;
  readonly frames: readonly FrameInfo[];
  /** Active mask of the focused warp (SIMT mask at its current instruction). */
  readonly activeMask: number;
}

export interface WarpInfo {
  readonly block: Dim3;
  readonly warp: number;
  readonly function: string;
  readonly pc: number;
  readonly file: string | undefined;
  readonly line: number;
  /** One entry per lane that exists. */
  readonly lanes: readonly LaneState[];
}

export interface BreakpointInfo {
  readonly id: number;
  /** As the user wrote it: `kernel.cu:12`, `*0x40`, `_Z3fooPi`, `ptx:120`. */
  readonly spec: string;
  enabled: boolean;
  readonly condition: { block?: Dim3; thread?: Dim3 } | undefined;
  /** Resolved (function, instruction) pairs. */
  readonly locations: readonly { function: string; pc: number; file: string | undefined; line: number }[];
  hits: number;
}

export type WatchKind = 'write' | 'read' | 'access';

export interface WatchpointInfo {
  readonly id: number;
  readonly expr: string;
  readonly kind: WatchKind;
  readonly space: 'global' | 'shared' | 'local';
  readonly address: number;
  readonly size: number;
  /** For shared: the block; for local: block and thread whose memory is watched. */
  readonly block: Dim3 | undefined;
  readonly thread: Dim3 | undefined;
  enabled: boolean;
  hits: number;
}

export type StopReason = 'step' | 'breakpoint' | 'watchpoint' | 'start' | 'end' | 'fault' | 'exited' | 'goto' | 'no-move';

/** What a stop hit, when it was more than a step: which breakpoint, watchpoint, race or fault. */
export type Hit =
  | { readonly kind: 'breakpoint'; readonly id: number }
  | { readonly kind: 'watchpoint'; readonly id: number; readonly access: 'read' | 'write' }
  | { readonly kind: 'race'; readonly race: number; readonly second: boolean }
  | { readonly kind: 'fault'; readonly message: string };

/** Result of a navigation command. */
export interface Stop {
  readonly reason: StopReason;
  /** gdb-like one-liner: "Breakpoint 1, kernel.cu:12", "Thread (3,0,0) has exited". */
  readonly message: string;
  /** The position after the move. */
  readonly step: number;
  readonly hit?: Hit | undefined;
}

export interface RegisterValue {
  /** PTX name: %r1, %rd2, %f3, %p1. */
  readonly name: string;
  /** PTX type of the register (.u32, .f32, .pred, ...). */
  readonly type: string;
  /** Raw bits (32-bit registers in the low word, predicates 0/1). */
  readonly bits: bigint;
  /** Changed by the focused warp's previous step. */
  readonly changed: boolean;
}

/** MemorySpace (src/exec/memory.ts), declared once there. */
export type SpaceName = MemorySpace;

/**
 * The focused thread's view of the machine at the current position: what `print` and
 * `info locals` evaluate against. Reading never changes the machine.
 */
export interface ThreadView {
  readonly program: Program;
  readonly block: Dim3;
  readonly thread: Dim3;
  /** The selected frame (0 = innermost): its function and instruction index. */
  readonly function: string;
  readonly pc: number;
  readonly frames: readonly FrameInfo[];
  /** Names of the selected frame's PTX registers (%r1...). */
  registerNames(): string[];
  /** Type of a register (u32, f32, pred, b64...), undefined if the function has none of that name. */
  registerType(name: string): string | undefined;
  /** Raw bits of a register of the focused thread in the selected frame. */
  readRegister(name: string): bigint | undefined;
  /** Special register (tid, ntid, ctaid, nctaid, laneid, warpid, ...) component value. */
  readSpecial(name: string, comp: number): number | undefined;
  /**
   * Read bytes as the focused thread would: shared of its block, local of itself; `address` is a
   * state-space address (or a generic one for 'generic'). undefined when unmapped/out of bounds.
   */
  readMemory(space: SpaceName, address: bigint, size: number): Uint8Array | undefined;
  /**
   * Address of a PTX symbol seen from the selected frame: module variables (global/const/shared),
   * kernel and function parameters, the local depot (`__local_depot0`).
   */
  symbolAddress(name: string): { space: SpaceName; address: bigint } | undefined;
}

/** Marks on the timeline (breakpoint hits, faults, races) for the TUI's timeline bar. */
export interface TimelineMark {
  readonly step: number;
  readonly kind: 'breakpoint' | 'fault' | 'race' | 'watch';
}

/** Result of one command line: the text a gdb-like front end prints. */
export interface CommandResult {
  readonly output: string;
  /** The command moved the position (front ends redraw panes). */
  readonly moved: boolean;
  readonly quit: boolean;
  readonly error: boolean;
}

/**
 * A debugging session over a recorded run. Implemented by `Session` in session.ts; the TUI and
 * batch mode use only this interface.
 */
export interface DebugSession {
  readonly program: Program;
  /** Path of the PTX file and its text. */
  readonly ptxPath: string;
  readonly ptxText: string;
  /** Recorded warp-steps (positions run 0..total). */
  readonly total: number;
  /** Message of the fault that ended the run, if any, and its step. */
  readonly faultMessage: string | undefined;
  /** The recording was stopped (Ctrl-C) before the kernel finished. */
  readonly interrupted: boolean;
  readonly faultStep: number;
  /** Current position. */
  position(): number;
  where(): Where;
  /** Warps of the resident blocks at the current position. */
  warps(): WarpInfo[];
  /** Focused thread's registers in the selected frame. */
  registers(): RegisterValue[];
  /** The focused thread's view (selected frame) for variables and memory. */
  threadView(): ThreadView;
  /** printf output produced up to the current position. */
  output(): string;
  breakpoints(): readonly BreakpointInfo[];
  watchpoints(): readonly WatchpointInfo[];
  marks(): readonly TimelineMark[];
}
