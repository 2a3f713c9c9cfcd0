/**
 * Mouse, sideways scroll, zoom, selection rows, Memory columns and the Lanes pane, end to end on
 * samples/saxpy (kernel.cu: line 11 `int i = blockIdx.x * blockDim.x + threadIdx.x;`, line 15
 * `y[i] = axpy(a, xi, yi);`; 2 blocks of 128 threads and n = 200, so threads 200..255 of block 1
 * take no branch and exit; x[k] is a multiple of 1/8 with x[0] = 7.75 and x[3] = -1.875).
 *
 * Geometry at 100x30 (layout.ts): the code column is 59 wide (x 0..58), the gutter at x 59, the
 * side column x 60..99; the Source slot is rows 1..15 (title row 1), PTX rows 16..25.
 */
import './env.js';
import { join } from 'node:path';
import { openSession } from '../../src/engine/session.js';
import { parseMouse } from '../../tui/keys.js';
import { ROOT } from '../helpers.js';
import { KEY, rowOf, TuiHarness } from './harness.js';

const SAXPY = join(ROOT, 'samples', 'saxpy');
const saxpy = (): ReturnType<typeof openSession> => openSession({ ptxPath: join(SAXPY, 'kernel.G.ptx'), launch: join(SAXPY, 'launch.json') });
const SOURCE_LINE_11 = '    int i = blockIdx.x * blockDim.x + threadIdx.x;';

/** An SGR mouse report as a terminal sends it: 0-based cell in, 1-based on the wire. */
function mouse(button: number, x: number, y: number, release = false): string {
  return `\x1b[<${button};${x + 1};${y + 1}${release ? 'm' : 'M'}`;
}
const click = (h: TuiHarness, x: number, y: number): void => h.press(mouse(0, x, y), mouse(0, x, y, true));

/** The source line number marked current (▶ in the Source pane), or 0. */
function currentLine(lines: string[]): number {
  for (const l of lines) {
    const m = /^ ?.▶\s*(\d+) /.exec(l);
    if (m) return Number(m[1]);
  }
  return 0;
}
const started = (l: string[]): boolean => l.some((x) => /step \d+\/\d+/.test(x)) && currentLine(l) > 0;
/** The timeline's step (the Console may hold older `[step N/T]` lines). */
const stepOf = (l: string[]): number => Number(/^ ?step (\d+)\/\d+ /.exec(l.find((x) => /^ ?step \d+\/\d+ /.test(x)) ?? '')?.[1] ?? -1);

// Title colours (ui.tsx): focused panes have a cyan title (palette 6), the others grey (8).
const CYAN = 6;
const titleBg = (h: TuiHarness, x: number, y: number): number => h.cell(x, y)!.bg;

/** Row of a code pane line: its number right after the two marker columns. */
const rowOfLine = (lines: string[], n: number, from = 0): number => lines.findIndex((l, y) => y >= from && new RegExp(`^..\\s*${n} `).test(l));

let h: TuiHarness | undefined;
afterEach(() => {
  h?.dispose();
  h = undefined;
});

