/**
 * An engine's gdb console: the command language bound to one engine, with the state the
 * language keeps between commands (the `$1, $2...` value history, kept by the engine's
 * presenters). Batch mode, the TUI's `:` line and its Console pane, and DAP's `-exec` share one
 * console per engine, so `$1` means the same everywhere.
 */
import type { CommandConsole, Engine } from '../../engine/index.js';
import { COMMAND_NAMES, executeCommand } from './commands.js';

/** The gdb language's console (the engine's CommandConsole: what DAP's `-exec` is handed). */
export type GdbConsole = CommandConsole;

const consoles = new WeakMap<Engine, GdbConsole>();

export function consoleOf(s: Engine): GdbConsole {
  let c = consoles.get(s);
  if (!c) {
    c = { execute: (line, opts) => executeCommand(s, line, opts), commandNames: () => COMMAND_NAMES };
    consoles.set(s, c);
  }
  return c;
}
