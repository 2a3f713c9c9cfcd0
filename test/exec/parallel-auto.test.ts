/**
 * `--workers auto`'s decisions (src/exec/parallel/auto.ts), on numbers given by hand: the
 * threads an idle share of the cores allows, the work left projected from how fast CTAs are
 * taken, and when the watch asks workers in. parallel.test.ts runs them through the CLI.
 */
import { JoinWatch, projectedMs, spareThreads } from '../../src/exec/parallel/auto.js';

test('spare threads: one per core, less the load of other work (this thread counted as one), at least 1', () => {
  expect(spareThreads(2, 0)).toBe(2);
  // this process alone keeps one core busy: the other is idle
  expect(spareThreads(2, 1)).toBe(2);
  expect(spareThreads(2, 1.6)).toBe(1);
  expect(spareThreads(2, 9)).toBe(1);
  expect(spareThreads(16, 3.2)).toBe(14);
  expect(spareThreads(16, 0)).toBe(16);
  expect(spareThreads(1, 0)).toBe(1);
});

test('work left: the CTAs not yet taken at the last window\'s pace', () => {
  // 20 CTAs in 50 ms: 2.5 ms each; 200 left: 500 ms
  expect(projectedMs(50, 20, 200)).toBe(500);
  expect(projectedMs(50, 20, 0)).toBe(0);
  // none taken in the window: each CTA outlasts it, no bound
  expect(projectedMs(50, 0, 10)).toBe(Infinity);
});

test('the watch leaves out the first window, then asks workers in once the work left reaches its threshold', () => {
  let taken = 4; // the resident CTAs, taken at the start
  const w = new JoinWatch(1000, () => taken, 1000, 0);
  // under a window: not judged
  expect(w.due(10)).toBe(false);
  // the first window (cold code, the resident start): left out however slow
  taken = 5;
  expect(w.due(60)).toBe(false);
  // 10 CTAs in 50 ms: 5 ms each, 985 left: 4925 ms >= 1000
  taken = 15;
  expect(w.due(110)).toBe(true);
});

test('the watch keeps a launch alone when what is left is short, and says how much it saw', () => {
  let taken = 0;
  const w = new JoinWatch(300, () => taken, 1000, 0);
  expect(w.why()).toBe('it ended before the work left was judged (workers from 1000 ms of it)');
  taken = 40;
  expect(w.due(50)).toBe(false);
  // 60 CTAs in 50 ms, 200 left: 166.7 ms
  taken = 100;
  expect(w.due(100)).toBe(false);
  // 100 in 50 ms, 100 left: 50 ms
  taken = 200;
  expect(w.due(150)).toBe(false);
  expect(w.why()).toBe('about 167 ms of work left at most, workers from 1000 ms');
  // every CTA taken: nothing for a worker, however slow
  taken = 300;
  expect(w.due(100000)).toBe(false);
});
