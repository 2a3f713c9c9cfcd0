/**
 * The dataflow keys on a selected variable: `L` shows it in all 32 lanes of the warp (Lanes pane), `o` goes to
 * the step that wrote it (samples/origin_flow: t = threadIdx.x, so lane l holds l).
 */
import './env.js';
import { join } from 'node:path';
import { openSession } from '../../src/engine/session.js';
import { ROOT } from '../helpers.js';
import { KEY, TuiHarness } from './harness.js';

const DIR = join(ROOT, 'samples', 'origin_flow');
let h: TuiHarness | undefined;
afterEach(() => {
  h?.dispose();
  h = undefined;
});

const started = (l: string[]): boolean => l.some((x) => /step \d+\/\d+/.test(x));

test('L lists the selected variable per lane; o jumps to the step that wrote it', async () => {
  const session = openSession({ ptxPath: join(DIR, 'kernel.G.ptx'), launch: join(DIR, 'launch.json') });
  h = await TuiHarness.start({ session, title: 'origin_flow', cols: 160, rows: 50 }, started);
  // step to line 15 (`int b = twice(a);`): t and a are set
  for (let i = 0; i < 6 && !/kernel\.cu:15 /.test(h.lines()[0]!); i++) {
    const header = h.lines()[0];
    await h.pressAndWait('n', (l) => l[0] !== header, 'next moves');
  }
  expect(h.lines()[0]).toMatch(/kernel\.cu:15 /);
  // Tab: Source -> PTX -> Variables; the cursor starts on the first row (the group header): down selects t
  h.press(KEY.tab, KEY.tab, KEY.down);
  // the Lanes pane (it shares the Threads slot at 160x50) lists all 32: t = threadIdx.x = lane
  const lanes = await h.pressAndWait('L', (l) => /● 20 \(20,0,0\)\s+20\b/.test(l.join('\n')), 'the lanes of t in the Lanes pane');
  expect(lanes.join('\n')).toMatch(/●  1 \(1,0,0\)\s+1\b/);
  expect(lanes.join('\n')).toMatch(/●▶ 0 \(0,0,0\)\s+0\b/);
  const timeline = (l: string[]): number => Number(/^ ?step (\d+)\/\d+ /.exec(l.find((x) => /^ ?step \d+\/\d+ /.test(x)) ?? '')?.[1] ?? -1);
  const before = timeline(h.lines());
  const after = await h.pressAndWait('o', (l) => /was last written by PTX \d+ of flow:/.test(l.join('\n')), 'origin of t');
  // the writing step is earlier than where we were
  expect(timeline(after)).toBeGreaterThanOrEqual(0);
  expect(timeline(after)).toBeLessThan(before);
});

test('display expressions follow stops made with keys too', async () => {
  const session = openSession({ ptxPath: join(DIR, 'kernel.G.ptx'), launch: join(DIR, 'launch.json') });
  h = await TuiHarness.start({ session, title: 'origin_flow', cols: 160, rows: 50 }, started);
  h.press(':');
  await h.waitFor((l) => l.some((x) => x.startsWith(' :') || x.startsWith(':')), 10000, 'the command line');
  for (const ch of 'display threadIdx.x') h.press(ch);
  await h.pressAndWait(KEY.enter, (l) => /1: threadIdx\.x = 0/.test(l.join('\n')), 'the display is set');
  const header = h.lines()[0];
  // `n` is a key, not a typed command: the display shows again after its stop
  const l = await h.pressAndWait('n', (ls) => ls[0] !== header && (ls.join('\n').match(/1: threadIdx\.x = 0/g) ?? []).length >= 2, 'the display after n');
  expect(l.join('\n')).toContain('(ptxdbg) next');
});