describe('mouse', () => {
  test('SGR reports parse; other input is no mouse report', () => {
    expect(parseMouse('[<0;10;5M')).toEqual({ action: 'press', button: 0, x: 9, y: 4 });
    expect(parseMouse('\x1b[<2;1;1m')).toEqual({ action: 'release', button: 2, x: 0, y: 0 });
    expect(parseMouse('[<64;3;4M')).toMatchObject({ action: 'wheelUp', x: 2, y: 3 });
    expect(parseMouse('[<65;3;4M')).toMatchObject({ action: 'wheelDown' });
    expect(parseMouse('[<66;3;4M')).toMatchObject({ action: 'wheelLeft' });
    expect(parseMouse('[<32;3;4M')).toMatchObject({ action: 'drag' });
    // ctrl (16) + left press is still a press
    expect(parseMouse('[<16;3;4M')).toMatchObject({ action: 'press', button: 0 });
    for (const s of ['[', '<', '[<0;1M', 'n', '[<0;1;1Mx']) expect(parseMouse(s)).toBeUndefined();
  });

  test('reporting is on while the TUI runs and off after it', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    // the emulator itself says what the program asked for (1000: presses/releases; 1006: SGR)
    expect(h.term.modes.mouseTrackingMode).toBe('vt200');
    expect(h.out.raw).toContain('\x1b[?1006h');
    expect(await h.quit()).toBe(0);
    await h.flush();
    expect(h.term.modes.mouseTrackingMode).toBe('none');
    expect(h.out.raw.endsWith('\x1b[?1006l\x1b[?1000l\x1b[?25h\x1b[?1049l')).toBe(true);
  });

  test('a click on a line number toggles a breakpoint; a click on the text moves the cursor only', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    const step = stepOf(h.lines());
    // the Source pane shows lines 1..14 at start: one wheel notch down shows 4..17
    h.press(mouse(65, 30, 5));
    await h.waitFor((ls) => rowOfLine(ls, 4) === 2, 10000, 'Source scrolled by the wheel');
    let y = rowOfLine(h.lines(), 15);
    expect(y).toBe(13);
    // the number column: marks at x 0-1, the number in x 2-5
    click(h, 4, y);
    let l = await h.waitFor((ls) => /^●.\s*15 /.test(ls[y]!), 10000, 'breakpoint on line 15');
    expect(l.join('\n')).toMatch(/Breakpoint 1 at .*kernel\.cu, line 15/);
    // mouse reports are not keys: their `[` did not move the timeline
    expect(stepOf(l)).toBe(step);
    l = await h.pressAndWait('c', (ls) => currentLine(ls) === 15, 'continue stops at line 15');
    y = rowOfLine(l, 15);
    click(h, 1, y);
    await h.waitFor((ls) => !/^●/.test(ls[y]!), 10000, 'breakpoint removed by a second click');
    // a click on line 16's text: cursor there, no breakpoint
    const y16 = rowOfLine(h.lines(), 16);
    click(h, 30, y16);
    l = await h.waitFor((ls) => /^ ›\s*16 /.test(ls[y16]!), 10000, 'cursor on line 16');
    expect(l[y16]).not.toMatch(/^●/);
  });

  test('a legacy mouse report (ESC [ M and 3 bytes) is not taken for keys', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    const step = stepOf(h.lines());
    // button 0 at x = y = 78: the bytes read ' ', 'n', 'n', which would be two `next`s
    h.press('\x1b[M nn');
    await h.flush();
    // a real `n` afterwards moves exactly once, from where we were
    // the kernel's first line (9, `__global__ void saxpy(...)`); line 10 is `{`, no code
    expect(currentLine(h.lines())).toBe(9);
    const l = await h.pressAndWait('n', (ls) => stepOf(ls) !== step, 'one next');
    // 9 -> 11; three nexts would have reached 13
    expect(currentLine(l)).toBe(11);
  });

  test('a click focuses the pane under it, a click on a tab picks that tab', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    const ptxTitle = rowOf(h.lines(), /^ PTX /);
    expect(ptxTitle).toBeGreaterThan(2);
    expect(titleBg(h, 1, 1)).toBe(CYAN);
    click(h, 20, ptxTitle + 3);
    await h.waitFor(() => titleBg(h!, 1, ptxTitle) === CYAN && titleBg(h!, 1, 1) !== CYAN, 10000, 'PTX focused');
    // the side slot's tabs at 40 columns: " Vars Regs Thr Lane Mem Race Out Con"; Regs at x 60+6
    expect(h.lines()[1]!.slice(60)).toMatch(/^ Vars Regs Thr Lane Mem/);
    click(h, 60 + 7, 1);
    await h.waitFor((l) => /%r\d+ /.test(l.slice(2, 25).map((x) => x.slice(60)).join('\n')) && titleBg(h!, 61, 1) === CYAN, 10000, 'Registers shown and focused');
    // clicking into the Source pane gives the focus back to it
    click(h, 30, 5);
    await h.waitFor(() => titleBg(h!, 1, 1) === CYAN, 10000, 'Source focused again');
  });

  test('a click on a lane glyph in Threads puts the cursor there; Enter focuses that thread', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    // the "Thr" tab: " Vars Regs Thr" -> x 60 + 11
    click(h, 60 + 11, 1);
    const l = await h.waitFor((ls) => rowOf(ls, /│▶w0 /) > 1, 10000, 'Threads shown');
    // lane glyphs start after the 5-column warp label: lane 3 of warp 0 is at x 60 + 5 + 3
    const y = rowOf(l, /│▶w0 /);
    click(h, 60 + 5 + 3, y);
    await h.waitFor(() => h!.cell(68, y)!.inverse && !h!.cell(65, y)!.inverse, 10000, 'lane 3 under the cursor');
    await h.pressAndWait(KEY.enter, (ls) => ls[0]!.includes('thread (3,0,0)'), 'focus on thread 3');
  });

  test('the wheel scrolls the pane under the pointer by 3 lines, focused or not', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    const ptxTitle = rowOf(h.lines(), /^ PTX /);
    const firstPtx = (l: string[]): number => Number(/^..\s*(\d+) /.exec(l[ptxTitle + 1]!)?.[1] ?? -1);
    const before = firstPtx(h.lines());
    expect(before).toBeGreaterThan(0);
    h.press(mouse(65, 20, ptxTitle + 2));
    await h.waitFor((l) => firstPtx(l) === before + 3, 10000, 'PTX scrolled down 3');
    h.press(mouse(65, 20, ptxTitle + 2), mouse(64, 20, ptxTitle + 2), mouse(64, 20, ptxTitle + 2));
    await h.waitFor((l) => firstPtx(l) === before, 10000, 'down 3, up 6: back 3 above');
    // the Source pane kept the focus
    expect(titleBg(h, 1, 1)).toBe(CYAN);
  });
});

