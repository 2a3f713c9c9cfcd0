/**
 * Inlined calls as gdb shows them (gdb manual, "Inline Functions"), on samples/inline_frames
 * (kernel.cu: gid() body line 5, sq() body line 10, norm2() lines 15-17 calling sq at 15 and 16,
 * the kernel's first statement `int i = gid();` at line 28, a comment at 32, `norm2(a, b)` at
 * 33, `scale(r, 3)` at 34; all __forceinline__ except scale) in both builds: -O3 -lineinfo
 * (`.loc ... inlined_at`) and -G (DW_TAG_inlined_subroutine), and on
 * samples/its_barrier_in_called_function (kernel.cu line 9: `cg::thread_block cta =
 * cg::this_thread_block();`, the kernel `rounds`' first statement, an inlined call in -G).
 * At -O3 nvcc folds sq(a) into line 16's fma, so line 15 has no code of its own and norm2's
 * first instruction is on line 16 (read from the PTX's .loc directives by hand).
 */
import { join } from 'node:path';
import { engineOf } from '../../src/engine/api.js';
import { openSession, type Session } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

const sample = (name: string, build: 'G' | 'O3'): Session => {
  const dir = join(ROOT, 'samples', name);
  return openSession({ ptxPath: join(dir, `kernel.${build}.ptx`), launch: join(dir, 'launch.json') });
};
const run = (s: Session, cmd: string): string => {
  const r = consoleOf(engineOf(s)).execute(cmd);
  if (r.error) throw new Error(`${cmd}: ${r.output}`);
  return r.output;
};
/** bt as `function line` per frame, arguments left out (the O3 build has none to show). */
const bt = (s: Session): string[] => run(s, 'bt').split('\n').map((l) => {
  const m = /#\d+\s+(\S+) \(.*\) at kernel\.cu:(\d+)$/.exec(l) ?? /#\d+\s+(\S+) \(.*\) at (\S+)$/.exec(l);
  return m ? `${m[1]} ${m[2]}` : l;
});

