/**
 * Threads pane: resident blocks → warps → one glyph per lane with its state. The focused thread
 * is underlined; in the pane, arrows move a lane cursor and Enter focuses that thread.
 */
import React from 'react';
import type { Dim3, LaneState, WarpInfo } from '#engine';
import { baseName, dim3 } from '../text.js';
import { type Line, PaneFrame, type Seg, seg, SELECTED, type Style } from '../ui.js';

export const LANE_GLYPH: Record<LaneState, { ch: string; style: Style; label: string }> = {
  active: { ch: '●', style: { color: 'green' }, label: 'active' },
  inactive: { ch: '○', style: { color: 'white', dim: true }, label: 'diverged' },
  barrier: { ch: '◆', style: { color: 'yellow' }, label: 'barrier' },
  exited: { ch: '×', style: { color: 'red', dim: true }, label: 'exited' },
  'not-started': { ch: '·', style: { dim: true }, label: 'not started' },
  retired: { ch: '-', style: { dim: true }, label: 'retired' },
};

export interface WarpGeometry {
  /** Lanes per display line (32, 16 or 8). */
  readonly perLine: number;
  /** First display line of each warp. */
  readonly firstLine: readonly number[];
  readonly lineCount: number;
}

/** Columns of the warp label before the lane glyphs (a click there picks lane by glyph column). */
export const PREFIX = 5;

function sameBlock(a: Dim3, b: Dim3): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}

export function warpGeometry(warps: readonly WarpInfo[], width: number): WarpGeometry {
  const room = width - PREFIX;
  const perLine = room >= 32 ? 32 : room >= 16 ? 16 : 8;
  const firstLine: number[] = [];
  let line = 0;
  warps.forEach((w, i) => {
    if (i === 0 || !sameBlock(warps[i - 1]!.block, w.block)) line++; // block header
    firstLine.push(line);
    line += Math.ceil(Math.max(1, w.lanes.length) / perLine);
  });
  return { perLine, firstLine, lineCount: line };
}

export interface WarpCursor {
  readonly warp: number;
  readonly lane: number;
}

export function warpLines(warps: readonly WarpInfo[], geo: WarpGeometry, focus: { block: Dim3; warp: number; lane: number },
  cursor: WarpCursor | undefined, width: number): Line[] {
  const out: Line[] = [];
  warps.forEach((w, i) => {
    if (i === 0 || !sameBlock(warps[i - 1]!.block, w.block)) {
      out.push([seg(` block ${dim3(w.block)}`, { color: 'magenta', bold: true })]);
    }
    const loc = w.file ? ` ${baseName(w.file)}:${w.line}` : ` pc ${w.pc}`;
    const isFocusWarp = sameBlock(w.block, focus.block) && w.warp === focus.warp;
    for (let start = 0; start < Math.max(1, w.lanes.length); start += geo.perLine) {
      // the cursor's warp label is drawn selected: the row of the selection, as in the other panes
      const selectedWarp = cursor !== undefined && cursor.warp === i;
      const segs: Seg[] = [seg(start === 0 ? `${(isFocusWarp ? '▶' : ' ') + 'w' + w.warp}`.padEnd(PREFIX) : ' '.repeat(PREFIX),
        { ...(isFocusWarp ? { bold: true } : { dim: true }), ...(selectedWarp ? SELECTED : {}) })];
      for (let l = start; l < Math.min(w.lanes.length, start + geo.perLine); l++) {
        const g = LANE_GLYPH[w.lanes[l]!];
        const isFocus = isFocusWarp && l === focus.lane;
        const isCursor = cursor !== undefined && cursor.warp === i && cursor.lane === l;
        segs.push(seg(g.ch, { ...g.style, ...(isFocus ? { underline: true, bold: true } : {}), ...(isCursor ? { inverse: true } : {}) }));
      }
      if (start === 0 && width - PREFIX - geo.perLine > loc.length) segs.push(seg(loc, { dim: true }));
      out.push(segs);
    }
  });
  return out;
}

export function legend(): Line {
  return (Object.keys(LANE_GLYPH) as LaneState[]).slice(0, 4).flatMap((k) => [seg(' '), seg(LANE_GLYPH[k].ch, LANE_GLYPH[k].style), seg(LANE_GLYPH[k].label, { dim: true })]);
}

/** `none`: why no warp is shown (a host call: no device thread runs there). */
export function WarpsPane({ warps, focus, cursor, top, width, height, focused, title, none }: {
  warps: readonly WarpInfo[]; focus: { block: Dim3; warp: number; lane: number }; cursor: WarpCursor | undefined;
  top: number; width: number; height: number; focused: boolean; title: Line; none?: string | undefined;
}): React.JSX.Element {
  if (none !== undefined) return <PaneFrame title={title} width={width} height={height} focused={focused} body={none.split('\n').map((t) => [seg(` ${t}`, { dim: true })])} />;
  const geo = warpGeometry(warps, width);
  const all = warpLines(warps, geo, focus, cursor, width);
  // The legend takes the last line when there is room to spare.
  const bodyH = height - 1;
  const showLegend = bodyH >= 4 && all.length < bodyH;
  const body = all.slice(top, top + bodyH - (showLegend ? 1 : 0));
  if (showLegend) {
    while (body.length < bodyH - 1) body.push([]);
    body.push(legend());
  }
  return <PaneFrame title={title} width={width} height={height} focused={focused} body={body} />;
}
