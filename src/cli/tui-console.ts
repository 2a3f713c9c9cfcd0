/**
 * What the terminal UI needs to debug a session: its engine, and the gdb language as the
 * console of its `:` line. The TUI imports only the engine's public API, so the CLI, which
 * knows both, wires the one to the other.
 */
import { type CommandConsole, type Engine } from '../engine/index.js';
import { engineOf } from '../engine/api.js';
import type { Session } from '../engine/session.js';
import { consoleOf } from '../frontends/gdb/console.js';

export function tuiOf(s: Session): { engine: Engine; console: CommandConsole } {
  const engine = engineOf(s);
  return { engine, console: consoleOf(engine) };
}
