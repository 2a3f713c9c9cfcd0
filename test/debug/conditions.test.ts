/**
 * Breakpoint conditions of any expression, evaluated per thread, and hit counts (ignore,
 * continue N). samples/origin_flow, line 16 `s[t] = b;` with b = 2*(in[t]+1) = 20*t + 2 and two
 * warps (t = 0..63) that each reach line 16 once, warp 0 first (round-robin, warp 0 runs until
 * the barrier before warp 1 starts).
 */
import { engineOf } from '../../src/engine/api.js';
import { join } from 'node:path';
import { openSession, type Session } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

function open(): Session {
  const dir = join(ROOT, 'samples', 'origin_flow');
  return openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json'), interval: 8 });
}
const run = (s: Session, cmd: string): string => {
  const r = consoleOf(engineOf(s)).execute(cmd);
  if (r.error) throw new Error(`${cmd}: ${r.output}`);
  return r.output;
};

test('a condition on a local picks the thread where it holds', () => {
  const s = open();
  run(s, 'break 16 if b == 62'); // 20t + 2 = 62: t = 3
  expect(run(s, 'continue')).toContain('Breakpoint 1, block (0,0,0) thread (3,0,0)');
  expect(run(s, 'print b')).toBe('$1 = 62');
});

test('expression terms combine with coordinate terms; the lowest matching lane is focused', () => {
  const s = open();
  run(s, 'break 16 if b > 100 && threadIdx.x < 8'); // 20t + 2 > 100: t >= 5; t < 8: lanes 5, 6, 7
  run(s, 'continue');
  expect(s.where().thread).toEqual([5, 0, 0]);
  // no other warp-step has a lane with t < 8 and b > 100
  expect(run(s, 'continue')).toContain('The kernel finished');
});

test('reverse-continue finds the last hit of an expression condition', () => {
  const s = open();
  run(s, 'break 16 if b % 3 == 0'); // 20t + 2 = 0 (mod 3) <=> t = 2 (mod 3)
  run(s, 'goto end');
  run(s, 'reverse-continue');
  expect(s.where().thread).toEqual([32, 0, 0]); // warp 1's step is the later one; 32 = 2 (mod 3)
  run(s, 'reverse-continue');
  expect(s.where().thread).toEqual([2, 0, 0]);
  expect(run(s, 'reverse-continue')).toContain('No more reverse-execution history');
});

test('ignore N COUNT and continue N pass over hits, and count them', () => {
  const s = open();
  run(s, 'break 16 if b % 3 == 0');
  expect(run(s, 'ignore 1 1')).toBe('Will ignore next 1 crossing of breakpoint 1.');
  run(s, 'continue');
  expect(s.where().thread).toEqual([32, 0, 0]);
  expect(run(s, 'info breakpoints')).toContain('hit 2 times');

  const t = open();
  run(t, 'break 16 if b % 3 == 0');
  run(t, 'continue');
  expect(t.where().thread).toEqual([2, 0, 0]);
  expect(run(t, 'continue 2')).toContain('The kernel finished'); // passes warp 1's hit
  expect(run(t, 'info breakpoints')).toContain('hit 2 times');
});

test('a condition that cannot be evaluated where a thread is stops there and says why (gdb)', () => {
  const s = open();
  run(s, 'break 16 if nosuchname == 1');
  expect(run(s, 'continue')).toMatch(/^Error in testing condition for breakpoint 1:\nNo symbol "nosuchname" in current context\.\nBreakpoint 1, block \(0,0,0\) thread \(0,0,0\)/);
});
