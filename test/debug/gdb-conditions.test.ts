/**
 * Issue #27, breakpoints and conditions as gdb: batch transcripts (runBatch, what `ptxdbg --batch`
 * prints) on samples/origin_flow. From its kernel.cu: line 13 `int t = threadIdx.x;`, 14
 * `int a = in[t] + 1;` (in[t] = 10t, samples/origin_flow/in), 15 `int b = twice(a);` with twice()
 * on lines 5-7 (`buf[v & 3] = v * 2; return buf[v & 3];`), 16 `s[t] = b;` so b = 2(10t + 1) = 20t + 2,
 * 17 `__syncthreads();`, 18 `out[t] = s[(t + 1) % 64];`; one block of 64 threads (two warps).
 */
import { join } from 'node:path';
import { runBatch } from '../../src/cli/debug.js';
import { openSession, type Session } from '../../src/engine/session.js';
import { ROOT } from '../helpers.js';

function open(name = 'origin_flow'): Session {
  const dir = join(ROOT, 'samples', name);
  return openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json'), interval: 8 });
}
/** A batch transcript and its exit status (1 when a command failed). */
function batch(s: Session, ...cmds: string[]): { out: string; code: number } {
  let out = '';
  const code = runBatch(s, cmds, (t) => { out += t; });
  return { out, code };
}

test('a condition that does not parse is refused and creates nothing', () => {
  const r = batch(open(), 'break 16 if b ==', 'info breakpoints');
  expect(r.code).toBe(1);
  expect(r.out).toBe("A syntax error in expression, near `'.\nNo breakpoints or watchpoints.\n");
});

test('a condition that cannot be evaluated at a hit stops there with gdb\'s error', () => {
  const r = batch(open(), 'break 16 if nosuchname == 1', 'continue', 'print t');
  expect(r.out).toMatch(/^Breakpoint 1 at .*line 16\.\nError in testing condition for breakpoint 1:\nNo symbol "nosuchname" in current context\.\nBreakpoint 1, block \(0,0,0\) thread \(0,0,0\) at .*kernel\.cu:16/);
  expect(r.out).toMatch(/\$1 = 0\n$/);
});

test('condition N EXPR, condition N (unconditional), a bad one changes nothing', () => {
  const r = batch(open(), 'break 16', 'condition 1 b == 62', 'continue', 'print t', 'condition 1 b ==', 'info breakpoints', 'condition 1', 'condition 7 b', 'continue', 'print t');
  // 20t + 2 = 62: thread 3; then unconditional: thread 32's warp (warp 1) is the next hit, its lowest lane
  expect(r.out).toContain('Breakpoint 1, block (0,0,0) thread (3,0,0)');
  expect(r.out).toContain('$1 = 3\n');
  expect(r.out).toContain("A syntax error in expression, near `'.\n");
  expect(r.out).toMatch(/1\s+breakpoint\s+y\s+16 if b == 62/);
  expect(r.out).toContain('Breakpoint 1 now unconditional.\n');
  expect(r.out).toContain('No breakpoint number 7.\n');
  expect(r.out).toContain('Breakpoint 1, block (0,0,0) thread (32,0,0)');
  expect(r.out).toMatch(/\$2 = 32\n$/);
});

test('clear LOCATION deletes the breakpoints there', () => {
  const r = batch(open(), 'break 16', 'tbreak 18', 'break kernel.cu:16', 'clear 16', 'info breakpoints', 'clear 16');
  expect(r.out).toContain('Deleted breakpoints 1 3\n');
  expect(r.out).toMatch(/2\s+breakpoint\s+y\s+18/);
  expect(r.out).toMatch(/No breakpoint at 16\.\n$/);
});

