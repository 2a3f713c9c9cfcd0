/**
 * Memory pane: bytes of one state space as the focused thread sees them (shared of its block,
 * local of itself), in hex with ASCII or as typed elements.
 */
import React from 'react';
import type { SpaceName } from '#engine';
import { asciiOf, ELEM_WIDTH, elemBytes, formatElem, type MemFormat } from '../format.js';
import type { Model } from '../model.js';
import { padStart } from '../text.js';
import { type Line, PaneFrame, seg } from '../ui.js';

export interface MemoryState {
  readonly space: SpaceName;
  readonly address: bigint | undefined;
  readonly format: MemFormat;
  /** What the user asked for (`&x`, `y[3]`, `0x100`), for the title. */
  readonly label: string;
}

export function addrText(space: SpaceName, a: bigint): string {
  const digits = space === 'global' || space === 'generic' ? 12 : 6;
  return a.toString(16).padStart(digits, '0');
}

/** Hex rows: bytes per row, and whether the ASCII column fits too. */
function hexRow(room: number): { n: number; ascii: boolean } {
  for (const n of [16, 8]) if (n * 4 + 1 <= room) return { n, ascii: true };
  for (const n of [8, 4]) if (n * 3 <= room) return { n, ascii: false };
  return { n: 4, ascii: false };
}

/** Bytes per display row for a width and format. */
export function bytesPerRow(st: MemoryState, width: number): number {
  const addrW = addrText(st.space, st.address ?? 0n).length + 2;
  const room = width - addrW;
  if (st.format === 'hex') return hexRow(room).n;
  const eb = elemBytes(st.format);
  const cell = ELEM_WIDTH[st.format] + 1;
  const n = Math.max(1, Math.floor(room / cell));
  const pow = 2 ** Math.floor(Math.log2(n));
  return Math.min(16, pow) * eb;
}

export function memoryLines(model: Model, st: MemoryState, width: number, height: number): Line[] {
  if (st.address === undefined) {
    return [
      [seg(' Enter: address or symbol, e.g.', { dim: true })],
      [seg('   0x7f0000000000   shared 0x40', { dim: true })],
      [seg('   local 0   x   %rd4', { dim: true })],
      [seg(' x in Variables: show a variable', { dim: true })],
      [seg(' < >: format', { dim: true })],
    ];
  }
  const bpr = bytesPerRow(st, width);
  const len = bpr * height;
  const addr = st.address;
  const bytes = model.cached(`mem:${st.space}:${addr}:${len}`, () => {
    try {
      return model.engine.readBytes(st.space, addr, len);
    } catch {
      return undefined;
    }
  });
  const out: Line[] = [];
  const addrW = addrText(st.space, addr).length;
  // typed cells of every row first: one column width for the whole window
  const typed: (string[] | undefined)[] = [];
  const eb = elemBytes(st.format);
  for (let r = 0; r < height; r++) {
    const row = bytes ? bytes.subarray(r * bpr, (r + 1) * bpr) : readRow(model, st, addr + BigInt(r * bpr), bpr);
    if (!row || st.format === 'hex') { typed.push(undefined); continue; }
    const dv = new DataView(row.buffer, row.byteOffset, row.byteLength);
    const cells: string[] = [];
    for (let i = 0; i + eb <= row.length; i += eb) cells.push(formatElem(st.format, dv, i));
    typed.push(cells);
  }
  const cellW = typed.reduce((w, cs) => Math.max(w, ...(cs ?? []).map((c) => c.length)), ELEM_WIDTH[st.format]);
  for (let r = 0; r < height; r++) {
    const a = addr + BigInt(r * bpr);
    const head = seg(padStart(addrText(st.space, a), addrW) + ': ', { color: 'cyan' });
    // Read the window once; when it is partly unmapped, read row by row.
    const row = bytes ? bytes.subarray(r * bpr, (r + 1) * bpr) : readRow(model, st, a, bpr);
    if (!row) {
      out.push([head, seg('?? (unmapped)', { dim: true })]);
      continue;
    }
    const cells = typed[r];
    if (cells) {
      out.push([head, seg(cells.map((c) => padStart(c, cellW)).join(' '))]);
      continue;
    }
    const hx: string[] = [];
    let asc = '';
    for (let i = 0; i < row.length; i++) {
      hx.push(row[i]!.toString(16).padStart(2, '0'));
      asc += asciiOf(row[i]!);
    }
    const ascii = hexRow(width - addrW - 2).ascii;
    out.push([head, seg(hx.join(' ') + (ascii ? '  ' : '')), seg(ascii ? asc : '', { dim: true })]);
  }
  return out;
}

function readRow(model: Model, st: MemoryState, a: bigint, n: number): Uint8Array | undefined {
  return model.cached(`memrow:${st.space}:${a}:${n}`, () => {
    try {
      return model.engine.readBytes(st.space, a, n);
    } catch {
      return undefined;
    }
  });
}

export function MemoryPane({ model, st, width, height, focused, title }: {
  model: Model; st: MemoryState; width: number; height: number; focused: boolean; title: Line;
}): React.JSX.Element {
  // What is shown goes on the first body line: in a tabbed slot the title has no room for it.
  const body: Line[] = st.address === undefined
    ? memoryLines(model, st, width, height - 1)
    : [[seg(` ${st.space} ${st.label}`, { color: 'magenta', bold: true }), seg(` as ${st.format}`, { dim: true })], ...memoryLines(model, st, width, height - 2)];
  return <PaneFrame title={title} width={width} height={height} focused={focused} body={body} />;
}