describe.each(['O3', 'G'] as const)('inline frames, %s build', (build) => {
  test('break on the kernel whose first statement is an inlined call stops at that statement; step enters the call', () => {
    const s = sample('inline_frames', build);
    expect(run(s, 'break inline_frames')).toMatch(/file kernel\.cu, line 28\.$/);
    expect(run(s, 'run')).toContain('Breakpoint 1, block (0,0,0) thread (0,0,0) at inline_frames (kernel.cu:28)');
    expect(bt(s)).toEqual(['inline_frames 28']);
    // gdb's step at an inlined call on the current line enters it without executing anything
    // (-G executes its `bra.uni` to the next instruction, line 28's one instruction: ptxas drops it)
    const at = s.where().at.step;
    run(s, 'step');
    if (build === 'O3') expect(s.where().at.step).toBe(at);
    expect(bt(s)).toEqual(['gid 5', 'inline_frames 28']);
    // leaving gid: back in the kernel; -G stores the result into i on line 28 (`.loc 1 28 5`
    // mov.b32 %r1 after gid's body), then the `if` at 29; -O3 goes straight to the `if`
    run(s, 'next');
    if (build === 'G') {
      expect(bt(s)).toEqual(['inline_frames 28']);
      run(s, 'next');
    }
    expect(bt(s)).toEqual(['inline_frames 29']);
  });

  test('a breakpoint on a line without code goes to the next line with code: the inlined call at 33, shown at the call site', () => {
    const s = sample('inline_frames', build);
    expect(run(s, 'break 32')).toMatch(/file kernel\.cu, line 33[ .]/);
    expect(run(s, 'run')).toContain('at inline_frames (kernel.cu:33)');
    expect(bt(s)).toEqual(['inline_frames 33']);
    // step: into norm2 (at its first line with code), then into sq, each a frame with its call site
    run(s, 'step');
    const norm2Line = build === 'O3' ? 16 : 15;
    expect(bt(s)).toEqual([`norm2 ${norm2Line}`, 'inline_frames 33']);
    run(s, 'step');
    expect(bt(s)).toEqual(['sq 10', `norm2 ${norm2Line}`, 'inline_frames 33']);
    // up / frame N select the caller's line
    run(s, 'up');
    expect(s.where().line).toBe(norm2Line);
    run(s, 'frame 2');
    expect(s.where().line).toBe(33);
    // finish with frame 1 selected leaves norm2 (gdb finishes the selected frame): back in the kernel
    run(s, 'frame 1');
    // (-G: the return lands on line 33's second location, the store into r, so the breakpoint reports it)
    expect(run(s, 'finish')).toMatch(/Run till exit from #1  norm2|Breakpoint 1, block \(0,0,0\) thread \(0,0,0\) at inline_frames \(kernel\.cu:33\)/);
    expect(bt(s)[0]).toMatch(/^inline_frames 3[34]$/);
  });

  test('next steps over an inlined call on its line: 31 -> 33 -> 34', () => {
    const s = sample('inline_frames', build);
    run(s, 'break 31');
    run(s, 'run');
    // O3 interleaves lines 30 and 31; next until the call at 33
    for (let k = 0; k < 4 && s.where().line !== 33; k++) run(s, 'next');
    expect(bt(s)).toEqual(['inline_frames 33']);
    run(s, 'next');
    expect(bt(s)).toEqual(['inline_frames 34']);
  });
});

test('-O3: line 15 (folded into 16) goes to line 16; break sq has one location per inlined copy', () => {
  const s = sample('inline_frames', 'O3');
  expect(run(s, 'break 15')).toMatch(/line 16\.$/);
  // sq(a) was folded into line 16's fma: only sq(b) has code of its own
  expect(run(s, 'break sq')).toMatch(/file kernel\.cu, line 10\.$/);
  expect(run(s, 'continue')).toContain('Breakpoint 1, block (0,0,0) thread (0,0,0) at norm2 (kernel.cu:16)');
  expect(bt(s)).toEqual(['norm2 16', 'inline_frames 33']);
});

test('-O3: a breakpoint on the inlined sq stops in sq; finish returns to norm2 without a value', () => {
  const s = sample('inline_frames', 'O3');
  run(s, 'break sq');
  expect(run(s, 'continue')).toContain('Breakpoint 1, block (0,0,0) thread (0,0,0) at sq (kernel.cu:10)');
  expect(bt(s)).toEqual(['sq 10', 'norm2 16', 'inline_frames 33']);
  // finish out of an inlined frame: back in norm2, no value (gdb prints none for an inlined call)
  const fin = run(s, 'finish');
  expect(fin).toContain('Run till exit from #0  sq');
  expect(fin).not.toContain('Value returned');
  expect(bt(s)).toEqual(['norm2 16', 'inline_frames 33']);
});

test('-G: break sq has two locations, one per call; each hit shows sq at 10 under its call site', () => {
  const s = sample('inline_frames', 'G');
  expect(run(s, 'break sq')).toMatch(/line 10 \(2 locations\)\.?$/);
  expect(run(s, 'run')).toContain('at sq (kernel.cu:10)');
  expect(bt(s)).toEqual(['sq 10', 'norm2 15', 'inline_frames 33']);
  // the DWARF's formal parameter of this copy: v = a = x[0] = -20 (gen.py: x[i] = i % 41 - 20)
  expect(run(s, 'print v')).toBe('$1 = -20');
  expect(run(s, 'continue')).toContain('at sq (kernel.cu:10)');
  expect(bt(s)).toEqual(['sq 10', 'norm2 16', 'inline_frames 33']);
  // y[0] = -15 (gen.py: (7i) % 31 - 15)
  expect(run(s, 'print v')).toBe('$2 = -15');
});

test('-G: break rounds stops at its first line, before the inlined cg::this_thread_block() call (gdb: kernel.cu:9)', () => {
  const s = sample('its_barrier_in_called_function', 'G');
  expect(run(s, 'break rounds')).toMatch(/file kernel\.cu, line 9\.$/);
  expect(run(s, 'run')).toContain('Breakpoint 1, block (0,0,0) thread (0,0,0) at rounds (kernel.cu:9)');
  expect(bt(s)).toEqual(['rounds 9']);
  run(s, 'step');
  const frames = bt(s);
  expect(frames[0]).toMatch(/^cooperative_groups::__v1::this_thread_block /);
  expect(frames[1]).toBe('rounds 9');
  // finish the inlined calls, then next: the kernel's next statement with code is line 11
  while (bt(s).length > 1) run(s, 'finish');
  expect(bt(s)).toEqual(['rounds 9']);
  run(s, 'next');
  expect(bt(s)).toEqual(['rounds 11']);
});

test('info breakpoints lists each inlined copy as gdb does: N.1, N.2 under the breakpoint', () => {
  const s = sample('inline_frames', 'G');
  run(s, 'break sq');
  const rows = run(s, 'info breakpoints').split('\n');
  expect(rows[1]).toMatch(/^1 +breakpoint +y +sq +\(2 locations\)$/);
  expect(rows[2]).toMatch(/^1\.1 +y +in sq at kernel\.cu:10 \(pc \d+ of inline_frames\)$/);
  expect(rows[3]).toMatch(/^1\.2 +y +in sq at kernel\.cu:10 \(pc \d+ of inline_frames\)$/);
});

describe.each(['O3', 'G'] as const)('reverse stepping through inline frames, %s build', (build) => {
  test('reverse-next from 34 passes back over the inlined norm2 call to line 33, then to line 31', () => {
    const s = sample('inline_frames', build);
    run(s, 'break 34');
    run(s, 'run');
    run(s, 'reverse-next');
    expect(bt(s)).toEqual(['inline_frames 33']);
    run(s, 'reverse-next');
    expect(bt(s)).toEqual(['inline_frames 31']);
  });

  test('reverse-step from 34 enters norm2 at its last line, then sq', () => {
    const s = sample('inline_frames', build);
    run(s, 'break 34');
    run(s, 'run');
    if (build === 'G') {
      // -G: line 33's store into r after the call, then norm2's `return s;` (17), then `s += sq(b)` (16)
      run(s, 'reverse-step');
      expect(bt(s)).toEqual(['inline_frames 33']);
      run(s, 'reverse-step');
      expect(bt(s)).toEqual(['norm2 17', 'inline_frames 33']);
    }
    // -O3: norm2's last instruction is line 16's fma (its `return s` has no code of its own)
    run(s, 'reverse-step');
    expect(bt(s)).toEqual(['norm2 16', 'inline_frames 33']);
    run(s, 'reverse-step');
    expect(bt(s)).toEqual(['sq 10', 'norm2 16', 'inline_frames 33']);
  });
});
