/**
 * The engine's text presenters (gdb's words for stops, points, values and tables) and the text
 * state they share per engine: what the gdb language and the TUI both show.
 */
export { consoleState, type ConsoleState, type Display } from './state.js';
export {
  breakText, examineText, focusText, historyText, lanesText, lineText, listText, localsText, originText, pointsTable, printText, registersText, returnValueText,
  sourceLine, sourceLines, stopLine, stopText, threadsTable, watchCommand, watchText,
} from './text.js';
export {
  backtrace, disassemble, functionsText, displayLines, displaysText, examineInstructions, examineString, infoCudaBlocks, infoCudaKernels, listRange, whatis,
} from './inspect.js';
export { infoRaces, raceReportRows, type RaceRow } from './races.js';
export { assignText, infoTimelineText, timelineCommandTarget, timelineTag } from './whatif.js';
export { launchesTable, launchLabel, launchText } from './program.js';