describe('keys', () => {
  test('← → and Shift-← → scroll Source sideways; the gutter stays', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    const y = rowOfLine(h.lines(), 11);
    // text starts after the gutter: 3 digits + 4 columns
    const text = (l: string[]): string => l[y]!.slice(7, 59).trimEnd();
    expect(text(h.lines())).toBe(SOURCE_LINE_11);
    let l = await h.pressAndWait(KEY.right, (ls) => text(ls) === SOURCE_LINE_11.slice(8), '8 columns to the right');
    expect(l[1]).toMatch(/col 9→/);
    expect(l[y]).toMatch(/^..\s*11 /);
    // Shift-→: half of the text width (59 - 8) / 2 = 25 more
    l = await h.pressAndWait('\x1b[1;2C', (ls) => text(ls) === SOURCE_LINE_11.slice(33), 'half a pane more');
    expect(l[1]).toMatch(/col 34→/);
    await h.pressAndWait('\x1b[1;2D', (ls) => text(ls) === SOURCE_LINE_11.slice(8), 'half a pane back');
    l = await h.pressAndWait(KEY.left, (ls) => text(ls) === SOURCE_LINE_11, 'back to column 1');
    expect(l[1]).not.toMatch(/col \d+→/);
  });

  test('z zooms the focused pane to the whole main area and back; Tab walks zoomed panes', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    expect(h.lines()[2]![59]).toBe('│');
    // zoomed: no column gutter, no PTX title, 24 source lines (main area 25 rows less the title)
    let l = await h.pressAndWait('z', (ls) => ls[2]![59] !== '│' && rowOf(ls, /^ PTX /) < 0, 'Source zoomed');
    expect(l[1]).toMatch(/^ Source kernel\.cu/);
    // kernel.cu has 17 lines: all of them fit now (14 did before)
    expect(rowOfLine(l, 1)).toBe(2);
    expect(rowOfLine(l, 17)).toBe(18);
    l = await h.pressAndWait(KEY.tab, (ls) => /^ PTX /.test(ls[1]!), 'Tab: PTX zoomed');
    expect(l.slice(2, 26).every((x) => /^..\s*\d+ /.test(x))).toBe(true);
    l = await h.pressAndWait('z', (ls) => ls[2]![59] === '│', 'zoom off');
    expect(rowOf(l, /^ PTX /)).toBeGreaterThan(1);
  });
});

