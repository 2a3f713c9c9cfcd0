/**
 * Drawing primitives. A pane is a title bar and a list of lines; a line is a list of styled
 * segments. Each line is cut/padded to the pane width here, so the frame's geometry is exact
 * whatever the content (Ink never wraps, nothing spills into a neighbour).
 */
import React from 'react';
import { Box, Text } from 'ink';
import { fit, sanitize } from './text.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

export interface Style {
  readonly color?: string;
  readonly bg?: string;
  readonly bold?: boolean;
  readonly dim?: boolean;
  readonly inverse?: boolean;
  readonly underline?: boolean;
}

export interface Seg {
  readonly text: string;
  readonly style?: Style;
}

export type Line = readonly Seg[];

export const seg = (text: string, style?: Style): Seg => (style ? { text, style } : { text });

/**
 * Cut the segments to `w` characters in total. Padding is added only when `fill` asks for a
 * styled background: Ink starts every frame from a blank grid, so plain trailing spaces would
 * only cost time (Ink's per-character work dominates a frame).
 */
export function fitLine(line: Line, w: number, fill?: Style): Seg[] {
  const out: Seg[] = [];
  let used = 0;
  for (const s of line) {
    if (used >= w) break;
    const room = w - used;
    // Last line of defence: a tab or other control character would move the terminal's
    // cursor and break the frame's geometry (panes sanitise their text; replies may not).
    const raw = CONTROL.test(s.text) ? sanitize(s.text) : s.text;
    const text = raw.length > room ? fit(raw, room) : raw;
    if (text.length === 0) continue;
    out.push(s.style ? { text, style: s.style } : { text });
    used += text.length;
  }
  if (used < w && fill) out.push({ text: ' '.repeat(w - used), style: fill });
  return out;
}

const FG: Readonly<Record<string, number>> = {
  black: 30, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, white: 37,
  gray: 90, grey: 90, blackBright: 90, redBright: 91, greenBright: 92, yellowBright: 93,
  blueBright: 94, magentaBright: 95, cyanBright: 96, whiteBright: 97,
};

/** NO_COLOR (https://no-color.org): keep bold/underline/inverse, drop colours. */
const NO_COLOR = process.env['NO_COLOR'] !== undefined && process.env['NO_COLOR'] !== '';

function sgr(st: Style): string {
  const codes: number[] = [];
  if (st.bold) codes.push(1);
  if (st.dim) codes.push(2);
  if (st.underline) codes.push(4);
  if (st.inverse) codes.push(7);
  if (!NO_COLOR) {
    if (st.color && FG[st.color]) codes.push(FG[st.color]!);
    if (st.bg && FG[st.bg]) codes.push(FG[st.bg]! + 10);
  }
  return codes.length ? `\x1b[${codes.join(';')}m` : '';
}

/**
 * A line as one ANSI string of exactly `w` columns. Panes hand Ink one string per pane rather
 * than one element per coloured segment: Ink's cost grows with the number of nodes, and a
 * frame has thousands of segments (a lane glyph each in the Threads pane).
 */
export function ansiLine(line: Line, w: number, fill?: Style): string {
  let out = '';
  let open = '';
  // Adjacent segments with the same attributes share one escape sequence: fewer bytes for Ink
  // to tokenize (a warp of 32 active lanes is one run, not 32).
  for (const s of fitLine(line, w, fill)) {
    const on = s.style ? sgr(s.style) : '';
    if (on !== open) {
      if (open) out += '\x1b[0m';
      out += on;
      open = on;
    }
    out += s.text;
  }
  return open ? out + '\x1b[0m' : out;
}

/** One line of exactly `width` characters. `fill` styles the padding (e.g. a highlighted row). */
export function Row({ line, width, fill }: { line: Line; width: number; fill?: Style }): React.JSX.Element {
  return (
    <Box width={width} height={1} flexShrink={0}>
      <Text>{ansiLine(line, width, fill)}</Text>
    </Box>
  );
}

export const TITLE_FOCUSED: Style = { color: 'black', bg: 'cyan', bold: true };
export const TITLE_PLAIN: Style = { color: 'white', bg: 'gray' };

/**
 * The selected row of a focused pane: reversed across the whole pane width, whatever the row's
 * own colours, so a selection looks alike in every pane (header rows included).
 */
export const SELECTED: Style = { inverse: true };

export function selectedLine(line: Line): Line {
  return line.map((s) => ({ text: s.text, style: { ...s.style, ...SELECTED } }));
}

/**
 * A rectangle of `height` lines: a title line, then body lines (blank-padded). `selected` is the
 * body row drawn as the selection (see SELECTED).
 */
export function PaneFrame({ title, width, height, body, focused, selected }: {
  title: Line;
  width: number;
  height: number;
  body: readonly Line[];
  focused: boolean;
  /** Several rows when one selected item wraps over several lines (Races). */
  selected?: number | readonly number[] | undefined;
}): React.JSX.Element {
  const titleStyle = focused ? TITLE_FOCUSED : TITLE_PLAIN;
  const rows: string[] = [ansiLine(title.map((s) => ({ text: s.text, style: { ...titleStyle, ...s.style } })), width, titleStyle)];
  for (let i = 0; i < height - 1; i++) {
    const line = body[i] ?? [];
    const sel = typeof selected === 'number' ? i === selected : selected !== undefined && selected.includes(i);
    rows.push(sel ? ansiLine(selectedLine(line), width, SELECTED) : ansiLine(line, width));
  }
  return (
    <Box flexDirection="column" width={width} height={height} flexShrink={0}>
      <Text>{rows.join('\n')}</Text>
    </Box>
  );
}

/**
 * Keep `cursor` within [top, top + h) by moving `top` as little as possible, with `margin` lines
 * of context above and below it when the content allows (vim's scrolloff).
 */
export function scrollTo(top: number, cursor: number, h: number, count: number, margin = 0): number {
  const m = Math.max(0, Math.min(margin, Math.floor((h - 1) / 2)));
  let t = top;
  if (cursor - m < t) t = cursor - m;
  if (cursor + m >= t + h) t = cursor + m - h + 1;
  return Math.max(0, Math.min(t, Math.max(0, count - h)));
}

/** Like scrollTo but re-centres when the cursor is out of view (for jumps, not line moves). */
export function centreOn(top: number, cursor: number, h: number, count: number, margin = 0): number {
  if (cursor >= top && cursor < top + h) return scrollTo(top, cursor, h, count, margin);
  return Math.max(0, Math.min(cursor - Math.floor(h / 3), Math.max(0, count - h)));
}
