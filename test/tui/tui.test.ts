/**
 * The TUI end to end: the real session on a bundled sample, rendered by Ink into a headless
 * xterm; keys go in through a fake TTY stdin, assertions read the emulator's screen.
 */
import './env.js';
import { jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSession } from '../../src/engine/session.js';
import { ROOT } from '../helpers.js';
import { KEY, rowOf, TuiHarness } from './harness.js';

const SAXPY = join(ROOT, 'samples', 'saxpy');

function saxpy(): ReturnType<typeof openSession> {
  return openSession({ ptxPath: join(SAXPY, 'kernel.G.ptx'), launch: join(SAXPY, 'launch.json') });
}

/** The source line number marked current (▶ in the Source pane), or 0. */
function currentLine(lines: string[]): number {
  for (const l of lines) {
    const m = /^ ?.▶\s*(\d+) /.exec(l);
    if (m) return Number(m[1]);
  }
  return 0;
}

/** Step with `key` until the Source pane's current line is `line`. */
async function stepTo(h: TuiHarness, key: string, line: number, max = 40): Promise<void> {
  for (let i = 0; i < max && currentLine(h.lines()) !== line; i++) {
    const before = h.lines()[0]!;
    const step = /step (\d+)\//.exec(h.lines().join('\n'))?.[1];
    h.press(key);
    await h.waitFor((l) => l[0] !== before || /step (\d+)\//.exec(l.join('\n'))?.[1] !== step, 10000, `a move after ${key}`);
  }
  expect(currentLine(h.lines())).toBe(line);
}

let h: TuiHarness | undefined;
afterEach(() => {
  h?.dispose();
  h = undefined;
});

const started = (l: string[]): boolean => l.some((x) => /step \d+\/\d+/.test(x)) && currentLine(l) > 0;

describe('TUI on samples/saxpy', () => {
  test('n / N move the current-line marker forward and back', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    const first = currentLine(h.lines());
    expect(first).toBeGreaterThan(0);
    const l1 = await h.pressAndWait('n', (l) => currentLine(l) > first, 'next moves down');
    const second = currentLine(l1);
    await h.pressAndWait('n', (l) => currentLine(l) > second, 'next moves down again');
    await h.pressAndWait('N', (l) => currentLine(l) === second, 'reverse-next comes back');
    await h.pressAndWait('N', (l) => currentLine(l) === first, 'reverse-next back to the start');
    // The header and the timeline follow the position.
    expect(h.lines()[0]).toContain(`kernel.cu:${first}`);
    expect(await h.quit()).toBe(0);
    // The terminal is given back: the alternate screen is left, the cursor shown.
    expect(h.out.raw.endsWith('\x1b[?25h\x1b[?1049l')).toBe(true);
  });

  test('f (finish) shows the value axpy returned on the message line, as gdb\'s finish prints it', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    h.press(':', ...'break axpy'.split(''));
    await h.pressAndWait(KEY.enter, (l) => /Breakpoint 1/.test(l.join('\n')), 'breakpoint 1');
    // the first stop in axpy is thread (0,0,0) of block (0,0,0): i = 0
    await h.pressAndWait('c', (l) => /thread \(0,0,0\)/.test(l[0]!) && /axpy/.test(l.join('\n')) && currentLine(l) > 0 && currentLine(l) < 9, 'c stops in axpy');
    const l = await h.pressAndWait('f', (ls) => /Value returned is \$1 = \S+/.test(ls.join('\n')), 'f prints the value returned');
    const shown = /Value returned is \$1 = (\S+)/.exec(l.join('\n'))![1]!;
    // axpy(a, x[0], y[0]) = a * x[0] + y[0]: launch.json's a = 2.5 and in/x.bin, in/y.bin's first floats (one f32 rounding)
    const f32 = (f: string): Float32Array => { const b = readFileSync(join(SAXPY, 'in', f)); return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4); };
    expect(Math.fround(Number(shown))).toBe(Math.fround(Math.fround(2.5 * f32('x.bin')[0]!) + f32('y.bin')[0]!));
    // back in saxpy, at the call's line (15)
    expect(currentLine(l)).toBe(15);
  });

  test('b puts a breakpoint on the cursor line, c runs to it, b again removes it', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    const cur = currentLine(h.lines());
    // The Source pane has focus at start: move the cursor down to `y[i] = axpy(...)` (line 15).
    for (let i = cur; i < 15; i++) h.press(KEY.down);
    await h.waitFor((l) => l.some((x) => /^ ?.›\s*15 /.test(x)), 10000, 'cursor on line 15');
    let l = await h.pressAndWait('b', (ls) => ls.some((x) => /^ ?●.\s*15 /.test(x)), 'breakpoint marker on line 15');
    expect(l.join('\n')).toMatch(/Breakpoint 1/);
    l = await h.pressAndWait('c', (ls) => currentLine(ls) === 15, 'continue stops at line 15');
    expect(rowOf(l, /^ ?●▶\s*15 /)).toBeGreaterThan(0);
    await h.pressAndWait('b', (ls) => !ls.some((x) => /^ ?●.\s*15 /.test(x)), 'breakpoint removed');
  });

  test('Variables show the focused thread\'s values', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    await stepTo(h, 'n', 14);
    const l = await h.waitFor((ls) => /\bxi = 7\.75\b/.test(ls.join('\n')), 10000, 'xi = x[0] = 7.75');
    const text = l.join('\n');
    expect(text).toMatch(/\bi = 0\b/);
    expect(text).toMatch(/\bn = 200\b/);
    expect(text).toMatch(/\ba = 2\.5\b/);
  });

  test('t picks another thread: header, source marker and variables follow', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    await stepTo(h, 'n', 14);
    h.press('t');
    await h.waitFor((l) => /pick a thread/.test(l.join('\n')));
    h.press(KEY.right, KEY.right, KEY.right);
    // No focus change until Enter.
    expect(h.lines()[0]).toContain('thread (0,0,0)');
    const l = await h.pressAndWait(KEY.enter, (ls) => ls[0]!.includes('thread (3,0,0)'), 'focus on thread 3');
    expect(l[0]).toContain('block (0,0,0)');
    await h.waitFor((ls) => /\bi = 3\b/.test(ls.join('\n')) && /\bxi = -1\.875\b/.test(ls.join('\n')), 10000, 'variables of thread 3');
  });

  test('80x24: every pane fits, nothing wraps, nothing is written past the last row', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'samples/saxpy/kernel.G.ptx', cols: 80, rows: 24 }, started);
    // `list` replies with tab-separated source lines (shown in the Console).
    for (const k of ['n', 'n', KEY.tab, KEY.tab, 'n', ':', 'l', 'i', 's', 't', KEY.enter, '?']) {
      const before = h.out.raw.length;
      h.press(k);
      await h.waitFor(() => h!.out.raw.length > before, 10000, `a frame after ${JSON.stringify(k)}`);
      await h.flush();
      const l = h.lines();
      expect(h.wrappedRows()).toEqual([]);
      expect(l[0]).toMatch(/^ ptxdbg /); // the frame did not scroll
      expect(l[20]).toMatch(/^ step \d+\/\d+ /); // timeline
      expect(l[22]).toMatch(/^ n\/N next/); // key hints
      expect(l[23]).toBe(''); // the last row stays empty (Ink's frame is rows - 1 lines)
      expect(h.term.buffer.active.cursorY).toBeLessThanOrEqual(23);
    }
    // Every line of every frame Ink wrote fits in 80 columns.
    // eslint-disable-next-line no-control-regex
    const plain = h.out.raw.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    for (const line of plain.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
    // ...and holds no tab or other control character that would move the cursor on its own.
    // eslint-disable-next-line no-control-regex
    expect(plain).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
    // The last '?' opened the help; at 80x24 it scrolls, so its footer is the scrolling one.
    await h.waitFor((l) => /any other key closes this help/.test(l.join('\n')), 10000, 'help open');
    // Panes do not overlap: the column separator is at the same place on every main row.
    // The help's footer reads "any other key closes this help" when it scrolls (as at 80x24), so
    // the wait must not look for "any key closes": that was true while the help was still shown,
    // and on a loaded machine the test read the screen before the key had closed it.
    await h.pressAndWait('?', (l) => !/closes this help/.test(l.join('\n')) && /^ Source /.test(l[1]!), 'help closed');
    const l = h.lines();
    const x = l[2]!.indexOf('│');
    expect(x).toBeGreaterThan(20);
    for (let y = 1; y <= 19; y++) expect([...l[y]!][x]).toBe('│');
  });

  test('resizing re-lays out the panes to the new size', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 120, rows: 40 }, started);
    // 120 columns: three columns of panes (Variables and Threads side by side).
    expect(h.lines()[1]).toMatch(/Source.*│.*Variables.*│.*Threads/);
    h.resize(80, 24);
    const l = await h.waitFor((ls) => /Vars Regs/.test(ls[1]!) && /^ step \d+\//.test(ls[20]!), 10000, 'the 80x24 layout');
    expect(l[0]).toMatch(/^ ptxdbg /);
    expect(l[23]).toBe('');
    expect(h.wrappedRows()).toEqual([]);
    h.resize(100, 30);
    await h.waitFor((ls) => /^ step \d+\//.test(ls[26]!) && ls[29] === '', 10000, 'the 100x30 layout');
    expect(h.wrappedRows()).toEqual([]);
  });

  test('Ctrl-C quits (exit code 130) and gives the terminal back', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 80, rows: 24 }, started);
    expect(h.out.raw.startsWith('\x1b[?1049h')).toBe(true);
    h.press(KEY.ctrlC);
    expect(await h.exitCode).toBe(130);
    expect(h.out.raw.endsWith('\x1b[?25h\x1b[?1049l')).toBe(true);
    expect(h.inp.isRaw).toBe(false);
  });

  test('the command line runs commands, keeps history and completes names', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    h.press(':', 'b', 'a', 'c', KEY.tab);
    await h.waitFor((l) => l.some((x) => x.startsWith(':backtrace ')), 10000, 'completion of bac');
    h.press(KEY.escape);
    await h.waitFor((l) => !l.some((x) => x.startsWith(':')), 10000, 'command line closed');
    h.press(':', ...'print n', KEY.enter);
    await h.waitFor((l) => /\$1 = 200/.test(l.join('\n')), 10000, 'print n');
    h.press(':', KEY.up);
    await h.waitFor((l) => l.some((x) => x.startsWith(':print n')), 10000, 'history recalls the command');
    h.press(KEY.enter);
    await h.waitFor((l) => /\$2 = 200/.test(l.join('\n')), 10000, 'print n again');
  });

  test('a breakpoint condition that cannot be evaluated stops there and says why (gdb, #27)', async () => {
    h = await TuiHarness.start({ session: saxpy(), title: 'saxpy', cols: 100, rows: 30 }, started);
    h.press(':', ...'break 15 if nosuchname == 1', KEY.enter);
    await h.waitFor((l) => /Breakpoint 1 at/.test(l.join('\n')), 10000, 'breakpoint set');
    h.press('c');
    await h.waitFor((l) => /Error in testing condition for breakpoint 1/.test(l.join('\n')), 10000, 'the condition error');
    expect(currentLine(h.lines())).toBe(15);
  });
});

