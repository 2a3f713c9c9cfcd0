/**
 * gdb's `start`: a temporary breakpoint on the kernel's first statement (after the prologue,
 * as gdb's `start` on main), then `run`; `run` goes on back to the start of the recording.
 * Expected lines come from the CUDA sources: samples/origin_flow/kernel.cu declares `flow` at
 * line 10, line 12 is a `__shared__` declaration (no code), its first statement `int t =
 * threadIdx.x;` is line 13; test/fixtures/templates/kernel.cu's `scale<float, 4>` starts at
 * line 14; samples/saxpy/kernel.cu's `saxpy` at line 11.
 */
import { join } from 'node:path';
import { engineOf } from '../../src/engine/api.js';
import { openSession, type Session } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

const open = (dir: string): Session => openSession({ ptxPath: join(ROOT, dir, 'kernel.G.ptx'), launch: join(ROOT, dir, 'launch.json') });
const run = (s: Session, cmd: string): string => {
  const r = consoleOf(engineOf(s)).execute(cmd);
  if (r.error) throw new Error(`${cmd}: ${r.output}`);
  return r.output;
};

test('start stops at the first statement through a temporary breakpoint, which is then gone', () => {
  const s = open('samples/origin_flow');
  const out = run(s, 'start');
  expect(out).toMatch(/^Temporary breakpoint 1 at flow pc \d+: file kernel\.cu, line 13\.$/m);
  expect(out).toContain('Temporary breakpoint 1, block (0,0,0) thread (0,0,0) at flow (kernel.cu:13)');
  expect(out).toContain('13\t    int t = threadIdx.x;');
  expect(run(s, 'info breakpoints')).toBe('No breakpoints or watchpoints.');
});

test('start from later in the recording goes back to the first statement; the next start numbers a new breakpoint', () => {
  const s = open('samples/origin_flow');
  run(s, 'break 17');
  expect(run(s, 'continue')).toContain('at flow (kernel.cu:17)');
  const out = run(s, 'start');
  expect(out).toMatch(/^Temporary breakpoint 2 at flow pc \d+: file kernel\.cu, line 13\.$/m);
  expect(out).toContain('at flow (kernel.cu:13)');
  // the user's breakpoint stays, the temporary one is deleted
  expect(run(s, 'info breakpoints').split('\n').filter((l) => /^\d+\s/.test(l)).map((l) => l.split(/\s+/)[0])).toEqual(['1']);
  // run still goes from the start of the recording to the first breakpoint: line 17
  expect(run(s, 'run')).toContain('at flow (kernel.cu:17)');
});

test('start on a template kernel (mangled entry) and on saxpy stops at their first statements', () => {
  expect(run(open('test/fixtures/templates'), 'start')).toContain('at scale<float, 4> (kernel.cu:14)');
  expect(run(open('samples/saxpy'), 'start')).toContain('at saxpy (kernel.cu:11)');
});
