/**
 * What moves the panes' cursors and scrolls: arrows and page keys in the focused pane, the
 * mouse wheel and clicks, expanding variables, the Memory pane's format. No engine request is
 * made here except through toggleBreakpoint (a click in a code pane's gutter), which the
 * controller provides.
 */
import type { KeyPress, MouseEvent } from './keys.js';
import { MEM_FORMATS, type MemFormat } from './format.js';
import { type PaneId, type Slot, tabAt } from './layout.js';
import { gutterWidth } from './panes/code.js';
import { bytesPerRow } from './panes/memory.js';
import { registerLineCount } from './panes/registers.js';
import { effectiveTop } from './panes/text.js';
import { PREFIX as WARP_PREFIX, warpGeometry } from './panes/warps.js';
import { scrollTo } from './ui.js';
import type { VarRow } from './variables.js';
import { ViewState } from './view-state.js';

/** Lines one wheel notch scrolls. */
const WHEEL_LINES = 3;
/** Columns ← / → scroll a code pane sideways. */
const SIDE_STEP = 8;

export abstract class PaneMoves extends ViewState {
  /** `b`, Enter or a gutter click in a code pane: the controller's breakpoint toggle. */
  protected abstract toggleBreakpoint(): void;

  // ---- mouse ----

  /** The slot under a screen cell, and the pane it shows. */
  protected hit(x: number, y: number): { slot: Slot; pane: PaneId } | undefined {
    for (const c of this.layout.columns) {
      if (x < c.x || x >= c.x + c.w) continue;
      for (const s of c.slots) if (y >= s.y && y < s.y + s.h) return { slot: s, pane: this.visibleIn(s) };
    }
    return undefined;
  }

  protected onMouse(ev: MouseEvent): void {
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
  protected click(slot: Slot, pane: PaneId, cx: number, cy: number): void {
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
  protected wheel(pane: PaneId, d: number): void {
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
  protected scrollSideways(pane: 'source' | 'ptx', d: number): void {
    const v = pane === 'source' ? this.sourceView() : this.ptxView();
    const textW = Math.max(1, this.paneSize(pane).w - gutterWidth(v));
    const longest = this.model.cached(`longest:${pane}:${v.title}`, () => v.lines.reduce((n, l) => Math.max(n, l.length), 0));
    this.left = { ...this.left, [pane]: Math.max(0, Math.min(Math.max(0, longest - textW), this.left[pane] + d)) };
  }

  /** Arrow/page keys in a pane (the focused one, or the one under the mouse wheel). */
  protected move(name: NonNullable<KeyPress['name']>, shift = false, p: PaneId = this.focus): void {
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

  protected moveWarpCursor(name: NonNullable<KeyPress['name']>, h: number): void {
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

  protected expand(r: VarRow | undefined, open: boolean): void {
    if (r?.kind !== 'var' || !r.node.children?.length) return;
    const e = new Set(this.vars.expanded);
    if (open) e.add(r.path); else e.delete(r.path);
    this.vars = { ...this.vars, expanded: e };
  }

  protected cycleFormat(d: number): void {
    const i = MEM_FORMATS.indexOf(this.memory.format);
    const format: MemFormat = MEM_FORMATS[(i + d + MEM_FORMATS.length) % MEM_FORMATS.length]!;
    this.memory = { ...this.memory, format };
  }
}
