/** The `?` overlay: every key binding, drawn over the panes (any key closes it). */
import React from 'react';
import { Box } from 'ink';
import { HELP } from '../keys.js';
import { type Line, Row, seg } from '../ui.js';
import { LANE_GLYPH } from './warps.js';

/** The help as groups of lines (a group is never split between columns). */
export function helpGroups(): Line[][] {
  const groups: Line[][] = HELP.map((g) => [
    [seg(g.title, { bold: true, color: 'cyan' })],
    ...g.entries.map((e): Line => [seg(`  ${e.keys.padEnd(14)}`, { bold: true }), seg(e.what)]),
  ]);
  groups.push([
    [seg('Threads pane / timeline', { bold: true, color: 'cyan' })],
    [seg('  '), ...Object.values(LANE_GLYPH).slice(0, 4).flatMap((g) => [seg(g.ch, g.style), seg(` ${g.label}  `)])],
    [seg('  ┃ now  b breakpoint  w watchpoint  ! race  ✖ fault')],
  ]);
  return groups;
}

/** Centred box over the panes; two columns when the terminal is wide enough. */
export function HelpOverlay({ width, height, top }: { width: number; height: number; top: number }): React.JSX.Element {
  const groups = helpGroups();
  const colW = 78;
  const twoCols = width >= 2 * colW + 5;
  const cols: Line[][] = twoCols ? [[], []] : [[]];
  if (twoCols) {
    // Fill the first column up to about half of all lines, whole groups only.
    const total = groups.reduce((n, g) => n + g.length + 1, 0);
    for (const g of groups) (cols[0]!.length + g.length <= total / 2 + 2 ? cols[0]! : cols[1]!).push(...g, []);
  } else {
    for (const g of groups) cols[0]!.push(...g, []);
  }
  const footer: Line = [seg('any key closes this help', { dim: true })];
  const scrollFooter: Line = [seg('↑↓ PgUp PgDn scroll, any other key closes this help', { dim: true })];
  const inner = Math.min(width - 4, twoCols ? 2 * colW + 1 : colW);
  const cw = twoCols ? colW : inner;
  const n = Math.max(...cols.map((c) => c.length));
  const body: Line[] = [];
  for (let i = 0; i < n; i++) {
    const left = cols[0]![i] ?? [];
    body.push(twoCols ? [...padTo(left, cw), seg(' '), ...(cols[1]![i] ?? [])] : left);
  }
  body.push(footer);
  const h = Math.min(height, body.length + 2);
  // Too tall: show a window of it (scrolled by the arrows) above a footer that says so.
  const room = h - 3;
  const t = Math.max(0, Math.min(top, body.length - 1 - room));
  const shown = body.length + 2 > height ? [...body.slice(t, t + room), scrollFooter] : body;
  return (
    <Box position="absolute" marginLeft={Math.max(0, Math.floor((width - inner - 2) / 2))} marginTop={Math.max(0, Math.floor((height - h) / 2))}
      width={inner + 2} height={h} flexDirection="column" borderStyle="round" borderColor="cyan">
      {shown.map((l, i) => <Row key={i} line={l} width={inner} fill={{}} />)}
    </Box>
  );
}

function padTo(line: Line, w: number): Line {
  const len = line.reduce((n, s) => n + s.text.length, 0);
  return len >= w ? line : [...line, seg(' '.repeat(w - len))];
}
