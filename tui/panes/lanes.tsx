/**
 * Lanes pane: one expression in each of the 32 lanes of the focused warp (the engine's
 * `lanes(expr)`), re-read at every stop. Lanes that are not running are marked with their state
 * (the Threads pane's glyphs); the focused lane has ▶. A cursor picks a lane (Enter focuses it).
 */
import React from 'react';
import type { LaneValue } from '#engine';
import { padStart } from '../text.js';
import { type Line, PaneFrame, seg } from '../ui.js';
import { LANE_GLYPH } from './warps.js';

export interface LanesState {
  /** The expression shown (set by `L` on a variable), none before the first `L`. */
  readonly expr: string | undefined;
  /** Cursor: index into the lanes. */
  readonly cursor: number;
  /** First lane shown. */
  readonly top: number;
}

export type LanesData = { readonly rows: readonly LaneValue[] } | { readonly error: string };

/** The line above the lanes (it stays when they scroll). */
export function lanesHeader(expr: string, rows: readonly LaneValue[], block: string): Line {
  return [seg(` ${expr}`, { color: 'magenta', bold: true }), seg(rows.length ? ` warp ${rows[0]!.warp} of block (${block})` : '', { dim: true })];
}

/** One lane: state glyph, focus marker, lane number, thread index, value (and its state when not running). */
export function laneLine(r: LaneValue, focusLane: number | undefined): Line {
  const g = LANE_GLYPH[r.state];
  const idle = r.state !== 'active';
  // a value read from an idle lane is its last one; a lane without frames already reads <state>
  const note = idle && !r.value.startsWith('<') ? `  (${g.label})` : '';
  return [
    seg(' '), seg(g.ch, g.style),
    seg(r.lane === focusLane ? '▶' : ' ', { color: 'green', bold: true }),
    seg(padStart(String(r.lane), 2)),
    seg(` (${r.thread.join(',')})`.padEnd(12), { dim: true }),
    seg(` ${r.value}`, idle ? { dim: true } : { bold: true }),
    seg(note, { dim: true }),
  ];
}

/** `none`: why no lane is shown (a host call: no device thread runs there). */
export function LanesPane({ st, data, block, focusLane, width, height, focused, title, none }: {
  st: LanesState; data: LanesData | undefined; block: string; focusLane: number | undefined;
  width: number; height: number; focused: boolean; title: Line; none?: string | undefined;
}): React.JSX.Element {
  let body: Line[];
  let selected: number | undefined;
  if (none !== undefined) body = none.split('\n').map((t) => [seg(` ${t}`, { dim: true })]);
  else if (st.expr === undefined || data === undefined) body = [[seg(' L on a variable (Variables pane) shows it in every lane of the warp', { dim: true })]];
  else if ('error' in data) body = [[seg(` ${st.expr}`, { color: 'magenta', bold: true })], [seg(` ${data.error}`, { color: 'red' })]];
  else {
    body = [lanesHeader(st.expr, data.rows, block), ...data.rows.slice(st.top, st.top + Math.max(0, height - 2)).map((r) => laneLine(r, focusLane))];
    if (focused) selected = st.cursor - st.top + 1;
  }
  return <PaneFrame title={title} width={width} height={height} focused={focused} body={body} selected={selected} />;
}