describe('selection', () => {
  test('the selected row is highlighted across the pane, header rows included', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    const inverseRow = (y: number, x0: number, x1: number): boolean => {
      for (let x = x0; x <= x1; x++) if (!h!.cell(x, y)!.inverse) return false;
      return true;
    };
    // Source: the cursor row (on the current line at start) from the gutter to the pane's edge
    const y = rowOfLine(h.lines(), currentLine(h.lines()));
    expect(inverseRow(y, 0, 58)).toBe(true);
    expect(inverseRow(y + 1, 0, 58)).toBe(false);
    // Variables (Tab Tab): the cursor starts on the first row, a group header
    h.press(KEY.tab, KEY.tab);
    await h.waitFor((l) => /^ Variables|^ Vars/.test(l[1]!.slice(60)) && titleBg(h!, 61, 1) === CYAN, 10000, 'Variables focused');
    await h.waitFor(() => inverseRow(2, 60, 99), 10000, 'header row selected');
    expect(h.lines()[2]!.slice(60)).toMatch(/^ (locals|args|globals) · /);
    expect(inverseRow(y, 0, 58)).toBe(false); // Source lost the focus, and its selection
    h.press(KEY.down);
    await h.waitFor(() => inverseRow(3, 60, 99) && !inverseRow(2, 60, 99), 10000, 'next row selected');
    // Threads (Tab Tab): its selection is a lane; the label of the lane's warp is drawn selected too
    h.press(KEY.tab, KEY.tab);
    const l = await h.waitFor((ls) => rowOf(ls, /│▶w0 /) > 1, 10000, 'Threads shown');
    const yw = rowOf(l, /│▶w0 /);
    await h.waitFor(() => inverseRow(yw, 60, 64) && h!.cell(65, yw)!.inverse && !h!.cell(66, yw)!.inverse, 10000, 'warp 0 label and lane 0 selected');
  });
});

describe('memory', () => {
  test('typed columns line up from row to row; u64 is 0x and 16 digits', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    // step to line 14 so x is in scope, select x in Variables, x shows *x as f32
    for (let i = 0; i < 10 && currentLine(h.lines()) !== 14; i++) {
      const s = stepOf(h.lines());
      await h.pressAndWait('n', (l) => stepOf(l) !== s, 'a step');
    }
    h.press(KEY.tab, KEY.tab);
    const varsRow = (l: string[]): number => l.findIndex((x) => /^\s*▸? ?x = 0x/.test(x.slice(60)));
    await h.waitFor((l) => varsRow(l) > 0, 10000, 'x in Variables');
    const target = varsRow(h.lines());
    // the cursor is on row 2; move it to x's row
    for (let i = 2; i < target; i++) h.press(KEY.down);
    await h.waitFor(() => h!.cell(62, target)!.inverse, 10000, 'x selected');
    let l = await h.pressAndWait('x', (ls) => /as f32/.test(ls.join('\n')), 'memory of *x as f32');
    // side pane 40 wide: 12-digit address, ": ", then 13-column cells (12 wide + space): 2 per row
    const first = rowOf(l, /as f32/) + 1;
    const rows = l.slice(first, 26).map((x) => x.slice(60)).filter((x) => /^[0-9a-f]{12}: /.test(x));
    expect(rows.length).toBeGreaterThan(4);
    for (const r of rows) {
      expect(r.slice(14, 26)).toMatch(/^ *-?[\d.]+$/);
      expect(r[26]).toBe(' ');
      expect(r.slice(27, 39)).toMatch(/^ *-?[\d.]+$/);
    }
    expect(rows[0]!.slice(14, 26).trim()).toBe('7.75');
    expect(rows[1]!.slice(27, 39).trim()).toBe('-1.875');
    // > cycles f32 -> u64: one 8-byte cell per row, x[1]:x[0] little-endian, 7.75f = 0x40f80000
    l = await h.pressAndWait('>', (ls) => /as u64/.test(ls.join('\n')), 'u64');
    const u64 = l.slice(first, 26).map((x) => x.slice(60).trimEnd()).filter((x) => /^[0-9a-f]{12}: /.test(x));
    for (const r of u64) expect(r).toMatch(/^[0-9a-f]{12}: 0x[0-9a-f]{16}$/);
    expect(u64[0]).toMatch(/40f80000$/);
  });
});

