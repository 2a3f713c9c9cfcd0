/**
 * The command language of the `:` line, and how a key's result reads in it. The TUI speaks the
 * gdb language, but it does not import that front end: its caller (src/cli/debug.ts) hands it
 * one, so tui/ sees only the engine's public API (issue #26) and the gdb language stays the one
 * place that parses and words commands, whether typed or made by a key.
 */
import type { AddedWatch, BreakpointInfo, OriginAnswer, StopEvent } from '#engine';

/** What running one line did: its text, and whether it failed, moved the position, or quits. */
export interface LineResult {
  readonly output: string;
  readonly error: boolean;
  readonly moved: boolean;
  readonly quit: boolean;
}

/** A row of the race report, knowing the race (1-based) it belongs to, if any. */
export interface RaceRow {
  readonly text: string;
  readonly race: number | undefined;
}

export interface CommandLanguage {
  /** Run one typed line; an empty line repeats the last stepping command when `repeatOnEmpty`. */
  execute(line: string, opts?: { repeatOnEmpty?: boolean }): LineResult;
  /** Every command name, for completion on the `:` line. */
  commandNames(): readonly string[];
  /** A stop, as the language reports it ("Breakpoint 1, ..." and the position). */
  stopText(stop: Pick<StopEvent, 'reason' | 'message'>): string;
  breakText(bp: BreakpointInfo): string;
  watchText(w: AddedWatch): string;
  /** The newly focused thread, as `cuda thread` reports it. */
  focusText(): string;
  originText(a: OriginAnswer): string;
  /** The `display` expressions' values (shown after every stop), '' when there are none. */
  displaysText(): string;
  /** `info races` as rows (runs the race checker the first time). */
  raceRows(): RaceRow[];
}
