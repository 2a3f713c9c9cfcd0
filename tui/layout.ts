/**
 * Screen layout: which panes are visible where, for a terminal size. Pure geometry, so it can be
 * tested without a terminal. The frame is `rows - 1` lines tall (Ink clears the whole screen on
 * every render when a frame reaches the terminal's height) and exactly `cols` wide.
 *
 * The main area is a row of columns; each column is a stack of slots; a slot shows one pane at a
 * time and has tabs when several panes share it (small terminals share more).
 */

export type PaneId = 'source' | 'ptx' | 'variables' | 'registers' | 'memory' | 'warps' | 'lanes' | 'races' | 'output' | 'console';

export const PANE_TITLES: Record<PaneId, string> = {
  source: 'Source', ptx: 'PTX', variables: 'Variables', registers: 'Registers', memory: 'Memory',
  warps: 'Threads', lanes: 'Lanes', races: 'Races', output: 'Output', console: 'Console',
};

/** Short tab labels for narrow tabbed slots. */
export const PANE_SHORT: Record<PaneId, string> = {
  source: 'Src', ptx: 'PTX', variables: 'Vars', registers: 'Regs', memory: 'Mem',
  warps: 'Thr', lanes: 'Lane', races: 'Race', output: 'Out', console: 'Con',
};

export interface Slot {
  readonly id: number;
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
  readonly panes: readonly PaneId[];
}

export interface Column {
  readonly x: number;
  readonly w: number;
  readonly slots: readonly Slot[];
}

export interface Layout {
  readonly cols: number;
  /** Lines in the frame (terminal rows - 1). */
  readonly height: number;
  /** Rows of the main area (between the header and the timeline). */
  readonly mainHeight: number;
  readonly columns: readonly Column[];
  /** Pane order for Tab. */
  readonly focusOrder: readonly PaneId[];
  readonly tooSmall: boolean;
}

/** Header, timeline, message/command line, key hints. */
export const FIXED_ROWS = 4;
export const MIN_COLS = 40;
export const MIN_ROWS = 12;

interface ColumnSpec { readonly weight: number; readonly slots: readonly { readonly weight: number; readonly panes: readonly PaneId[] }[] }

const SIDE: readonly PaneId[] = ['variables', 'registers', 'warps', 'lanes', 'memory', 'races', 'output', 'console'];

function spec(cols: number, rows: number): ColumnSpec[] {
  const code = { weight: 3, slots: [{ weight: 3, panes: ['source'] as PaneId[] }, { weight: 2, panes: ['ptx'] as PaneId[] }] };
  if (cols >= 180 && rows >= 40) {
    return [
      { weight: 8, slots: code.slots },
      { weight: 6, slots: [{ weight: 2, panes: ['variables'] }, { weight: 1, panes: ['registers'] }, { weight: 1, panes: ['memory'] }] },
      { weight: 6, slots: [{ weight: 2, panes: ['warps', 'lanes'] }, { weight: 1, panes: ['races'] }, { weight: 1, panes: ['console', 'output'] }] },
    ];
  }
  // Memory never shares a slot with Variables: `x` on a variable shows both side by side.
  if (cols >= 120) {
    return [
      { weight: 8, slots: code.slots },
      { weight: 6, slots: [{ weight: 3, panes: ['variables'] }, { weight: 2, panes: ['registers'] }] },
      { weight: 6, slots: [{ weight: 1, panes: ['warps', 'lanes'] }, { weight: 1, panes: ['console', 'memory', 'output', 'races'] }] },
    ];
  }
  if (rows >= 40) {
    return [
      code,
      { weight: 2, slots: [{ weight: 1, panes: ['variables', 'registers'] }, { weight: 1, panes: ['warps', 'lanes', 'memory', 'console', 'output', 'races'] }] },
    ];
  }
  return [code, { weight: 2, slots: [{ weight: 1, panes: SIDE }] }];
}

/** Split `total` into integer parts proportional to `weights` (largest remainder), each >= `min` when possible. */
export function split(total: number, weights: readonly number[], min = 1): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (total * w) / sum);
  const parts = exact.map((x) => Math.max(min, Math.floor(x)));
  let rest = total - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0]).map(([, i]) => i);
  for (let k = 0; rest > 0; k++, rest--) parts[order[k % parts.length]!]!++;
  // Minimums that do not fit: take back from the largest parts (the total always holds).
  while (rest < 0) {
    const i = parts.indexOf(Math.max(...parts));
    if (parts[i]! <= 1) break;
    parts[i]!--;
    rest++;
  }
  return parts;
}

export function computeLayout(cols: number, rows: number): Layout {
  const height = Math.max(1, rows - 1);
  const mainHeight = Math.max(0, height - FIXED_ROWS);
  if (cols < MIN_COLS || rows < MIN_ROWS) return { cols, height, mainHeight, columns: [], focusOrder: ['source'], tooSmall: true };
  const specs = spec(cols, rows);
  // One gutter column between adjacent columns.
  const widths = split(cols - (specs.length - 1), specs.map((s) => s.weight), 10);
  const columns: Column[] = [];
  const focusOrder: PaneId[] = [];
  let x = 0;
  let id = 0;
  specs.forEach((cs, ci) => {
    const w = widths[ci]!;
    const heights = split(mainHeight, cs.slots.map((s) => s.weight), 3);
    let y = 1;
    const slots: Slot[] = cs.slots.map((s, si) => {
      const slot: Slot = { id: id++, x, y, w, h: heights[si]!, panes: s.panes };
      y += slot.h;
      focusOrder.push(...s.panes);
      return slot;
    });
    columns.push({ x, w, slots });
    x += w + 1;
  });
  return { cols, height, mainHeight, columns, focusOrder, tooSmall: false };
}

/** The slot that hosts a pane in this layout. */
export function slotOf(layout: Layout, pane: PaneId): Slot | undefined {
  for (const c of layout.columns) for (const s of c.slots) if (s.panes.includes(pane)) return s;
  return undefined;
}

/**
 * The layout with one pane filling the whole main area (the zoom key). Tab keeps the full
 * layout's order, so it walks the panes one full-screen view at a time.
 */
export function zoomed(layout: Layout, pane: PaneId): Layout {
  if (layout.tooSmall) return layout;
  const slot: Slot = { id: 0, x: 0, y: 1, w: layout.cols, h: layout.mainHeight, panes: [pane] };
  return { ...layout, columns: [{ x: 0, w: layout.cols, slots: [slot] }] };
}

/**
 * A slot's tab labels as its title draws them: ' ' then each label and a space; full names when
 * they fit, short ones otherwise. One function for the title and for a click on it.
 */
export function tabLabels(slot: Slot): string[] {
  const long = slot.panes.reduce((n, p) => n + PANE_TITLES[p].length + 1, 1) <= slot.w - 8;
  return slot.panes.map((p) => (long ? PANE_TITLES[p] : PANE_SHORT[p]));
}

/** The pane whose tab is at column `x` of a tabbed slot's title (x from the slot's left edge). */
export function tabAt(slot: Slot, x: number): PaneId | undefined {
  if (slot.panes.length < 2) return undefined;
  let at = 1;
  const labels = tabLabels(slot);
  for (let i = 0; i < labels.length; i++) {
    if (x >= at && x < at + labels[i]!.length) return slot.panes[i];
    at += labels[i]!.length + 1;
  }
  return undefined;
}
