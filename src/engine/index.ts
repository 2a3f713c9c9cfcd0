/**
 * The engine's one door: everything a front end (the gdb language, the TUI, DAP) or the host
 * side may use of the debugger engine. Front ends import this module (and `types.ts`) only;
 * `Session`, the trace, the machine and the PTX layers stay behind it (test/layering.test.ts).
 *
 *   const e = openEngine({ ptxPath: 'samples/saxpy/kernel.G.ptx' });
 *   const stop = e.continue({ direction: 'forward' });
 *   process.stdout.write(stopText(e, stop));
 */
export { Engine } from './api.js';
export { openEngine, openEngineAsync, openProgramEngine, openReplayEngine, type ReplayOpened } from './open.js';
/** A whole program's recording as the engine reads it (the host side implements it, issue #25). */
export type * from './program/source.js';
export type { ProgramOptions } from './program/timeline.js';
export { type HostStop, noDeviceThread } from './api/program.js';
export type { RecordProgress } from '../trace/trace.js';
export type { SessionOptions as EngineOptions } from './session.js';
export { EngineError, ERROR_CODES, type ErrorCode, requestFailure } from './errors.js';
export type * from './types.js';
export type { TimelineInfo, WriteInfo } from './whatif/timelines.js';
export { comparePositions, positionOf, samePosition } from '../trace/position.js';
export * from './present/index.js';
export { compileCuda, launchFileBeside } from './load.js';
export { baseName } from './sources.js';
export { childExpr, formatterFor, registerFloat } from './values.js';
// the TUI's Variables pane: its tree nodes, and the error that is shown as text (not a crash)
export { PrintError, type VarNode } from './print/index.js';
/** A mangled PTX name's plain C++ stem (`_Z5saxpyifPfS_` -> `saxpy`): for host code that names kernels. */
export { plainName } from '../ptx/names.js';
/**
 * Demangled names as gdb shows them, for every front end: `printName` is a frame's and a
 * breakpoint hit's (`scale<float, 4>`), `demangledName` the whole one (`void scale<float, 4>(float*, int)`).
 */
export { demangledName, namesFunction, printName, signatureName } from '../ptx/names.js';
/** A launch's fault in words (the host's exec report and the debugger say it the same way). */
export { formatFault } from './fault.js';
