/**
 * Everything a key press does (the moves of cursors aside: pane-moves.ts): running the `:`
 * line through the command language, the keys' engine requests (shown as the language shows the
 * same request), picking a thread, the command line and memory prompt. All engine calls happen
 * in this class, so a render never runs a debugger command and the logic can be followed
 * without the view.
 */
import type { Key } from 'ink';
import { breakText, displaysText, focusText, originText, returnValueText, stopText, watchText, type BreakpointInfo, type Dim3, type Engine, type Position, type StopEvent } from '#engine';
import { comparePositions } from '#engine';
import { formatForType } from './format.js';
import { keyPresses, NAV_KEYS, type KeyPress, type NavKey, parseMouse } from './keys.js';
import { slotOf } from './layout.js';
import { resolveTarget } from './memtarget.js';
import { PaneMoves } from './pane-moves.js';
import { baseName, lines } from './text.js';
import type { VarRow } from './variables.js';
import type { Mode, Tone } from './view-state.js';

export type { Message, Mode, Tone } from './view-state.js';

const CONSOLE_MAX = 5000;

/**
 * The line of a command's reply worth the message line: the stop reason ("Breakpoint 1, ...")
 * rather than the position echo (`[step N/T] ...`, `fn at file:line`, the source line), which
 * the panes show anyway; after a finish, the value it returned.
 */
export function summary(text: readonly string[]): string {
  const echo = (l: string): boolean => /^\[step \d+\/\d+\]/.test(l) || /^\d+\t/.test(l) || /^\S+ at \S+:\d+$/.test(l);
  // after a finish, the value returned is the news ("Run till exit from ..." is where it came from)
  const returned = text.find((l) => l.startsWith('Value returned is '));
  if (returned !== undefined) return returned;
  return text.find((l) => !echo(l) && l.trim() !== '') ?? text[0] ?? '';
}

export class Controller extends PaneMoves {
  // ---- running commands ----

  /** Run one line typed on the `:` console (the gdb language); record it in the Console; follow the position. */
  run(cmd: string, fromCommandLine = false): void {
    let output: string;
    let error = false;
    let moved = false;
    let quit = false;
    try {
      const r = this.console.execute(cmd, { repeatOnEmpty: fromCommandLine });
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
  private act(label: string, f: (e: Engine) => string | StopEvent, tail?: (e: Engine) => string | undefined): void {
    const before = this.engine.position();
    let output: string;
    let error = false;
    let moved: boolean;
    try {
      const r = f(this.engine);
      output = typeof r === 'string' ? r : stopText(this.engine, r);
      const more = tail?.(this.engine);
      if (more) output = `${output}\n${more}`;
      moved = typeof r !== 'string' || this.engine.position() !== before;
      // `display` expressions follow every stop, whether a key or a typed command made it
      const shown = moved ? displaysText(this.engine) : '';
      if (shown) output = `${output}\n${shown}`;
    } catch (e) {
      // as for a typed command: the message goes to the Console (an engine error, or a bug, which
      // the next render then reports as the crash it is)
      output = e instanceof Error ? e.message : String(e);
      error = true;
      moved = this.engine.position() !== before;
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

  // ---- actions ----

  private navigate(k: NavKey): void {
    const m = k.move;
    // `f` prints the value the function returned, as gdb's `finish` (and the `:finish` line) does
    const returned = m.kind === 'finish' && m.direction === 'forward' ? (e: Engine): string | undefined => { const v = returnValueText(e); return v && `Value returned is ${v}`; } : undefined;
    this.act(k.label, (e) => (m.kind === 'step' ? e.step(m.request) : m.kind === 'finish' ? e.finish({ direction: m.direction }) : e.continue({ direction: m.direction })), returned);
  }

  private toggleAt(ids: readonly number[], label: string, add: (e: Engine) => BreakpointInfo): void {
    if (ids.length) this.act(`delete ${ids.join(' ')}`, (e) => e.deleteBreakpoints(ids).join('\n'));
    else this.act(label, (e) => breakText(add(e), false));
  }

  protected override toggleBreakpoint(): void {
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
      return { ...a.stop, message: `${originText(this.engine, a)}\n${a.stop.message}` };
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
    this.act(`cuda block (${block.join(',')}) thread (${thread.join(',')})`, (e) => { e.setFocus({ block, thread }); return focusText(this.engine); });
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
    const thread: Dim3 = this.engine.laneThread(w.warp, c.lane);
    this.act(`cuda block (${block.join(',')}) thread (${thread.join(',')})`, (e) => { e.setFocus({ block, thread }); return focusText(this.engine); });
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
    const total = this.engine.total;
    const d = Math.max(1, Math.round(total / 100));
    const pos = this.engine.position().step;
    const to = Math.max(0, Math.min(total, pos + dir * d));
    if (to !== pos) this.act(`goto ${to}`, (e) => e.goto(e.at(to)));
  }

  private markStep(dir: number): void {
    const marks = this.model.marks();
    const pos = this.engine.position();
    let to: Position | undefined;
    if (dir > 0) to = marks.find((m) => comparePositions(m.at, pos) > 0)?.at;
    else for (let i = marks.length - 1; i >= 0; i--) if (comparePositions(marks[i]!.at, pos) < 0) { to = marks[i]!.at; break; }
    if (to === undefined) { this.say(dir > 0 ? 'no later mark on the timeline' : 'no earlier mark on the timeline'); return; }
    const at = to;
    this.act(`goto ${at.step}`, (e) => e.goto(at));
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
    const r = this.line.key(k, this.mode === 'command' ? this.console.commandNames() : []);
    switch (r.kind) {
      case 'edit': return;
      case 'cancel': this.mode = 'normal'; return;
      // Tab on an empty line (S-Tab anywhere): out of the line to the next / previous pane
      case 'leave': this.mode = 'normal'; this.cycleFocus(r.direction); return;
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
