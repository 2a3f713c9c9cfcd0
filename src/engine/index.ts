/**
 * The engine's public API: the one module front ends (the gdb language, the TUI, DAP) and host/
 * import from the engine (issue #26). What is not exported here is the engine's own business.
 *
 * (Created by the TUI's move to tui/ with what the TUI needs; the engine's owner widens it.)
 */
export * from './api.js';
export type {
  BreakpointInfo, Dim3, FrameInfo, Hit, LaneState, RegisterValue, SpaceName, Stop, StopReason,
  TimelineMark, WarpInfo, WatchKind, WatchpointInfo, Where,
} from './types.js';
export { baseName, candidates, type SourceCache, type SourceFile } from './sources.js';
export { childExpr, registerFloat } from './values.js';
export { PrintError, type VarNode } from './print/index.js';
