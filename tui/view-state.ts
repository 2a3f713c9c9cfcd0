/**
 * The UI's state (SAMPLE_SESSION.txt shows it in use): the panes' cursors and scrolls, the
 * layout, the message line, and the views the panes draw, derived from the model. React
 * components only read from here (subscribed through useSyncExternalStore). What moves the
 * cursors is in pane-moves.ts, what a key does in controller.ts: one class in three layers,
 * each a module with one job.
 */
import type { CommandConsole, Engine, LaneValue } from '#engine';
import { LineEditor } from './lineeditor.js';
import { computeLayout, type Layout, type PaneId, type Slot, slotOf, zoomed } from './layout.js';
import { Model } from './model.js';
import { type CodeView, type CursorState, ptxView, sourceView } from './panes/code.js';
import type { LanesData, LanesState } from './panes/lanes.js';
import type { MemoryState } from './panes/memory.js';
import type { StyledText, Wrapped } from './panes/text.js';
import { wrapRows } from './panes/text.js';
import { warpGeometry } from './panes/warps.js';
import { firstLine, lines } from './text.js';
import { centreOn, scrollTo } from './ui.js';
import { type VarRow, variableData, variableRows } from './variables.js';

export type Mode = 'normal' | 'command' | 'memory';
export type Tone = 'info' | 'error' | 'stop';

export interface Message {
  readonly text: string;
  readonly tone: Tone;
}

export class ViewState {
  readonly model: Model;
  /** The layout for the terminal size; `layout` is what is drawn (one pane when zoomed). */
  protected full: Layout;
  /** `z`: the focused pane fills the main area. */
  zoom = false;
  focus: PaneId = 'source';
  help = false;
  /** First line of the help overlay shown (it scrolls on short terminals). */
  helpTop = 0;
  mode: Mode = 'normal';
  /** The command line / address prompt (shown when `mode` is not normal). */
  readonly line = new LineEditor();
  message: Message = { text: '', tone: 'info' };
  consoleRows: StyledText[] = [];
  /** Source pane: cursor/scroll, and the file shown (kept when the thread has no line). */
  src: CursorState = { cursor: 1, top: 0 };
  srcFile: string | undefined;
  ptx: CursorState = { cursor: 1, top: 0 };
  /** Sideways scroll of the code panes: columns of text hidden on the left. */
  left: Record<'source' | 'ptx', number> = { source: 0, ptx: 0 };
  /** Lanes pane: the expression, and a cursor over the 32 lanes. */
  lanes: LanesState = { expr: undefined, cursor: 0, top: 0 };
  vars = { cursor: 0, top: 0, expanded: new Set<string>() as ReadonlySet<string> };
  /** Threads pane cursor; `follow` puts it on the focused thread (until the user moves it). */
  warps = { warp: 0, lane: 0, top: 0, follow: true };
  races = { cursor: 0, top: 0 };
  /** First visible line of scroll-only panes; -1 follows the end. */
  scroll: Record<'registers' | 'output' | 'console', number> = { registers: 0, output: -1, console: -1 };
  memory: MemoryState = { space: 'global', address: undefined, format: 'hex', label: '' };
  /** While picking a thread (`t`): the pane to return to, and what the Threads slot showed. */
  picking: PaneId | undefined;
  protected pickingShown: PaneId | undefined;
  onExit: (code: number) => void = () => {};

  protected racesChecked: 'no' | 'running' | 'done' = 'no';
  /** Bytes of a legacy (non-SGR) mouse report still to drop. */
  protected legacyMouse = 0;
  protected readonly shown = new Map<string, PaneId>();
  protected version = 0;
  protected readonly listeners = new Set<() => void>();

