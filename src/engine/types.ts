/**
 * The debugger engine's vocabulary, shared by its front ends (TUI, batch mode, `races`).
 * A position (trace/position.ts) is a launch and a warp-step count in it: the machine state after
 * that many warp-steps, where "the current instruction" of a thread is the one it issues next.
 */
import type { Program } from '../ptx/resolve.js';
import type { OriginHop } from './origin.js';
import type { Direction, Position } from '../trace/position.js';

export type { Direction, Position, ThreadIndex } from '../trace/position.js';
import type { DataSpace, MemorySpace } from '../exec/memory.js';

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
  /** Current position (its launch's step count is `at.step`) and the number of steps recorded in its launch. */
  readonly at: Position;
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
  /** `inlined`: the inlined function whose copy the location is in, as the stop shows it (its PTX code is `function`'s). */
  readonly locations: readonly { function: string; pc: number; file: string | undefined; line: number; inlined?: string }[];
  hits: number;
  /** A program's breakpoint not (yet) set in the launch in focus: gdb's pending breakpoint (no locations). */
  readonly pending?: boolean;
  /** Why it is pending, when no module of the program seems to have the location. */
  readonly note?: string;
}

export type WatchKind = 'write' | 'read' | 'access';

export interface WatchpointInfo {
  readonly id: number;
  readonly expr: string;
  readonly kind: WatchKind;
  readonly space: DataSpace;
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
  | { readonly kind: 'breakpoint'; readonly id: number; /** gdb's `Error in testing condition`: the condition could not be evaluated at this hit. */ readonly conditionError?: string }
  | { readonly kind: 'watchpoint'; readonly id: number; readonly access: 'read' | 'write' }
  | { readonly kind: 'race'; readonly race: number; readonly second: boolean }
  | { readonly kind: 'fault'; readonly message: string };

/** Result of a navigation command. */
export interface Stop {
  readonly reason: StopReason;
  /** gdb-like one-liner: "Breakpoint 1, kernel.cu:12", "Thread (3,0,0) has exited". */
  readonly message: string;
  /** The position after the move. */
  readonly at: Position;
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
/** The spaces a thread's data lives in: what a watchpoint watches and an lvalue is written in (memory.ts). */
export type { DataSpace };

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
  readonly at: Position;
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
 * A command language over an engine (the gdb language of src/frontends/gdb): what a front end
 * that offers a command line besides its own requests (DAP's `-exec`) is handed by its caller.
 */
export interface CommandConsole {
  /** Run one command line (`next`, `break k.cu:12`, `print x`, `goto 100`...). */
  /** `repeatOnEmpty` (an interactive prompt): an empty line repeats the last stepping command. */
  execute(line: string, opts?: { repeatOnEmpty?: boolean }): CommandResult;
  /** Command names for completion. */
  commandNames(): readonly string[];
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

// ---- the Engine API's requests and results (src/engine/api.ts) --------------------------------


/** continue / reverse-continue; `races`: stop at a race access on the way. */
export interface ContinueRequest {
  readonly direction: Direction;
  readonly races?: boolean | undefined;
}

export interface StepRequest {
  /** A source line (over calls unless `into`) or one PTX instruction. */
  readonly granularity: 'line' | 'instruction';
  readonly direction: Direction;
  /** Enter calls (gdb's step) rather than pass over them (next). */
  readonly into?: boolean;
}

/** A CUDA thread: its id (1-based linear over the grid, stable for the run) and coordinates. */
export interface ThreadRef {
  readonly id: number;
  readonly block: Dim3;
  readonly thread: Dim3;
}

export interface ThreadInfo extends ThreadRef {
  /** `block (x,y,z) thread (x,y,z)`. */
  readonly name: string;
}

/** The result of every move. */
export interface StopEvent {
  readonly reason: StopReason;
  /** The position after the move, and the number of warp-steps recorded in its launch. */
  readonly position: Position;
  readonly total: number;
  /** The focused thread after the move (a breakpoint or watchpoint hit moves focus to the hitter). */
  readonly thread: ThreadRef;
  /** Its innermost frame, undefined when it is not resident (exited, not started). */
  readonly frame: FrameInfo | undefined;
  readonly hit: Hit | undefined;
  /** The engine's one-line description ("Breakpoint 1, ..."), empty for a plain step. */
  readonly message: string;
}

export interface BreakpointRequest {
  readonly line: number;
  /** Thread condition: `threadIdx.x == 3 && blockIdx.x == 1`, `thread (3,0,0)`, `block (1,0,0)`. */
  readonly condition?: string | undefined;
  /** `N`, `>=N`, `>N`, `==N`, `%N` over the hits' ordinals in the recording. */
  readonly hitCondition?: string | undefined;
}

export interface BreakpointResult {
  readonly verified: boolean;
  readonly id: number | undefined;
  /** Where it resolved (the first location), or why not. */
  readonly line: number | undefined;
  readonly message: string | undefined;
}

export interface WatchRequest {
  /** A C lvalue in the focused thread's scope (`y[3]`, `tile[1][2]`, `*(@shared int *)0x10`). */
  readonly expression: string;
  readonly kind: WatchKind;
}

/** A named group of variables (a DAP scope). */
export interface Scope {
  readonly name: string;
  readonly containerId: number;
  readonly count: number;
  /** Registers, locals... (DAP's presentationHint). */
  readonly hint: 'registers' | 'locals' | 'arguments' | 'globals';
}

export interface Variable {
  readonly name: string;
  readonly value: string;
  readonly type: string;
  /** Non-zero when it has children (fetched with `variables(containerId)`). */
  readonly containerId: number;
  /** C expression naming it (for watch, evaluate, data breakpoints), when it has one. */
  readonly expression: string | undefined;
  /** `space:0xaddress` of the value in memory, for readMemory. */
  readonly memoryReference: string | undefined;
}

export interface Evaluation {
  readonly value: string;
  readonly type: string;
  readonly memoryReference: string | undefined;
  /** For an lvalue in writable memory: what a watchpoint on it would watch. */
  readonly lvalue: { readonly space: DataSpace; readonly address: number; readonly size: number } | undefined;
}

/** What `origin` answers: the stop at the writing step, the hop (instruction, inputs), and what was asked. */
export interface OriginAnswer {
  readonly stop: StopEvent;
  /** The writing instruction and its inputs; undefined in a program when no thread wrote it (`by`: a host call, an unrecorded launch). */
  readonly hop: OriginHop | undefined;
  readonly what: string;
  /** In a program, when the writer is in an earlier launch or on the host: who, as the user reads it (`cudaMemcpy at app.cu:40 in main (host, before launch 1)`). */
  readonly by?: string | undefined;
  /** The bytes before and after a write with no hop (a host call, an unrecorded launch). */
  readonly before?: Uint8Array | undefined;
  readonly after?: Uint8Array | undefined;
}

/** One lane of the warp view of a value. */
export interface LaneValue {
  readonly thread: Dim3;
  readonly warp: number;
  readonly lane: number;
  readonly state: LaneState;
  readonly value: string;
}

export interface Write {
  readonly position: Position;
  readonly thread: ThreadRef;
  readonly file: string | undefined;
  readonly line: number;
  /** The value before and after, as the expression's type reads (registers: after only). */
  readonly before: string | undefined;
  readonly after: string | undefined;
  readonly atomic: boolean;
}

export interface Instruction {
  /** Global instruction index (the trace's pc space), unique over the program. */
  readonly address: number;
  readonly function: string;
  readonly pc: number;
  readonly text: string;
  /** 1-based line in the PTX file. */
  readonly ptxLine: number;
  readonly file: string | undefined;
  readonly line: number;
}

/** A watchpoint just added, and whether it names a raw range (`@shared 0x40 16`) or an expression. */
export interface AddedWatch {
  readonly wp: WatchpointInfo;
  readonly raw: boolean;
}


// ---- the program timeline (issue #25) ------------------------------------------------------------

/** One launch of the program (`info cuda launches`); a single-kernel session has one, numbered 0. */
export interface LaunchInfo {
  /** Its number: from 1 in program order (0 for the one launch of a single-kernel session). */
  readonly index: number;
  /** The kernel's name as gdb prints it (`scale<float, 4>`, `scale` for an unmangled one) and its PTX name. */
  readonly kernel: string;
  readonly mangled: string;
  readonly grid: Dim3;
  readonly block: Dim3;
  /** Where the host launched it: `offbyone.cu:57 in main`; undefined when not known (a single kernel). */
  readonly site: string | undefined;
  /** Warp-steps it ran; undefined when it was not recorded (it cannot be visited). */
  readonly steps: number | undefined;
  /** Launched from device code by this kernel (a child grid). */
  readonly launchedBy: string | undefined;
  /** Its fault, in one line, when it faulted (a continue stops there). */
  readonly fault?: string | undefined;
}

/** A host call or output between launches, at its place on the program timeline. */
export interface ProgramEvent {
  /** Host events sit before the launch that follows them, at negative steps (trace/position.ts). */
  readonly position: Position;
  readonly kind: 'host' | 'output';
  /** Host: the API function (cudaMemcpy); output: the stream (stdout, stderr, printf). */
  readonly what: string;
  /** Host: the operation (write, read, set, copy, malloc, free, ...); output: its text. */
  readonly detail: string;
  /** Host: `app.cu:42 in main`, when known. */
  readonly site: string | undefined;
}
