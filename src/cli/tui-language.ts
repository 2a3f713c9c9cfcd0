/**
 * The gdb language as the terminal UI's command language (tui/language.ts). The TUI imports
 * only the engine's public API, so the CLI, which knows both, wires the one to the other.
 */
import type { CommandLanguage } from '../../tui/language.js';
import { engineOf, type Engine } from '../engine/api.js';
import type { Session } from '../engine/session.js';
import { breakText, displaysText, focusText, originText, stopText, watchText } from '../frontends/gdb/commands.js';
import { consoleOf } from '../frontends/gdb/console.js';
import { raceReportRows } from '../frontends/gdb/races.js';

export function gdbLanguage(s: Session): CommandLanguage {
  const c = consoleOf(s);
  return {
    execute: (line, opts) => c.execute(line, opts),
    commandNames: () => c.commandNames(),
    stopText: (st) => stopText(s, st),
    breakText: (bp) => breakText(bp, false),
    watchText: (w) => watchText(w),
    focusText: () => focusText(s),
    originText: (a) => originText(s, a),
    displaysText: () => displaysText(s),
    raceRows: () => raceReportRows(s),
  };
}

/** What runTui needs to debug a session: its engine and the gdb language over it. */
export function tuiOf(s: Session): { engine: Engine; language: CommandLanguage } {
  return { engine: engineOf(s), language: gdbLanguage(s) };
}