test('a faulting run says on the message line at which step it ended (the recording\'s last, where the fault is)', async () => {
  // samples/bug_null_deref: thread 37 loads through a null row pointer (kernel.cu), which ends the run
  const dir = join(ROOT, 'samples', 'bug_null_deref');
  const session = openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json') });
  h = await TuiHarness.start({ session, title: 'bug_null_deref', cols: 120, rows: 30 }, (l) => l.some((x) => x.includes('run ended with a fault')));
  const line = h.lines().find((x) => x.includes('run ended with a fault'))!;
  expect(line).toContain(`run ended with a fault at step ${session.total}: `);
  expect(await h.quit()).toBe(0);
});

test('a crash inside the UI restores the terminal and exits with 70', async () => {
  const real = saxpy();
  let broken = false;
  // A session whose where() starts failing: the next render throws.
  const session = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'where' && broken) return () => { throw new Error('engine exploded'); };
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    h = await TuiHarness.start({ session, title: 'saxpy', cols: 80, rows: 24 }, started);
    broken = true;
    h.press('n');
    expect(await h.exitCode).toBe(70);
    expect(h.out.raw.endsWith('\x1b[?25h\x1b[?1049l')).toBe(true);
    expect(h.inp.isRaw).toBe(false);
    expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toContain('engine exploded');
  } finally {
    stderr.mockRestore();
  }
});

test('an error is shown with its location and q quits', async () => {
  const error = 'kernel.ptx:3:5: error: unknown instruction \'mvo\'\n  mvo.u32 %r1, 1;\n  ^~~';
  h = await TuiHarness.start({ error, title: 'kernel.ptx', cols: 80, rows: 24 }, (l) => l.join('\n').includes('unknown instruction'));
  const text = h.text();
  expect(text).toContain('kernel.ptx:3:5: error');
  expect(text).toContain('^~~');
  expect(text).not.toMatch(/\n\s+at /); // no stack trace
  expect(await h.quit()).toBe(1);
});
