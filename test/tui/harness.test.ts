/**
 * The harness itself: a screen read after flush() must show every byte written before it. Ink
 * writes one frame in several writes (erase, lines, cursor); the old fake TTY completed each write
 * only after the emulator had parsed it, so the stream held the rest of a frame back and a flush
 * marker could overtake it. The emulator parses its queue in slices of 12 ms; on a loaded machine
 * a slice ended right after the marker and the 80x24 test read a half-drawn screen. Here a clock
 * that jumps 20 ms per reading makes every chunk end a slice, which is that load, deterministically.
 */
import './env.js';
import { jest } from '@jest/globals';
import xterm from '@xterm/headless';
import { FakeTtyOut } from './harness.js';

afterEach(() => jest.restoreAllMocks());

test('a flush after several writes sees all of them on the screen, however the emulator slices its work', async () => {
  let now = 0;
  jest.spyOn(performance, 'now').mockImplementation(() => (now += 20));
  const term = new xterm.Terminal({ cols: 20, rows: 4, allowProposedApi: true, scrollback: 0 });
  const out = new FakeTtyOut(term, 20, 4);
  out.write('\x1b[2J\x1b[H');
  out.write('first\r\n');
  out.write('second\r\n');
  out.write('third');
  await new Promise<void>((r) => term.write('', () => r()));
  const b = term.buffer.active;
  const rows = [0, 1, 2].map((y) => b.getLine(y)?.translateToString(true));
  expect(rows).toEqual(['first', 'second', 'third']);
  term.dispose();
});
