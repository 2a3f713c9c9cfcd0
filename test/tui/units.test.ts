/** The TUI's pure parts: layout geometry, timeline buckets, value formatting, key parsing. */
import type { Key } from 'ink';
import { computeLayout, split, tabAt, zoomed } from '../../tui/layout.js';
import { bucketMarks, cellOf, timelineCells, timelineLine } from '../../tui/panes/timeline.js';
import { formatElem, formatF32, formatRegister } from '../../tui/format.js';
import { keyPresses, type KeyPress } from '../../tui/keys.js';
import { LineEditor } from '../../tui/lineeditor.js';
import { fitLine, scrollTo, centreOn } from '../../tui/ui.js';
import { candidates } from '../../src/engine/sources.js';
import { positionOf } from '../../src/trace/position.js';
import { sanitize, clip } from '../../tui/text.js';

describe('layout', () => {
  test.each([[80, 24], [100, 30], [120, 40], [200, 60], [90, 50], [40, 12]])('%ix%i: columns tile the width, slots the height', (cols, rows) => {
    const l = computeLayout(cols, rows);
    expect(l.tooSmall).toBe(false);
    expect(l.height).toBe(rows - 1);
    const width = l.columns.reduce((n, c) => n + c.w, 0) + l.columns.length - 1;
    expect(width).toBe(cols);
    for (const c of l.columns) {
      expect(c.slots.reduce((n, s) => n + s.h, 0)).toBe(l.mainHeight);
      for (const s of c.slots) expect(s.h).toBeGreaterThanOrEqual(3);
    }
    // Every pane can be reached with Tab.
    expect(new Set(l.focusOrder)).toEqual(new Set(['source', 'ptx', 'variables', 'registers', 'memory', 'warps', 'lanes', 'races', 'output', 'console']));
  });

  test('large terminals show more panes at once', () => {
    const small = computeLayout(80, 24).columns.flatMap((c) => c.slots).length;
    const large = computeLayout(200, 60).columns.flatMap((c) => c.slots).length;
    expect(large).toBeGreaterThan(small);
  });

  test('zoomed: one slot over the whole main area, Tab order kept', () => {
    const l = computeLayout(100, 30);
    const z = zoomed(l, 'ptx');
    expect(z.columns).toHaveLength(1);
    expect(z.columns[0]!.slots).toEqual([{ id: 0, x: 0, y: 1, w: 100, h: l.mainHeight, panes: ['ptx'] }]);
    expect(z.focusOrder).toEqual(l.focusOrder);
  });

  test('a click on a tab finds its pane (" Vars Regs Thr ..." at 40 columns)', () => {
    const side = computeLayout(100, 30).columns[1]!.slots[0]!;
    expect(side.w).toBe(40);
    expect([0, 1, 4, 5, 6, 9, 10, 11].map((x) => tabAt(side, x) ?? '-')).toEqual(['-', 'variables', 'variables', '-', 'registers', 'registers', '-', 'warps']);
  });

  test('too small', () => {
    expect(computeLayout(30, 10).tooSmall).toBe(true);
  });

  test('split keeps the total and the minimum', () => {
    expect(split(19, [3, 2], 3)).toEqual([11, 8]);
    expect(split(7, [1, 1, 1], 3).reduce((a, b) => a + b)).toBe(7);
  });
});

describe('timeline', () => {
  test('cells cover 0..total', () => {
    expect(cellOf(0, 1000, 50)).toBe(0);
    expect(cellOf(1000, 1000, 50)).toBe(49);
    expect(cellOf(500, 1000, 50)).toBe(24);
  });

  test('the most important mark wins a cell', () => {
    const b = bucketMarks([{ at: positionOf(0, 10), kind: 'breakpoint' }, { at: positionOf(0, 11), kind: 'fault' }, { at: positionOf(0, 900), kind: 'race' }], 1000, 10);
    expect(b[0]).toBe('fault');
    expect(b[8]).toBe('race');
    expect(b.filter((x) => x !== undefined)).toHaveLength(2);
  });

  test('bar text', () => {
    const line = timelineLine(500, 1000, bucketMarks([{ at: positionOf(0, 900), kind: 'race' }], 1000, 20), false);
    const text = line.map((s) => s.text).join('');
    expect(text.startsWith(' step 500/1000 ')).toBe(true);
    expect(text).toContain('┃');
    expect(text).toContain('!');
    expect(text.length).toBe(' step 500/1000 '.length + 20);
  });

  test('in a program of several launches the bar is the current launch, labelled with its index', () => {
    const text = timelineLine(5, 40, bucketMarks([], 40, 10), false, { index: 2, count: 3 }).map((s) => s.text).join('');
    expect(text.startsWith(' launch 2/3 step 5/40 ')).toBe(true);
    expect(text.length).toBe(' launch 2/3 step 5/40 '.length + 10);
    // the label's room comes out of the bar's: the row still fits the width
    expect(timelineCells(60, 5, 40, { index: 2, count: 3 })).toBe(60 - ' launch 2/3 step 5/40 '.length - 1);
    // one launch (a single kernel) keeps the plain label
    expect(timelineLine(5, 40, bucketMarks([], 40, 10), false, { index: 0, count: 1 }).map((s) => s.text).join('').startsWith(' step 5/40 ')).toBe(true);
  });
});

