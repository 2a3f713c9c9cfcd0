/**
 * The UI's state and everything a key press does. React components only read from here
 * (subscribed through useSyncExternalStore); all session calls happen in this class, so a
 * render never runs a debugger command and the logic can be followed without the view.
 */
import type { Key } from 'ink';
import type { Session as DebugSession } from '../../engine/session.js';
import { consoleOf } from '../gdb/console.js';
import { formatForType, MEM_FORMATS, type MemFormat } from './format.js';
import { LineEditor } from './lineeditor.js';
import { resolveTarget } from './memtarget.js';
import { keyPresses, type MouseEvent, NAV_KEYS, type KeyPress, type NavKey, parseMouse } from './keys.js';
import { engineOf, type Engine, type LaneValue, type StopEvent } from '../../engine/api.js';
import type { BreakpointInfo, Dim3 } from '../../engine/types.js';
import { coordsOf } from '../../exec/launch.js';
import { breakText, displaysText, focusText, originText, stopText, watchText } from '../../engine/index.js';
import { computeLayout, type Layout, type PaneId, type Slot, slotOf, tabAt, zoomed } from './layout.js';
import { Model } from './model.js';
import { type CodeView, type CursorState, gutterWidth, ptxView, sourceView } from './panes/code.js';
import type { LanesData, LanesState } from './panes/lanes.js';
import { bytesPerRow, type MemoryState } from './panes/memory.js';
import { registerLineCount } from './panes/registers.js';
import { effectiveTop, type StyledText, type Wrapped, wrapRows } from './panes/text.js';
import { PREFIX as WARP_PREFIX, warpGeometry } from './panes/warps.js';
import { baseName, firstLine, lines } from './text.js';
import { centreOn, scrollTo } from './ui.js';
import { type VarRow, variableData, variableRows } from './variables.js';

export type Mode = 'normal' | 'command' | 'memory';
export type Tone = 'info' | 'error' | 'stop';

export interface Message {
  readonly text: string;
  readonly tone: Tone;
}

const CONSOLE_MAX = 5000;
/** Lines one wheel notch scrolls. */
const WHEEL_LINES = 3;
/** Columns ← / → scroll a code pane sideways. */
const SIDE_STEP = 8;

/**
 * The line of a command's reply worth the message line: the stop reason ("Breakpoint 1, ...")
 * rather than the position echo (`[step N/T] ...`, `fn at file:line`, the source line), which
 * the panes show anyway.
 */
export function summary(text: readonly string[]): string {
  const echo = (l: string): boolean => /^\[step \d+\/\d+\]/.test(l) || /^\d+\t/.test(l) || /^\S+ at \S+:\d+$/.test(l);
  return text.find((l) => !echo(l) && l.trim() !== '') ?? text[0] ?? '';
}

export class Controller {
  readonly model: Model;
  /** The layout for the terminal size; `layout` is what is drawn (one pane when zoomed). */
  private full: Layout;
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
  private pickingShown: PaneId | undefined;
  onExit: (code: number) => void = () => {};

  private racesChecked: 'no' | 'running' | 'done' = 'no';
  /** Bytes of a legacy (non-SGR) mouse report still to drop. */
  private legacyMouse = 0;
  private readonly shown = new Map<string, PaneId>();
  private version = 0;
  private readonly listeners = new Set<() => void>();

  constructor(readonly session: DebugSession, sourceDir: string | undefined, cols: number, rows: number) {
    this.model = new Model(session, sourceDir);
    this.full = computeLayout(cols, rows);
    this.follow(true);
    const f = session.faultMessage;
    // a step limit says where the warps spin (exec/spin.ts) next to the first line
    const spin = f?.split('\n').find((l) => l.trim().startsWith('spinning at'))?.trim();
    this.message = f
      ? { text: `run ended with a fault at step ${session.faultStep}: ${firstLine(f)}${spin ? ` — ${spin}` : ''}`, tone: 'error' }
      : session.interrupted
        ? { text: `recording stopped (Ctrl-C) after ${session.total} steps, before the kernel finished. ? for help, : for commands.`, tone: 'info' }
        : { text: `${session.total} steps recorded. ? for help, : for commands.`, tone: 'info' };
  }