describe('Lanes pane', () => {
  test('L shows i in the 32 lanes and follows stops; exited lanes are marked', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 120, rows: 50 }, started);
    // thread 192 (block 1, thread 64): its warp 2 holds i = 192..223, and only i < 200 run on
    h.press(':', ...'cuda block (1,0,0) thread (64,0,0)', KEY.enter);
    await h.waitFor((l) => l[0]!.includes('block (1,0,0) thread (64,0,0)'), 10000, 'focus on block 1 thread 64');
    for (let i = 0; i < 10 && currentLine(h.lines()) !== 12; i++) {
      const s = stepOf(h.lines());
      await h.pressAndWait('n', (l) => stepOf(l) !== s, 'a step');
    }
    expect(currentLine(h.lines())).toBe(12);
    // Variables: Tab Tab, down to i
    h.press(KEY.tab, KEY.tab);
    await h.waitFor((l) => l.some((x) => /\bi = 192\b/.test(x)), 10000, 'i in Variables');
    const yi = rowOf(h.lines(), /│\s+i = 192\b/);
    for (let y = 2; y < yi; y++) h.press(KEY.down);
    let l = await h.pressAndWait('L', (ls) => /Lanes/.test(ls.join('\n')) && /● ?\s*7 \(71,0,0\)\s+199\b/.test(ls.join('\n')), 'lanes of i');
    const text = l.join('\n');
    // blockIdx.x * blockDim.x + threadIdx.x = 128 + 64 + lane; the focused lane is 0
    expect(text).toMatch(/ i warp 2 of block \(1,0,0\)/);
    expect(text).toMatch(/●▶ 0 \(64,0,0\)\s+192\b/);
    expect(text).toMatch(/● {2}8 \(72,0,0\)\s+200\b/);
    // n runs `if (i < n)`: lanes 8..31 (i >= 200) take no branch; they are marked, not active
    const s = stepOf(l);
    l = await h.pressAndWait('n', (ls) => stepOf(ls) !== s && /[×○] {2}8 \(72,0,0\)/.test(ls.join('\n')), 'lane 8 not running after the branch');
    expect(currentLine(l)).toBe(13);
    expect(l.join('\n')).toMatch(/●▶ 0 \(64,0,0\)\s+192\b/);
    expect(l.join('\n')).toMatch(/● {2}7 \(71,0,0\)\s+199\b/);
    expect(l.join('\n')).toMatch(/[×○] 20 \(84,0,0\)/);
    // the pane's cursor: Tab to Lanes (Variables, Registers, Threads, Lanes), down 3, Enter: thread 67
    h.press(KEY.tab, KEY.tab, KEY.tab);
    await h.waitFor((ls) => rowOf(ls, /●▶ 0 \(64,0,0\)/) > 0 && h!.cell(86, rowOf(ls, /●▶ 0 \(64,0,0\)/))!.inverse, 10000, 'Lanes focused, lane 0 selected');
    h.press(KEY.down, KEY.down, KEY.down);
    await h.waitFor((ls) => h!.cell(86, rowOf(ls, / {2}3 \(67,0,0\)/))!.inverse, 10000, 'lane 3 selected');
    l = await h.pressAndWait(KEY.enter, (ls) => ls[0]!.includes('thread (67,0,0)'), 'focus on thread 67');
    expect(l.join('\n')).toMatch(/●▶ 3 \(67,0,0\)\s+195\b/);
  });
});