test('next over a call stops at a breakpoint in the callee; finish stops at one before the return', () => {
  const r = batch(open(), 'break 15', 'continue', 'break 7', 'next', 'print v', 'delete', 'break 18', 'finish');
  // thread 0: a = in[0] + 1 = 1; twice(1)
  expect(r.out).toMatch(/Breakpoint 2, block \(0,0,0\) thread \(0,0,0\) at \S+ \(kernel\.cu:7\)/);
  expect(r.out).toContain('$1 = 1\n');
  // finish from twice returns to line 15 before line 18 is reached: no breakpoint on the way
  expect(r.out).toMatch(/Run till exit from #0 .*\n/);
  expect(r.out).not.toMatch(/Breakpoint 3,/);
});

test('until, advance and reverse-next stop at a breakpoint met on the way', () => {
  const r = batch(open(), 'break 14', 'continue', 'break 16', 'advance 18', 'print b');
  expect(r.out).toMatch(/Breakpoint 2, block \(0,0,0\) thread \(0,0,0\) at .*kernel\.cu:16/);
  expect(r.out).toMatch(/\$1 = 2\n$/); // 20*0 + 2
  const back = batch(open(), 'break 18', 'continue', 'break 6', 'reverse-next', 'reverse-next', 'reverse-next', 'print v');
  // warp 1 reaches line 18 first (warp 0 waited at the barrier): thread 32, a = in[32] + 1 = 321
  // back from 18 over 17, 16, then over the call on 15: the breakpoint inside twice stops it
  expect(back.out).toMatch(/Breakpoint 2, block \(0,0,0\) thread \(32,0,0\) at \S+ \(kernel\.cu:6\)/);
  expect(back.out).toMatch(/\$1 = 321\n$/);
});

test('next stops at a watchpoint the thread triggers on the way; two watchpoints on one write are both reported', () => {
  const r = batch(open(), 'break 16', 'continue', 'watch s[0]', 'watch -l s[0]', 'next');
  expect(r.out).toContain('Hardware watchpoint 3: -location s[0]');
  // s[0] = b = 2 for thread 0, shared memory starts zeroed
  expect(r.out).toMatch(/Hardware watchpoint 2: s\[0\]\n\nOld value = 0\nNew value = 2\n\nHardware watchpoint 3: -location s\[0\]\n\nOld value = 0\nNew value = 2\n/);
});

test('a breakpoint on the launch\'s first instruction hits in block (0,0,0) when the session opens there', () => {
  const r = batch(open(), 'break *0', 'continue', 'status');
  expect(r.out).toMatch(/Breakpoint 1, block \(0,0,0\) thread \(0,0,0\)/);
});

test('a watched char[8] shows Old/New as strings', () => {
  // vars_structs kernel.cu 57-59: label[k] = 'a' + (i + k) % 26 for k < 7, label[7] = 0; thread 0: i = 0
  const r = batch(open('vars_structs'), 'break 58', 'continue', 'watch label', 'continue', 'continue');
  expect(r.out).toMatch(/New value = "a\\000\\000\\000\\000\\000\\000"\n/);
  expect(r.out).toMatch(/Old value = "a\\000\\000\\000\\000\\000\\000"\nNew value = "ab\\000\\000\\000\\000\\000"\n/);
});

test('commands N ... end in a command file is stored, not run; it runs at each stop at N', () => {
  // what `ptxdbg --batch -x FILE` does with the file's lines
  const r = batch(open(), 'break 16', 'commands 1', 'print t', 'end', 'info breakpoints', 'run');
  // nothing printed while the block is read; info breakpoints lists it under the breakpoint (gdb's
  // manual: the breakpoint's command list is shown), and at the stop (thread 0, t = 0) it prints $1
  expect(r.out).toMatch(/^Breakpoint 1 at .*line 16\.\nNum Type {8}Enb What\n1 {3}breakpoint {2}y {2}16 {2}\(1 location\)\n {8}print t\nBreakpoint 1, block \(0,0,0\) thread \(0,0,0\)[^]*\n\$1 = 0\n$/);
});
