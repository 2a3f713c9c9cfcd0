/**
 * Key bindings: one table drives the help overlay, the hint bar and the dispatcher, so they
 * cannot disagree. Ink's key events are normalised into `KeyPress`es first (a paste or a fast
 * typist delivers several characters in one event).
 */
import type { Direction, StepRequest } from '#engine';
import type { Key } from 'ink';

export type KeyName =
  | 'up' | 'down' | 'left' | 'right' | 'pageUp' | 'pageDown' | 'home' | 'end'
  | 'enter' | 'escape' | 'tab' | 'backTab' | 'backspace' | 'delete';

export interface KeyPress {
  /** A printable character (or the letter of a Ctrl combination). */
  readonly ch: string | undefined;
  readonly name: KeyName | undefined;
  readonly ctrl: boolean;
  /** Shift held with a named key (Shift-← / Shift-→ scroll code panes further). */
  readonly shift?: boolean;
}

/** A mouse report (xterm SGR mode 1006), in 0-based screen cells. */
export interface MouseEvent {
  readonly action: 'press' | 'release' | 'drag' | 'wheelUp' | 'wheelDown' | 'wheelLeft' | 'wheelRight';
  /** 0 left, 1 middle, 2 right (for presses, releases and drags). */
  readonly button: number;
  readonly x: number;
  readonly y: number;
}

/**
 * An SGR mouse report, `CSI < b ; x ; y M` (press) or `... m` (release). Ink hands every CSI
 * sequence over as one event and strips its ESC, so the whole input must be the report: a `[`
 * typed on its own (timeline key) never arrives glued to `<0;1;1M`.
 */
