/**
 * What the text presenters keep per engine between requests, shared by every front end that
 * shows text (the gdb language in batch mode, the TUI's `:` line and its panes): the `$1, $2...`
 * value history, the `display` list, and the command an empty line repeats.
 */
import { type DebugInfo, ValueHistory } from '../print/index.js';
import { type Engine, sessionOf } from '../api.js';

/** Expressions shown after every stop (`display EXPR`), numbered like gdb's. */
export interface Display { readonly id: number; readonly expr: string }

/** The text state of one engine's consoles. */
export interface ConsoleState {
  readonly history: ValueHistory;
  readonly displays: Display[];
  nextDisplay: number;
  /** The last moving command (an interactive prompt repeats it on an empty line). */
  repeat: string | undefined;
  /**
   * gdb's `set print repeats N` / `set print elements N` (undefined: gdb's defaults, 10 and 200;
   * 0: unlimited), `set print pretty`, `set print address` and `set width` (0: unlimited).
   */
  readonly print: { repeats?: number; elements?: number; pretty?: boolean; address?: boolean; width?: number };
}

const states = new WeakMap<Engine, ConsoleState>();

export function consoleState(e: Engine): ConsoleState {
  let g = states.get(e);
  if (!g) states.set(e, (g = { history: new ValueHistory(), displays: [], nextDisplay: 1, repeat: undefined, print: {} }));
  return g;
}

/** Debug info and value history: what expression evaluation needs. */
export function ctx(e: Engine): { readonly info: DebugInfo; readonly history: ValueHistory } {
  return { info: sessionOf(e).debugInfo(), history: consoleState(e).history };
}

/** The print settings as the value formatter takes them (gdb's 0 = unlimited). */
export function printOptions(e: Engine): { repeats?: number; maxElements?: number; pretty?: boolean; addresses?: boolean } {
  const { repeats, elements, pretty, address } = consoleState(e).print;
  return {
    ...(repeats !== undefined ? { repeats: repeats || Infinity } : {}),
    ...(elements !== undefined ? { maxElements: elements || Infinity } : {}),
    ...(pretty !== undefined ? { pretty } : {}),
    ...(address !== undefined ? { addresses: address } : {}),
  };
}
