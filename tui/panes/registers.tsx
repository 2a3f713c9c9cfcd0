/**
 * Registers of the focused thread in the selected frame, in as many columns as fit; values the
 * focused warp's last step changed are highlighted.
 */
import React from 'react';
import type { RegisterValue } from '#engine';
import { formatRegister } from '../format.js';
import { fit, padStart } from '../text.js';
import { type Line, PaneFrame, seg } from '../ui.js';

const CELL = 24;

export function registerColumns(width: number): number {
  return Math.max(1, Math.floor((width + 1) / (CELL + 1)));
}

/** Number of body lines the registers take at this width. */
export function registerLineCount(regs: readonly RegisterValue[], width: number): number {
  return Math.ceil(regs.length / registerColumns(width));
}

export function registerLines(regs: readonly RegisterValue[], width: number, top: number, height: number): Line[] {
  const cols = registerColumns(width);
  const cellW = Math.floor((width - (cols - 1)) / cols);
  const nameW = Math.min(7, Math.max(...regs.map((r) => r.name.length), 3));
  const rows = Math.ceil(regs.length / cols);
  const out: Line[] = [];
  // Column-major (like a phone book): %r1..%rN read downwards.
  for (let row = top; row < Math.min(rows, top + height); row++) {
    const line = [];
    for (let c = 0; c < cols; c++) {
      const r = regs[c * rows + row];
      if (!r) break;
      const value = fit(formatRegister(r.type, r.bits), Math.max(1, cellW - nameW - 1));
      if (c > 0) line.push(seg(' '));
      line.push(seg(padStart(r.name.slice(0, nameW), nameW) + ' ', { color: 'cyan' }));
      line.push(seg(value, r.changed ? { color: 'yellow', bold: true } : undefined));
    }
    out.push(line);
  }
  return out;
}

/** `none`: why there are no registers when that is known (a host call: no device thread). */
export function RegistersPane({ regs, top, width, height, focused, title, none }: {
  regs: readonly RegisterValue[]; top: number; width: number; height: number; focused: boolean; title: Line; none?: string | undefined;
}): React.JSX.Element {
  const changed = regs.filter((r) => r.changed).length;
  const t: Line = [...title, seg(changed ? ` (${changed} changed)` : '')];
  const body = regs.length ? registerLines(regs, width, top, height - 1) : (none ?? 'no registers (thread exited?)').split('\n').map((t) => [seg(` ${t}`, { dim: true })]);
  return <PaneFrame title={t} width={width} height={height} focused={focused} body={body} />;
}
