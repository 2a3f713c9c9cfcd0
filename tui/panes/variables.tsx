/** Variables of the focused thread: a tree by group and address space, cursor for `w` / Enter / `x`. */
import React from 'react';
import { fit } from '../text.js';
import { type Line, PaneFrame, seg } from '../ui.js';
import type { VarRow } from '../variables.js';

function rowLine(r: VarRow, width: number): Line {
  switch (r.kind) {
    case 'header': return [seg(fit(` ${r.label}`, width), { color: 'magenta', bold: true })];
    case 'text': return [seg(fit(` ${r.text}`, width), r.error ? { color: 'red' } : undefined)];
    case 'var': {
      const n = r.node;
      const twisty = n.children && n.children.length ? (r.expanded ? '▾' : '▸') : ' ';
      const head = `${'  '.repeat(r.depth)} ${twisty} `;
      const name = n.name;
      const value = n.children && n.children.length && !r.expanded && n.value === '' ? '{…}' : n.value;
      const type = ` ${n.type}`;
      const room = Math.max(0, width - head.length - name.length - 3);
      const v = value.length > room ? fit(value, room) : value;
      const pad = Math.max(0, width - head.length - name.length - 3 - v.length);
      const ty = type.length <= pad ? fit(type, pad) : ' '.repeat(pad);
      return [seg(head), seg(name, { color: 'cyan' }), seg(' = '), seg(v, { bold: true }), seg(ty, { dim: true })];
    }
  }
}

export function variableLines(rows: readonly VarRow[], top: number, width: number, height: number): Line[] {
  const out: Line[] = [];
  for (let i = top; i < Math.min(rows.length, top + height); i++) out.push(rowLine(rows[i]!, width));
  return out;
}

export function VariablesPane({ rows, cursor, top, width, height, focused, title }: {
  rows: readonly VarRow[]; cursor: number; top: number; width: number; height: number; focused: boolean; title: Line;
}): React.JSX.Element {
  return <PaneFrame title={title} width={width} height={height} focused={focused} body={variableLines(rows, top, width, height - 1)}
    selected={focused ? cursor - top : undefined} />;
}