describe('formatting', () => {
  test('registers by type', () => {
    expect(formatRegister('f32', 0x3fc00000n)).toBe('1.5');
    expect(formatRegister('s32', 0xffffffffn)).toBe('-1');
    expect(formatRegister('u32', 42n)).toBe('42');
    expect(formatRegister('u64', 0x7f0000001000n)).toBe('0x7f0000001000');
    expect(formatRegister('pred', 1n)).toBe('true');
    expect(formatRegister('f64', 0x3ff8000000000000n)).toBe('1.5');
    expect(formatRegister('b16', 0xabcdn)).toBe('0xabcd');
  });

  test('Memory cells: u64 always 0x + 16 digits, long floats in exponent form', () => {
    const dv = new DataView(new ArrayBuffer(8));
    dv.setBigUint64(0, 0x1234n, true);
    expect(formatElem('u64', dv, 0)).toBe('0x0000000000001234');
    dv.setFloat32(0, 1.2345679e20, true);
    // positional would be 123456790000000000000 (21 columns)
    expect(formatElem('f32', dv, 0)).toBe('1.2345679e+20');
    dv.setFloat32(0, -0.375, true);
    expect(formatElem('f32', dv, 0)).toBe('-0.375');
    dv.setFloat64(0, -0.000001234567890123, true);
    expect(formatElem('f64', dv, 0).length).toBeLessThanOrEqual(24);
  });

  test('shortest f32', () => {
    expect(formatF32(Math.fround(0.1))).toBe('0.1');
    expect(formatF32(-0)).toBe('-0');
    expect(formatF32(Infinity)).toBe('inf');
  });

  test('lines are cut to the width; tabs and control characters never reach the terminal', () => {
    expect(sanitize('\tx\x1b[2J')).toBe('    x [2J');
    expect(sanitize('a漢字e\u0301')).toBe('a??e');
    expect(clip('abcdef', 4)).toBe('abc…');
    const segs = fitLine([{ text: 'hello ' }, { text: 'world', style: { bold: true } }], 8);
    expect(segs.map((s) => s.text).join('')).toBe('hello w…');
  });

  test('scrolling keeps the cursor visible', () => {
    expect(scrollTo(0, 25, 10, 100)).toBe(16);
    expect(scrollTo(20, 5, 10, 100)).toBe(5);
    expect(centreOn(0, 50, 9, 100)).toBe(47);
    expect(centreOn(45, 50, 9, 100)).toBe(45);
  });
});

describe('keys', () => {
  const none: Key = {
    upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false,
    return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false,
    super: false, hyper: false, capsLock: false, numLock: false,
  };
  test('a burst of characters is one key press each', () => {
    expect(keyPresses('nnN', none).map((k) => k.ch)).toEqual(['n', 'n', 'N']);
    expect(keyPresses(':b\t\x7f\r\x03', none).map((k) => k.name ?? `${k.ctrl ? '^' : ''}${k.ch}`)).toEqual([':', 'b', 'tab', 'backspace', 'enter', '^c']);
  });
  test('named keys', () => {
    expect(keyPresses('', { ...none, tab: true, shift: true })[0]!.name).toBe('backTab');
    expect(keyPresses('', { ...none, delete: true })[0]!.name).toBe('backspace');
    expect(keyPresses('c', { ...none, ctrl: true })[0]).toEqual({ ch: 'c', name: undefined, ctrl: true });
    // Shift-→ (ESC [1;2C): sideways by half a pane in the code panes
    expect(keyPresses('', { ...none, rightArrow: true, shift: true })[0]).toEqual({ ch: undefined, name: 'right', ctrl: false, shift: true });
    expect(keyPresses('', { ...none, rightArrow: true })[0]).toEqual({ ch: undefined, name: 'right', ctrl: false });
  });
});

describe('the : line editor', () => {
  const k = (name: KeyPress['name'], ch?: string): KeyPress => ({ ch, name, ctrl: false });
  const names = ['backtrace', 'break', 'continue'];
  test('Tab completes a begun word (the common prefix; a space when one name is left)', () => {
    const e = new LineEditor();
    for (const c of 'ba') e.key(k(undefined, c));
    expect(e.key(k('tab'), names)).toEqual({ kind: 'edit' });
    expect(e.text).toBe('backtrace ');
    e.reset();
    e.key(k(undefined, 'b'));
    expect(e.key(k('tab'), names)).toEqual({ kind: 'candidates', names: ['backtrace', 'break'] });
  });
  test('Tab on an empty line (or only spaces) and Shift-Tab anywhere leave the line for the next / previous pane', () => {
    const e = new LineEditor();
    expect(e.key(k('tab'), names)).toEqual({ kind: 'leave', direction: 1 });
    e.key(k(undefined, ' '));
    expect(e.key(k('tab'), names)).toEqual({ kind: 'leave', direction: 1 });
    e.reset();
    e.key(k(undefined, 'b'));
    expect(e.key(k('backTab'), names)).toEqual({ kind: 'leave', direction: -1 });
  });
});

test('source candidates: as written, next to the PTX, then in sourceDir', () => {
  const c = candidates('/src/saxpy/kernel.cu', '/proj/samples/saxpy/kernel.G.ptx', '/srcs');
  expect(c).toEqual(['/src/saxpy/kernel.cu', '/proj/samples/saxpy/kernel.cu', '/srcs/src/saxpy/kernel.cu', '/srcs/kernel.cu']);
});
