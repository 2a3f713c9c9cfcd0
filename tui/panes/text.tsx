/**
 * Scrolling text panes: Output (the kernel's printf), Console (commands and their replies) and
 * Races (`info races`, with a cursor: Enter opens the race under it). Long lines wrap, with the
 * continuation indented, so nothing is lost in a narrow slot.
 */
import React from 'react';
import { sanitize } from '../text.js';
import { type Line, PaneFrame, seg, type Style } from '../ui.js';

export interface StyledText {
  readonly text: string;
  readonly style?: Style;
}

export interface Wrapped {
  readonly lines: readonly StyledText[];
  /** Index of the source row of each display line. */
  readonly owner: readonly number[];
  /** First display line of each source row. */
  readonly first: readonly number[];
}

/** Wrap rows to `width` columns (one column is the pane's left margin). */
export function wrapRows(rows: readonly StyledText[], width: number): Wrapped {
  const w = Math.max(8, width - 1);
  const lines: StyledText[] = [];
  const owner: number[] = [];
  const first: number[] = [];
  rows.forEach((r, i) => {
    first.push(lines.length);
    let t = sanitize(r.text, 8);
    let cont = false;
    do {
      const room = cont ? w - 2 : w;
      // Break at a space when there is one in the second half of the line.
      const space = t.length > room ? t.lastIndexOf(' ', room) : -1;
      const cut = t.length <= room ? t.length : space > room / 2 ? space : room;
      lines.push({ text: (cont ? '  ' : '') + t.slice(0, cut), ...(r.style ? { style: r.style } : {}) });
      owner.push(i);
      t = t.slice(cut === space ? cut + 1 : cut);
      cont = true;
    } while (t.length > 0);
  });
  return { lines, owner, first };
}

/** `top < 0` follows the end of the text (new output stays visible). */
export function effectiveTop(top: number, count: number, height: number): number {
  return top < 0 ? Math.max(0, count - height) : Math.min(top, Math.max(0, count - height));
}

export function TextPane({ wrapped, top, cursor, width, height, focused, title, empty }: {
  wrapped: Wrapped; top: number; cursor: number | undefined; width: number; height: number; focused: boolean; title: Line; empty: string;
}): React.JSX.Element {
  const h = height - 1;
  const n = wrapped.lines.length;
  const t = effectiveTop(top, n, h);
  const body: Line[] = n === 0
    ? [[seg(` ${empty}`, { dim: true })]]
    : wrapped.lines.slice(t, t + h).map((r) => [seg(' '), seg(r.text, r.style)]);
  // every display line of the selected row (a race's report wraps over several)
  const selected: number[] = [];
  if (focused && cursor !== undefined && n > 0) for (let i = 0; i < h && t + i < n; i++) if (wrapped.owner[t + i] === cursor) selected.push(i);
  const more = n > h ? ` ${Math.min(n, t + h)}/${n}` : '';
  return <PaneFrame title={[...title, seg(more)]} width={width} height={height} focused={focused} body={body} selected={selected} />;
}
