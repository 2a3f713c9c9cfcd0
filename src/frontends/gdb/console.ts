/**
 * A session's gdb console: the command language bound to one session, with the state the
 * language keeps between commands (the `$1, $2...` value history). Batch mode, the TUI's `:`
 * line and its Console pane share one console per session, so `$1` means the same everywhere.
 */
import type { Session } from '../../engine/session.js';
import type { CommandResult } from '../../engine/types.js';
import { COMMAND_NAMES, executeCommand } from './commands.js';

export interface GdbConsole {
  /** Run one gdb/cuda-gdb/rr style command (`next`, `break k.cu:12`, `print x`, `goto 100`...). */
  /** `repeatOnEmpty` (an interactive prompt): an empty line repeats the last stepping command. */
  execute(line: string, opts?: { repeatOnEmpty?: boolean }): CommandResult;
  /** Command names for completion. */
  commandNames(): readonly string[];
}

const consoles = new WeakMap<Session, GdbConsole>();

export function consoleOf(s: Session): GdbConsole {
  let c = consoles.get(s);
  if (!c) {
    c = { execute: (line, opts) => executeCommand(s, line, opts), commandNames: () => COMMAND_NAMES };
    consoles.set(s, c);
  }
  return c;
}