  // ---- store protocol (useSyncExternalStore) ----

  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };

  getVersion = (): number => this.version;

  private changed(): void {
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

  private show(p: PaneId): void {
    const s = slotOf(this.layout, p);
    if (s) this.shown.set(this.slotKey(s), p);
  }

  private setFocus(p: PaneId): void {
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
        return { rows: engineOf(this.session).lanes(expr) };
      } catch (e) {
        return { error: e instanceof Error ? e.message : String(e) };
      }
    });
  }

  private laneRows(): readonly LaneValue[] {
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
    return this.model.cached(`wrapped:${p}:${w}`, () => wrapRows(p === 'races' ? this.raceRows() : lines(this.model.output()).map((t) => ({ text: t })), w));
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
  private follow(moved: boolean): void {
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

  // ---- running commands ----

  /** Run one line typed on the `:` console (the gdb language); record it in the Console; follow the position. */
  run(cmd: string, fromCommandLine = false): void {
    let output: string;
    let error = false;
    let moved = false;
    let quit = false;
    try {
      const r = consoleOf(engineOf(this.session)).execute(cmd, { repeatOnEmpty: fromCommandLine });
      ({ output, error, moved, quit } = r);
    } catch (e) {
      output = e instanceof Error ? e.message : String(e);
      error = true;
    }
    this.settle(cmd, output, error, moved, quit, fromCommandLine);
  }

  /**
   * Run a typed engine request for a key: its result is shown as the gdb language shows the same
   * request (`label` is the Console's name for it), so keys and typed commands read alike.
   */
  private act(label: string, f: (e: Engine) => string | StopEvent): void {
    const before = this.session.position();
    let output: string;
    let error = false;
    let moved: boolean;
    try {
      const r = f(engineOf(this.session));
      output = typeof r === 'string' ? r : stopText(engineOf(this.session), r);
      moved = typeof r !== 'string' || this.session.position() !== before;
      // `display` expressions follow every stop, whether a key or a typed command made it
      const shown = moved ? displaysText(engineOf(this.session)) : '';
      if (shown) output = `${output}\n${shown}`;
    } catch (e) {
      // as for a typed command: the message goes to the Console (an engine error, or a bug, which
      // the next render then reports as the crash it is)
      output = e instanceof Error ? e.message : String(e);
      error = true;
      moved = this.session.position() !== before;
    }
    this.settle(label, output, error, moved, false, false);
  }

  private settle(cmd: string, output: string, error: boolean, moved: boolean, quit: boolean, fromCommandLine: boolean): void {
    this.model.invalidate();
    this.log(cmd, output, error);
    const text = lines(output);
    const more = fromCommandLine && text.length > 1 && !this.isVisible('console');
    this.message = { text: summary(text) + (more ? '  (more in Console)' : ''), tone: error ? 'error' : moved ? 'stop' : 'info' };
    if (more) this.show('console');
    this.follow(moved);
    if (quit) this.onExit(0);
  }

  private log(cmd: string, output: string, error: boolean): void {
    this.consoleRows.push({ text: `(ptxdbg) ${cmd}`, style: { color: 'cyan' } });
    for (const l of lines(output)) this.consoleRows.push(error ? { text: l, style: { color: 'red' } } : { text: l });
    if (this.consoleRows.length > CONSOLE_MAX) this.consoleRows = this.consoleRows.slice(-CONSOLE_MAX);
    this.scroll.console = -1;
  }

  private say(text: string, tone: Tone = 'info'): void {
    this.message = { text, tone };
  }

  // ---- keys ----

  onKey(input: string, key: Key): void {
    try {
      // A terminal without SGR mouse mode sends the legacy report, ESC [ M and three raw bytes
      // (button, x, y + 32): they must not reach the keys (x = 78 reads as `n`), so they are dropped.
      if (input === '[M') { this.legacyMouse = 3; return; }
      if (this.legacyMouse > 0) {
        const n = Math.min(this.legacyMouse, input.length);
        this.legacyMouse -= n;
        input = input.slice(n);
        if (input === '') return;
      }
      const mouse = parseMouse(input);
      if (mouse) this.onMouse(mouse);
      else for (const k of keyPresses(input, key)) this.press(k);
    } catch (e) {
      // A bug behind one key must not take the terminal down with it: report and carry on.
      this.say(`internal error: ${e instanceof Error ? e.message : String(e)}`, 'error');
      this.log('(key)', e instanceof Error ? e.stack ?? e.message : String(e), true);
    }
    this.changed();
  }

  press(k: KeyPress): void {
    if (this.mode !== 'normal') { this.editKey(k); return; }
    if (k.ctrl && k.ch === 'c') { this.onExit(130); return; }
    if (this.help) {
      // The help scrolls when the terminal is too short for it; any other key closes it.
      const d = k.name === 'down' ? 1 : k.name === 'up' ? -1 : k.name === 'pageDown' ? 10 : k.name === 'pageUp' ? -10 : 0;
      if (d) this.helpTop = Math.max(0, this.helpTop + d);
      else this.help = false;
      return;
    }
    if (k.name) { this.namedKey(k); return; }
    if (k.ctrl) {
      if (k.ch === 'l') this.follow(true);
      return;
    }
    const ch = k.ch ?? '';
    const nav = NAV_KEYS[ch];
    if (nav) { this.navigate(nav); return; }
    switch (ch) {
      case 'q': this.onExit(0); return;
      case '?': this.help = true; this.helpTop = 0; return;
      case ':': this.enterInput('command'); return;
      case 'b': this.toggleBreakpoint(); return;
      case 'w': this.watchSelected(); return;
      case 't': this.pickThread(); return;
      case 'x': this.examineSelected(); return;
      case 'o': this.originSelected(); return;
      case 'L': this.lanesSelected(); return;
      case 'z': this.toggleZoom(); return;
      case '[': this.timeStep(-1); return;
      case ']': this.timeStep(1); return;
      case '{': this.markStep(-1); return;
      case '}': this.markStep(1); return;
      case '<': case '>': if (this.focus === 'memory') this.cycleFormat(ch === '>' ? 1 : -1); return;
      default: return;
    }
  }

  private namedKey(k: KeyPress): void {
    switch (k.name) {
      case 'tab': this.cycleFocus(1); return;
      case 'backTab': this.cycleFocus(-1); return;
      case 'escape': this.endPick(); return;
      case 'enter': this.activate(); return;
      default: this.move(k.name!, k.shift === true); return;
    }
  }

  private cycleFocus(d: number): void {
    const order = this.layout.focusOrder;
    const i = order.indexOf(this.focus);
    this.setFocus(order[(i + d + order.length) % order.length]!);
    this.picking = undefined;
    // a zoomed view has another height: bring the cursors back into it
    if (this.zoom) this.follow(false);
  }

  private toggleZoom(): void {
    this.zoom = !this.zoom;
    this.follow(false);
    this.say(this.zoom ? `zoom: ${this.focus} fills the screen (z: back, Tab: next pane)` : 'zoom off');
  }

  // ---- mouse ----

  /** The slot under a screen cell, and the pane it shows. */
  private hit(x: number, y: number): { slot: Slot; pane: PaneId } | undefined {
    for (const c of this.layout.columns) {
      if (x < c.x || x >= c.x + c.w) continue;
      for (const s of c.slots) if (y >= s.y && y < s.y + s.h) return { slot: s, pane: this.visibleIn(s) };
    }
    return undefined;
  }

  private onMouse(ev: MouseEvent): void {
    // while typing a command the line editor owns the input
    if (this.mode !== 'normal') return;
    if (this.help) {
      if (ev.action === 'wheelUp' || ev.action === 'wheelDown') this.helpTop = Math.max(0, this.helpTop + (ev.action === 'wheelUp' ? -3 : 3));
      else if (ev.action === 'press') this.help = false;
      return;
    }
    const hit = this.hit(ev.x, ev.y);
    if (!hit) return;
    switch (ev.action) {
      case 'wheelUp': case 'wheelDown': this.wheel(hit.pane, ev.action === 'wheelUp' ? -WHEEL_LINES : WHEEL_LINES); return;
      case 'wheelLeft': case 'wheelRight':
        if (hit.pane === 'source' || hit.pane === 'ptx') this.scrollSideways(hit.pane, ev.action === 'wheelLeft' ? -SIDE_STEP : SIDE_STEP);
        return;
      case 'press': if (ev.button === 0) this.click(hit.slot, hit.pane, ev.x - hit.slot.x, ev.y - hit.slot.y); return;
      default: return;
    }
  }

  /** A left click at (cx, cy) of a slot (cy 0 is its title line). */
  private click(slot: Slot, pane: PaneId, cx: number, cy: number): void {
    if (cy === 0) {
      // on a tab: that pane; elsewhere on the title: the pane shown
      this.setFocus(tabAt(slot, cx) ?? pane);
      this.picking = undefined;
      return;
    }
    this.setFocus(pane);
    this.picking = undefined;
    const row = cy - 1;
    const { h } = this.paneSize(pane);
    switch (pane) {
      case 'source': case 'ptx': {
        const v = pane === 'source' ? this.sourceView() : this.ptxView();
        const st = pane === 'source' ? this.src : this.ptx;
        const line = st.top + row + 1;
        if (line > v.lines.length) return;
        const next = { cursor: line, top: st.top };
        if (pane === 'source') this.src = next; else this.ptx = next;
        // the gutter (mark, number) toggles a breakpoint, as `b` on that line would
        if (cx < gutterWidth(v)) this.toggleBreakpoint();
        return;
      }
      case 'variables': {
        const rows = this.varRows();
        const top = scrollTo(this.vars.top, this.varCursor(rows), h, rows.length);
        if (top + row < rows.length) this.vars = { ...this.vars, cursor: top + row, top };
        return;
      }
      case 'races': {
        const top = this.racesTop();
        const owner = this.wrapped('races').owner[top + row];
        if (owner !== undefined) this.races = { cursor: owner, top };
        return;
      }
      case 'warps': {
        const ws = this.model.warps();
        const geo = warpGeometry(ws, this.paneSize('warps').w);
        const line = this.warpTop() + row;
        const i = ws.findIndex((w, k) => line >= geo.firstLine[k]! && line < geo.firstLine[k]! + Math.ceil(Math.max(1, w.lanes.length) / geo.perLine));
        if (i < 0) return;
        const first = (line - geo.firstLine[i]!) * geo.perLine;
        const lane = cx >= WARP_PREFIX && cx < WARP_PREFIX + geo.perLine ? first + cx - WARP_PREFIX : first;
        if (lane >= ws[i]!.lanes.length) return;
        this.warps = { ...this.warps, warp: i, lane, follow: false };
        this.warps = { ...this.warps, top: this.warpTop() };
        return;
      }
      case 'lanes': {
        // row 0 is the expression's line
        const i = this.lanesTop() + row - 1;
        if (row >= 1 && i < this.laneRows().length) this.lanes = { ...this.lanes, cursor: i, top: this.lanesTop() };
        return;
      }
      default: return;
    }
  }

  /** The wheel over a pane (focused or not): code panes scroll their view, the others as ↑/↓ do. */
  private wheel(pane: PaneId, d: number): void {
    if (pane === 'source' || pane === 'ptx') {
      const v = pane === 'source' ? this.sourceView() : this.ptxView();
      const st = pane === 'source' ? this.src : this.ptx;
      const { h } = this.paneSize(pane);
      const top = Math.max(0, Math.min(Math.max(0, v.lines.length - h), st.top + d));
      // the cursor stays on screen (where `b` acts), as in an editor
      const next = { cursor: Math.max(top + 1, Math.min(top + h, st.cursor)), top };
      if (pane === 'source') this.src = next; else this.ptx = next;
      return;
    }
    for (let i = 0; i < Math.abs(d); i++) this.move(d < 0 ? 'up' : 'down', false, pane);
  }

  /** Sideways scroll of a code pane, within its longest line. */
  private scrollSideways(pane: 'source' | 'ptx', d: number): void {
    const v = pane === 'source' ? this.sourceView() : this.ptxView();
    const textW = Math.max(1, this.paneSize(pane).w - gutterWidth(v));
    const longest = this.model.cached(`longest:${pane}:${v.title}`, () => v.lines.reduce((n, l) => Math.max(n, l.length), 0));
    this.left = { ...this.left, [pane]: Math.max(0, Math.min(Math.max(0, longest - textW), this.left[pane] + d)) };
  }

  /** Arrow/page keys in a pane (the focused one, or the one under the mouse wheel). */
  private move(name: NonNullable<KeyPress['name']>, shift = false, p: PaneId = this.focus): void {
    const { h } = this.paneSize(p);
    const delta = (n: number): number => {
      switch (name) {
        case 'up': return -1;
        case 'down': return 1;
        case 'pageUp': return -Math.max(1, h - 1);
        case 'pageDown': return Math.max(1, h - 1);
        case 'home': return -n;
        case 'end': return n;
        default: return 0;
      }
    };
    switch (p) {
      case 'source': case 'ptx': {
        if (name === 'left' || name === 'right') {
          const half = Math.max(1, Math.floor((this.paneSize(p).w - 8) / 2));
          this.scrollSideways(p, (name === 'left' ? -1 : 1) * (shift ? half : SIDE_STEP));
          return;
        }
        const v = p === 'source' ? this.sourceView() : this.ptxView();
        const st = p === 'source' ? this.src : this.ptx;
        const cursor = Math.max(1, Math.min(v.lines.length, st.cursor + delta(v.lines.length)));
        const next = { cursor, top: scrollTo(st.top, cursor - 1, h, v.lines.length) };
        if (p === 'source') this.src = next; else this.ptx = next;
        return;
      }
      case 'variables': {
        const rows = this.varRows();
        if (name === 'right' || name === 'left') { this.expand(rows[this.varCursor(rows)], name === 'right'); return; }
        const cursor = Math.max(0, Math.min(rows.length - 1, this.varCursor(rows) + delta(rows.length)));
        this.vars = { ...this.vars, cursor, top: scrollTo(this.vars.top, cursor, h, rows.length) };
        return;
      }
      case 'warps': this.moveWarpCursor(name, h); return;
      case 'lanes': {
        const n = this.laneRows().length;
        if (n === 0) return;
        const cursor = Math.max(0, Math.min(n - 1, this.lanes.cursor + delta(n)));
        this.lanes = { ...this.lanes, cursor };
        this.lanes = { ...this.lanes, top: this.lanesTop() };
        return;
      }
      case 'races': {
        const n = this.raceRows().length;
        const cursor = Math.max(0, Math.min(n - 1, this.races.cursor + delta(n)));
        this.races = { ...this.races, cursor };
        this.races = { cursor, top: this.racesTop() };
        return;
      }
      case 'memory': {
        if (this.memory.address === undefined) return;
        if (name === 'left' || name === 'right') { this.cycleFormat(name === 'right' ? 1 : -1); return; }
        const bpr = BigInt(bytesPerRow(this.memory, this.paneSize('memory').w));
        const rowsMoved = name === 'home' || name === 'end' ? 0 : delta(0);
        let a = this.memory.address + BigInt(rowsMoved) * bpr;
        if (a < 0n) a = 0n;
        this.memory = { ...this.memory, address: a };
        return;
      }
      case 'registers': case 'output': case 'console': {
        const count = p === 'registers' ? registerLineCount(this.model.registers(), this.paneSize('registers').w)
          : this.wrapped(p).lines.length;
        const cur = effectiveTop(this.scroll[p], count, h);
        let top = Math.max(0, Math.min(Math.max(0, count - h), cur + delta(count)));
        if (p !== 'registers' && top >= count - h) top = -1;
        this.scroll = { ...this.scroll, [p]: top };
        return;
      }
    }
  }

  private moveWarpCursor(name: NonNullable<KeyPress['name']>, h: number): void {
    const ws = this.model.warps();
    if (ws.length === 0) return;
    let { warp, lane } = this.warpCursor();
    const lanes = (i: number): number => Math.max(1, ws[i]!.lanes.length);
    const perLine = warpGeometry(ws, this.paneSize('warps').w).perLine;
    switch (name) {
      case 'left': if (lane > 0) lane--; else if (warp > 0) { warp--; lane = lanes(warp) - 1; } break;
      case 'right': if (lane < lanes(warp) - 1) lane++; else if (warp < ws.length - 1) { warp++; lane = 0; } break;
      case 'up': if (lane >= perLine) lane -= perLine; else if (warp > 0) warp--; break;
      case 'down': if (lane + perLine < lanes(warp)) lane += perLine; else if (warp < ws.length - 1) warp++; break;
      case 'pageUp': warp = Math.max(0, warp - Math.max(1, Math.floor(h / 2))); break;
      case 'pageDown': warp = Math.min(ws.length - 1, warp + Math.max(1, Math.floor(h / 2))); break;
      case 'home': warp = 0; lane = 0; break;
      case 'end': warp = ws.length - 1; break;
      default: break;
    }
    this.warps = { ...this.warps, warp, lane: Math.min(lane, lanes(warp) - 1), follow: false };
    this.warps = { ...this.warps, top: this.warpTop() };
  }

  /** Enter in the focused pane. */
  private activate(): void {
    switch (this.focus) {
      case 'variables': {
        const rows = this.varRows();
        const r = rows[this.varCursor(rows)];
        if (r?.kind === 'var') this.expand(r, !r.expanded);
        return;
      }
      case 'warps': this.focusThreadAtCursor(); return;
      case 'races': {
        // each row of the report knows the race it belongs to (see gdb/races.ts); below the
        // races (benign ones, barrier errors) the nearest race above is meant
        const rows = this.racesChecked === 'done' ? this.model.raceRows().rows : [];
        let n: number | undefined;
        for (let i = Math.min(this.races.cursor, rows.length - 1); i >= 0 && n === undefined; i--) n = rows[i]!.race;
        if (n !== undefined) this.act(`race ${n}`, (e) => e.gotoRace(n)); else this.say('no race on this line', 'error');
        return;
      }
      case 'memory': this.enterInput('memory'); return;
      case 'source': case 'ptx': this.toggleBreakpoint(); return;
      case 'lanes': this.focusLaneAtCursor(); return;
      default: return;
    }
  }

  private expand(r: VarRow | undefined, open: boolean): void {
    if (r?.kind !== 'var' || !r.node.children?.length) return;
    const e = new Set(this.vars.expanded);
    if (open) e.add(r.path); else e.delete(r.path);
    this.vars = { ...this.vars, expanded: e };
  }

  // ---- actions ----

  private navigate(k: NavKey): void {
    const m = k.move;
    this.act(k.label, (e) => (m.kind === 'step' ? e.step(m.request) : m.kind === 'finish' ? e.finish({ direction: m.direction }) : e.continue({ direction: m.direction })));
  }

  private toggleAt(ids: readonly number[], label: string, add: (e: Engine) => BreakpointInfo): void {
    if (ids.length) this.act(`delete ${ids.join(' ')}`, (e) => e.deleteBreakpoints(ids).join('\n'));
    else this.act(label, (e) => breakText(add(e), false));
  }

  private toggleBreakpoint(): void {
    const onPtx = this.focus === 'ptx';
    const v = onPtx ? this.ptxView() : this.sourceView();
    const line = onPtx ? this.ptx.cursor : this.src.cursor;
    if (v.kind === 'source' && v.file !== undefined) {
      const file = v.file;
      this.toggleAt(this.model.breakpointsAtSource(file, line), `break ${baseName(file)}:${line}`, (e) => e.addBreakpoint({ file, line }));
    } else {
      this.toggleAt(this.model.breakpointsAtPtx(line), `break ptx:${line}`, (e) => e.addBreakpoint({ ptxLine: line }));
    }
  }

  private selectedVar(): Extract<VarRow, { kind: 'var' }> | undefined {
    const rows = this.varRows();
    const r = rows[this.varCursor(rows)];
    return r?.kind === 'var' ? r : undefined;
  }

  private watchSelected(): void {
    const r = this.selectedVar();
    if (!r?.expr) { this.say('w: select a variable in the Variables pane first', 'error'); return; }
    const expr = r.expr;
    this.act(`watch ${expr}`, (e) => watchText(e.addWatch(expr, 'write')));
  }

  /** `o`: where the selected variable's value came from (the engine's dataflow origin). */
  private originSelected(): void {
    const r = this.selectedVar();
    if (!r?.expr) { this.say('o: select a variable in the Variables pane first', 'error'); return; }
    const expr = r.expr;
    this.act(`origin ${expr}`, (e) => {
      const a = e.origin(expr);
      return { ...a.stop, message: `${originText(engineOf(this.session), a)}\n${a.stop.message}` };
    });
    if (!this.isVisible('console')) this.show('console');
  }

  /** `L`: the selected variable in every lane of the warp, in the Lanes pane (re-read at each stop). */
  private lanesSelected(): void {
    const r = this.selectedVar();
    if (!r?.expr) { this.say('L: select a variable in the Variables pane first', 'error'); return; }
    this.lanes = { expr: r.expr, cursor: this.model.where().lane, top: 0 };
    this.lanes = { ...this.lanes, top: this.lanesTop() };
    this.show('lanes');
    // sharing the Variables slot (small terminals) or zoomed: only focus brings it up
    if (!this.isVisible('lanes')) this.setFocus('lanes');
    this.say(`lanes: ${r.expr} in each lane of the warp, updated at every stop (Lanes pane; Enter there focuses a lane)`);
  }

  /** Enter in the Lanes pane: focus the thread of the lane under the cursor. */
  private focusLaneAtCursor(): void {
    const r = this.laneRows()[this.lanes.cursor];
    if (!r) return;
    const block = this.model.where().block;
    const thread = r.thread;
    this.act(`cuda block (${block.join(',')}) thread (${thread.join(',')})`, (e) => { e.setFocus({ block, thread }); return focusText(engineOf(this.session)); });
  }

  /** `x`: a pointer shows what it points to, anything else its own bytes. */
  private examineSelected(): void {
    const r = this.selectedVar();
    if (!r?.expr) { this.say('x: select a variable in the Variables pane first', 'error'); return; }
    const isPtr = /\*\s*$/.test(r.node.type) && /0x[0-9a-f]+/i.test(r.node.value);
    if (!this.setMemory(isPtr ? `*${/^[\w$]+$/.test(r.expr) ? r.expr : `(${r.expr})`}` : r.expr)) return;
    this.memory = { ...this.memory, format: formatForType(isPtr ? r.node.type.replace(/\*\s*$/, '') : r.node.type) };
    this.setFocus('memory');
  }

  private pickThread(): void {
    if (this.focus !== 'warps') {
      this.picking = this.focus;
      const slot = slotOf(this.layout, 'warps');
      this.pickingShown = slot ? this.visibleIn(slot) : undefined;
    }
    this.setFocus('warps');
    this.warps = { ...this.warps, follow: true };
    this.say('pick a thread: arrows move, Enter focuses it, Esc goes back');
  }

  private focusThreadAtCursor(): void {
    const ws = this.model.warps();
    const c = this.warpCursor();
    const w = ws[c.warp];
    if (!w || c.lane >= w.lanes.length) return;
    const block = w.block;
    const thread: Dim3 = coordsOf(w.warp * 32 + c.lane, this.session.launch.block);
    this.act(`cuda block (${block.join(',')}) thread (${thread.join(',')})`, (e) => { e.setFocus({ block, thread }); return focusText(engineOf(this.session)); });
    this.follow(true);
    this.endPick();
  }

  /** Back to the pane `t` was pressed in; its neighbour slot shows what it showed before. */
  private endPick(): void {
    if (this.picking === undefined) return;
    this.setFocus(this.picking);
    if (this.pickingShown !== undefined) this.show(this.pickingShown);
    this.picking = undefined;
    this.pickingShown = undefined;
  }

  private timeStep(dir: number): void {
    const total = this.session.total;
    const d = Math.max(1, Math.round(total / 100));
    const pos = this.session.position();
    const to = Math.max(0, Math.min(total, pos + dir * d));
    if (to !== pos) this.act(`goto ${to}`, (e) => e.goto(e.at(to)));
  }

  private markStep(dir: number): void {
    const marks = this.model.marks();
    const pos = this.session.position();
    let to: number | undefined;
    if (dir > 0) to = marks.find((m) => m.step > pos)?.step;
    else for (let i = marks.length - 1; i >= 0; i--) if (marks[i]!.step < pos) { to = marks[i]!.step; break; }
    if (to === undefined) { this.say(dir > 0 ? 'no later mark on the timeline' : 'no earlier mark on the timeline'); return; }
    const step = to;
    this.act(`goto ${step}`, (e) => e.goto(e.at(step)));
  }

  private cycleFormat(d: number): void {
    const i = MEM_FORMATS.indexOf(this.memory.format);
    const format: MemFormat = MEM_FORMATS[(i + d + MEM_FORMATS.length) % MEM_FORMATS.length]!;
    this.memory = { ...this.memory, format };
  }

  /** Point the Memory pane at an address, symbol or expression (see memtarget.ts). */
  setMemory(text: string): boolean {
    const t = resolveTarget(this.model, text);
    if ('error' in t) { this.say(t.error, 'error'); return false; }
    this.memory = { ...this.memory, ...t };
    this.show('memory');
    this.say(`memory: ${t.label} at ${t.space} 0x${t.address.toString(16)} (< > format, ↑↓ scroll, Enter: another address)`);
    return true;
  }

  // ---- command line / memory prompt ----

  private enterInput(mode: Mode): void {
    this.mode = mode;
    this.line.reset();
  }

  private editKey(k: KeyPress): void {
    const r = this.line.key(k, this.mode === 'command' ? consoleOf(engineOf(this.session)).commandNames() : []);
    switch (r.kind) {
      case 'edit': return;
      case 'cancel': this.mode = 'normal'; return;
      case 'candidates':
        this.say(r.names.length ? r.names.slice(0, 40).join('  ') : `no command starts with "${this.line.text.trim()}"`);
        return;
      case 'submit': {
        const mode = this.mode;
        this.mode = 'normal';
        if (mode === 'memory') { if (r.text !== '' && this.setMemory(r.text)) this.setFocus('memory'); return; }
        // an empty command line repeats the last stepping command (gdb's prompt habit)
        if (r.text === '') { this.run(r.text, true); return; }
        this.line.remember(r.text);
        this.run(r.text, true);
        return;
      }
    }
  }
}