  constructor(readonly engine: Engine, readonly console: CommandConsole, sourceDir: string | undefined, cols: number, rows: number) {
    this.model = new Model(engine, sourceDir);
    this.full = computeLayout(cols, rows);
    this.follow(true);
    const f = engine.fault?.message;
    // a step limit says where the warps spin (exec/spin.ts) next to the first line
    const spin = f?.split('\n').find((l) => l.trim().startsWith('spinning at'))?.trim();
    this.message = f
      ? { text: `run ended with a fault at step ${engine.fault?.at.step}: ${firstLine(f)}${spin ? ` — ${spin}` : ''}`, tone: 'error' }
      : engine.interrupted
        ? { text: `recording stopped (Ctrl-C) after ${engine.total} steps, before the kernel finished. ? for help, : for commands.`, tone: 'info' }
        : { text: `${engine.total} steps recorded. ? for help, : for commands.`, tone: 'info' };
  }

  // ---- store protocol (useSyncExternalStore) ----

  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };

  getVersion = (): number => this.version;

  protected changed(): void {
    this.version++;
    for (const l of this.listeners) l();
  }

  // ---- geometry ----

  get layout(): Layout {
    return this.zoom ? zoomed(this.full, this.focus) : this.full;
  }

  resize(cols: number, rows: number): void {
    this.full = computeLayout(cols, rows);
    this.follow(false);
    this.changed();
  }

  slotKey(s: Slot): string {
    return s.panes.join(',');
  }

  /** The pane a slot shows: the focused one if it lives there, else the last one shown. */
  visibleIn(s: Slot): PaneId {
    if (s.panes.includes(this.focus)) return this.focus;
    return this.shown.get(this.slotKey(s)) ?? s.panes[0]!;
  }

  isVisible(p: PaneId): boolean {
    const s = slotOf(this.layout, p);
    return s !== undefined && this.visibleIn(s) === p;
  }

  /** Body size (without the title line) of a pane's slot. */
  paneSize(p: PaneId): { w: number; h: number } {
    const s = slotOf(this.layout, p);
    return s ? { w: s.w, h: Math.max(1, s.h - 1) } : { w: this.layout.cols, h: Math.max(1, this.layout.mainHeight - 1) };
  }

  protected show(p: PaneId): void {
    const s = slotOf(this.layout, p);
    if (s) this.shown.set(this.slotKey(s), p);
  }

  protected setFocus(p: PaneId): void {
    this.focus = p;
    this.show(p);
  }

  // ---- views shared with the panes ----

  sourceView(): CodeView {
    return sourceView(this.model, this.srcFile);
  }

  ptxView(): CodeView {
    return ptxView(this.model);
  }

  varRows(): VarRow[] {
    return variableRows(variableData(this.model), this.vars.expanded);
  }

  /** The Variables cursor, within the current rows (they change with the position). */
  varCursor(rows: readonly VarRow[] = this.varRows()): number {
    return Math.max(0, Math.min(this.vars.cursor, rows.length - 1));
  }

  /**
   * The race report. The first `info races` runs the race checker over the whole recording
   * (seconds on a long one), so it runs after a frame has been shown, not inside the render
   * that first needs it; later calls only format the engine's cached report.
   */
  raceRows(): StyledText[] {
    if (this.racesChecked !== 'done') {
      if (this.racesChecked === 'no') {
        this.racesChecked = 'running';
        setTimeout(() => {
          this.model.raceRows();
          this.racesChecked = 'done';
          this.model.forget('wrapped:races:');
          this.changed();
        }, 0);
      }
      return [{ text: 'checking the recording for races…', style: { dim: true } }];
    }
    const r = this.model.raceRows();
    return r.rows.map((row) => ({ text: row.text, ...(r.error ? { style: { color: 'red' } } : {}) }));
  }

  /**
   * The Lanes pane's values: the engine's typed `lanes(expr)` for the focused warp, once per
   * position (the model's cache is emptied at every stop), so the pane follows each stop.
   */
  laneData(): LanesData | undefined {
    const expr = this.lanes.expr;
    if (expr === undefined) return undefined;
    return this.model.cached(`lanes:${expr}`, (): LanesData => {
      try {
        return { rows: this.engine.lanes(expr) };
      } catch (e) {
        return { error: e instanceof Error ? e.message : String(e) };
      }
    });
  }

  protected laneRows(): readonly LaneValue[] {
    const d = this.laneData();
    return d && 'rows' in d ? d.rows : [];
  }

  /** First lane shown in the Lanes pane, keeping the cursor in view (the header line stays). */
  lanesTop(): number {
    const n = this.laneRows().length;
    return scrollTo(this.lanes.top, Math.min(this.lanes.cursor, Math.max(0, n - 1)), Math.max(1, this.paneSize('lanes').h - 1), n);
  }

  /** A text pane's rows wrapped to its width. */
  wrapped(p: 'races' | 'output' | 'console'): Wrapped {
    const { w } = this.paneSize(p);
    if (p === 'console') return wrapRows(this.consoleRows, w);
    return this.model.cached(`wrapped:${p}:${w}`, () => wrapRows(p === 'races' ? this.raceRows() : this.model.outputRows(), w));
  }

  /** First visible line of the Races pane, keeping the cursor's race line in view. */
  racesTop(): number {
    const wr = this.wrapped('races');
    const { h } = this.paneSize('races');
    const first = wr.first[this.races.cursor] ?? 0;
    const last = (wr.first[this.races.cursor + 1] ?? wr.lines.length) - 1;
    return scrollTo(scrollTo(this.races.top, last, h, wr.lines.length), first, h, wr.lines.length);
  }

  // ---- following the position ----

  /** After the position or focus changed: put the code cursors on the current line. */
  protected follow(moved: boolean): void {
    const w = this.model.where();
    if (w.file !== undefined) this.srcFile = w.file;
    const sv = this.sourceView();
    const sh = this.paneSize('source').h;
    // Keep a few lines of context around the current line (what runs next matters).
    if (moved && sv.current > 0) this.src = { cursor: sv.current, top: centreOn(this.src.top, sv.current - 1, sh, sv.lines.length, 3) };
    else this.src = { cursor: Math.min(Math.max(1, this.src.cursor), Math.max(1, sv.lines.length)), top: scrollTo(this.src.top, this.src.cursor - 1, sh, sv.lines.length) };
    const pv = this.ptxView();
    const ph = this.paneSize('ptx').h;
    if (moved && pv.current > 0) this.ptx = { cursor: pv.current, top: centreOn(this.ptx.top, pv.current - 1, ph, pv.lines.length, 3) };
    else this.ptx = { cursor: this.ptx.cursor, top: scrollTo(this.ptx.top, this.ptx.cursor - 1, ph, pv.lines.length) };
    if (moved) {
      this.warps = { ...this.warps, follow: true };
      // the Lanes cursor goes back to the focused lane, as the Threads cursor does (its scroll
      // is worked out when drawn: no lanes are read here for a pane that may be hidden)
      this.lanes = { ...this.lanes, cursor: w.lane };
    }
  }

  /** The Threads pane cursor (warp index into warps(), lane). */
  warpCursor(): { warp: number; lane: number } {
    if (!this.warps.follow) return this.warps;
    const w = this.model.where();
    const i = this.model.warps().findIndex((x) => x.block.join() === w.block.join() && x.warp === w.warp);
    return i >= 0 ? { warp: i, lane: w.lane } : this.warps;
  }

  /** First visible line of the Threads pane: the stored one, moved to show the cursor's warp. */
  warpTop(): number {
    const ws = this.model.warps();
    const { w, h } = this.paneSize('warps');
    const geo = warpGeometry(ws, w);
    const i = this.warpCursor().warp;
    const first = geo.firstLine[i] ?? 0;
    const last = first + Math.ceil(Math.max(1, ws[i]?.lanes.length ?? 1) / geo.perLine) - 1;
    // Show the block header with the first warp of a block.
    const firstInBlock = i === 0 || ws[i - 1]?.block.join() !== ws[i]?.block.join();
    const top = scrollTo(this.warps.top, last, h, geo.lineCount);
    return scrollTo(top, firstInBlock ? first - 1 : first, h, geo.lineCount);
  }

  protected say(text: string, tone: Tone = 'info'): void {
    this.message = { text, tone };
  }
}
