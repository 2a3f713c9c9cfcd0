/**
 * Source and PTX panes: numbered lines with a gutter for breakpoints (● enabled, ○ disabled) and
 * the current line (▶, highlighted). The cursor (for `b`) is shown when the pane has focus, as
 * the selected row.
 */
import React from 'react';
import type { Model } from '../model.js';
import { type HostStop, noDeviceThread } from '#engine';
import { baseName, fit, padStart, sanitize } from '../text.js';
import { type Line, PaneFrame, seg } from '../ui.js';

export interface CodeView {
  readonly kind: 'source' | 'ptx';
  readonly title: string;
  /** File name as the PTX names it (source views), for `break file:line`. */
  readonly file: string | undefined;
  readonly lines: readonly string[];
  /** 1-based current line, 0 when the focused thread has none here. */
  readonly current: number;
  readonly breakpoints: ReadonlyMap<number, boolean>;
}

export interface CursorState {
  /** 1-based cursor line. */
  readonly cursor: number;
  /** 0-based first visible line. */
  readonly top: number;
}

/** Columns before the text: breakpoint mark, ▶/› marker, line number, space (a click here toggles a breakpoint). */
export function gutterWidth(v: CodeView): number {
  return Math.max(3, String(v.lines.length).length) + 4;
}

/** The PTX of the focused thread's function, current instruction marked (none at a host call: no instruction runs). */
export function ptxView(model: Model): CodeView {
  return model.cached('ptxView', () => {
    const w = model.where();
    const current = w.state === 'exited' || w.state === 'retired' || model.engine.hostStop() ? 0 : model.ptxLine(w.function, w.pc);
    return { kind: 'ptx', title: `PTX ${baseName(model.engine.ptxPath)}`, file: undefined, lines: model.ptxLines, current, breakpoints: model.ptxBreakpoints() };
  });
}

/**
 * The CUDA source of the focused thread (or of `lastFile` when the thread has no line now, e.g.
 * after it exited); the PTX itself when no source file can be found.
 */
export function sourceView(model: Model, lastFile: string | undefined): CodeView {
  return model.cached(`sourceView:${lastFile ?? ''}`, () => {
    const host = model.engine.hostStop();
    if (host) return hostView(model, host);
    const w = model.where();
    // A thread that has not started (or has exited) has no line: show where it will start, or
    // the file shown last.
    const pending = w.file === undefined && w.state === 'not-started' ? model.locAt(w.function, w.pc) : undefined;
    const file = w.file ?? pending?.file ?? lastFile;
    const src = file === undefined ? undefined : model.sources.get(file);
    if (!src) {
      const p = ptxView(model);
      const why = file === undefined ? 'no .file/.loc' : `${baseName(file)} not found`;
      return { ...p, title: `Source (${why}; showing PTX)` };
    }
    const current = w.file === file && w.line > 0 ? w.line : pending && pending.file === file ? pending.line : 0;
    return {
      kind: 'source', title: `Source ${baseName(src.path)}`, file, lines: src.lines, current,
      breakpoints: model.sourceBreakpoints().get(baseName(file!)) ?? new Map(),
    };
  });
}

/**
 * At a host call no device thread runs: the program's own source at the call's line (as gdb
 * shows a host frame), or one line naming the call where that source cannot be found.
 */
function hostView(model: Model, host: HostStop): CodeView {
  const src = model.engine.hostSource();
  const title = `Host ${host.what}${host.function ? ` in ${host.function}` : ''} · ${src ? baseName(src.path) : 'source not found'}`;
  if (!src || host.sourceLine === undefined) return { kind: 'source', title, file: undefined, lines: [noDeviceThread(host)], current: 0, breakpoints: new Map() };
  const file = host.file!;
  return {
    kind: 'source', title, file: src.path, lines: src.lines.map((l) => sanitize(l)), current: host.sourceLine,
    breakpoints: model.sourceBreakpoints().get(file) ?? new Map(),
  };
}

const CURRENT = { color: 'white', bg: 'blue', bold: true } as const;

/** Body lines of a code view from `top`, the text shifted `left` columns (sideways scroll; the gutter stays). */
export function codeLines(v: CodeView, st: CursorState, width: number, height: number, focused: boolean, left = 0): Line[] {
  const digits = Math.max(3, String(v.lines.length).length);
  const textW = Math.max(0, width - gutterWidth(v));
  const out: Line[] = [];
  for (let i = st.top; i < Math.min(v.lines.length, st.top + height); i++) {
    const n = i + 1;
    const bp = v.breakpoints.get(n);
    const isCur = n === v.current;
    const isCursor = focused && n === st.cursor;
    const mark = bp === undefined ? seg(' ') : seg(bp ? '●' : '○', { color: 'red', bold: true });
    const arrow = isCur ? seg('▶', { color: 'green', bold: true }) : seg(isCursor ? '›' : ' ', { color: 'cyan', bold: true });
    const num = seg(padStart(String(n), digits + 1) + ' ', { dim: !isCur && !isCursor });
    const shown = left > 0 ? v.lines[i]!.slice(left) : v.lines[i]!;
    const text = isCur ? seg(fit(shown, textW), CURRENT) : seg(shown);
    out.push([mark, arrow, num, text]);
  }
  return out;
}

export function CodePane({ view, state, left, width, height, focused }: {
  view: CodeView; state: CursorState; left: number; width: number; height: number; focused: boolean;
}): React.JSX.Element {
  const info = view.current > 0 ? `:${view.current}` : '';
  // the first column shown, when scrolled sideways (so a shifted view is not mistaken for the code)
  const col = left > 0 ? `  col ${left + 1}→` : '';
  const selected = focused ? state.cursor - 1 - state.top : undefined;
  return <PaneFrame title={[seg(` ${view.title}${info}`), seg(col, { bold: true })]} width={width} height={height} focused={focused}
    body={codeLines(view, state, width, height - 1, focused, left)} selected={selected} />;
}