export function parseMouse(input: string): MouseEvent | undefined {
  // eslint-disable-next-line no-control-regex
  const m = /^\x1b?\[<(\d+);(\d+);(\d+)([Mm])$/.exec(input);
  if (!m) return undefined;
  const b = Number(m[1]);
  const x = Number(m[2]) - 1;
  const y = Number(m[3]) - 1;
  // bits 0-1 the button, 4/8/16 modifiers, 32 motion, 64 wheel (xterm's ctlseqs)
  const button = b & 3;
  let action: MouseEvent['action'];
  if (b & 64) action = (['wheelUp', 'wheelDown', 'wheelLeft', 'wheelRight'] as const)[button]!;
  else if (b & 32) action = 'drag';
  else action = m[4] === 'm' ? 'release' : 'press';
  return { action, button, x, y };
}

/** Ink's (input, key) → key presses, one per character for plain text. */
export function keyPresses(input: string, key: Key): KeyPress[] {
  const named = (name: KeyName): KeyPress[] => [key.shift ? { ch: undefined, name, ctrl: key.ctrl, shift: true } : { ch: undefined, name, ctrl: key.ctrl }];
  if (key.upArrow) return named('up');
  if (key.downArrow) return named('down');
  if (key.leftArrow) return named('left');
  if (key.rightArrow) return named('right');
  if (key.pageUp) return named('pageUp');
  if (key.pageDown) return named('pageDown');
  if (key.home) return named('home');
  if (key.end) return named('end');
  if (key.return) return named('enter');
  if (key.tab) return named(key.shift ? 'backTab' : 'tab');
  // Most terminals send DEL (0x7f) for Backspace, which Ink reports as `delete`.
  if (key.backspace || key.delete) return named('backspace');
  if (key.escape) return named('escape');
  if (key.ctrl) return [{ ch: input, name: undefined, ctrl: true }];
  return [...input].map(charPress);
}

/**
 * One character of a burst: Ink hands over "n\t:" as one event when the keys arrive together,
 * so control characters inside it must be recognised here.
 */
function charPress(ch: string): KeyPress {
  const c = ch.charCodeAt(0);
  if (ch === '\r' || ch === '\n') return { ch: undefined, name: 'enter', ctrl: false };
  if (ch === '\t') return { ch: undefined, name: 'tab', ctrl: false };
  if (ch === '\x7f' || ch === '\b') return { ch: undefined, name: 'backspace', ctrl: false };
  if (c < 0x20) return { ch: String.fromCharCode(c + 96), name: undefined, ctrl: true };
  return { ch, name: undefined, ctrl: false };
}

/** A navigation key's engine request (typed: the TUI builds no command text). */
export type NavMove =
  | { readonly kind: 'step'; readonly request: StepRequest }
  | { readonly kind: 'finish' | 'continue'; readonly direction: Direction };

/** Single-key navigation: the engine request, and the gdb name the Console shows it under. */
export interface NavKey {
  readonly label: string;
  readonly move: NavMove;
}

const step = (label: string, granularity: 'line' | 'instruction', direction: Direction, into: boolean): NavKey =>
  ({ label, move: { kind: 'step', request: { granularity, direction, into } } });

export const NAV_KEYS: Readonly<Record<string, NavKey>> = {
  n: step('next', 'line', 'forward', false), N: step('reverse-next', 'line', 'backward', false),
  s: step('step', 'line', 'forward', true), S: step('reverse-step', 'line', 'backward', true),
  i: step('stepi', 'instruction', 'forward', true), I: step('reverse-stepi', 'instruction', 'backward', true),
  f: { label: 'finish', move: { kind: 'finish', direction: 'forward' } }, F: { label: 'reverse-finish', move: { kind: 'finish', direction: 'backward' } },
  c: { label: 'continue', move: { kind: 'continue', direction: 'forward' } }, C: { label: 'reverse-continue', move: { kind: 'continue', direction: 'backward' } },
};

export interface HelpEntry {
  readonly keys: string;
  readonly what: string;
  /** Shown in the hint bar, most important first; omitted when undefined. */
  readonly hint?: string;
}

export const HELP: readonly { readonly title: string; readonly entries: readonly HelpEntry[] }[] = [
  {
    title: 'Execution (forward / backward)',
    entries: [
      { keys: 'n / N', what: 'next / reverse-next (source line, over calls)', hint: 'n/N next' },
      { keys: 's / S', what: 'step / reverse-step (into calls)', hint: 's/S step' },
      { keys: 'i / I', what: 'stepi / reverse-stepi (one PTX instruction)', hint: 'i/I inst' },
      { keys: 'f / F', what: 'finish / reverse-finish (out of the function)', hint: 'f/F finish' },
      { keys: 'c / C', what: 'continue / reverse-continue (to a breakpoint; in a program, across launches)', hint: 'c/C cont' },
      { keys: '[ / ]', what: 'timeline: back / forward 1% of the run (of the launch)', hint: '[] time' },
      { keys: '{ / }', what: 'timeline: previous / next mark (breakpoint, race, fault)' },
      { keys: ':launch N', what: 'a whole program: go to launch N (:info cuda launches lists them)' },
    ],
  },
  {
    title: 'Inspect',
    entries: [
      { keys: 'b', what: 'toggle a breakpoint at the cursor line (Source or PTX pane)', hint: 'b break' },
      { keys: 'w', what: 'watch the selected variable (Variables pane)', hint: 'w watch' },
      { keys: 't', what: 'pick the focused thread (Threads pane: arrows, Enter)', hint: 't thread' },
      { keys: 'Enter', what: 'expand a variable / focus a thread / open a race / set the memory address' },
      { keys: 'x', what: 'show the selected variable (or pointer) in the Memory pane' },
      { keys: 'o', what: 'origin: go to the step that wrote the selected variable (its inputs in the Console; `:origin ^N` follows one)' },
      { keys: 'L', what: 'the selected variable in the 32 lanes of the warp (Lanes pane)' },
      { keys: '< / >', what: 'Memory pane: previous / next display format' },
    ],
  },
  {
    title: 'Screen',
    entries: [
      { keys: 'Tab / S-Tab', what: 'next / previous pane', hint: 'Tab pane' },
      { keys: '↑ ↓ PgUp PgDn', what: 'move the cursor / scroll the focused pane' },
      { keys: 'Home / End', what: 'top / bottom of the focused pane' },
      { keys: '← → S-← S-→', what: 'Source / PTX pane: scroll sideways (Shift: half a pane)' },
      { keys: 'z', what: 'zoom: the focused pane fills the screen (z again: back)' },
      { keys: 'mouse', what: 'click focuses a pane; on a line number: breakpoint; wheel scrolls' },
      { keys: 'Ctrl-L', what: 'back to the current line in the Source and PTX panes' },
      { keys: ':', what: 'command line (gdb / rr / cuda-gdb commands; ↑↓ history, Tab completes a begun word)', hint: ': cmd' },
      { keys: 'Tab on : line', what: 'an empty line: leave it for the next pane (S-Tab: previous; Esc: just leave)' },
      { keys: '?', what: 'this help', hint: '? help' },
      { keys: 'q', what: 'quit', hint: 'q quit' },
    ],
  },
];

export const HINTS: readonly string[] = HELP.flatMap((g) => g.entries.flatMap((e) => (e.hint ? [e.hint] : [])));
