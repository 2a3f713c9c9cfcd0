/**
 * Writes and what-if timelines (issue #27), as batch transcripts on test/fixtures/whatif:
 *
 *   tile[t] = in[t] (in[k] = k + 1); __syncthreads(); limit = n (4);
 *   s = tile[0] + ... + tile[limit-1]; out[t] = s + tile[t]
 *
 * so out[t] = 10 + (t + 1) as recorded. Every expected value below is computed by hand from that
 * source: a write changes what the what-if timeline computes from its step on, and the original
 * recording still shows what was recorded.
 */
import { engineOf } from '../../src/engine/api.js';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSession, type Session } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT, testIf } from '../helpers.js';

const DIR = join(ROOT, 'test', 'fixtures', 'whatif');

function open(): Session {
  return openSession({ ptxPath: join(DIR, 'kernel.G.ptx'), launch: join(DIR, 'launch.json') });
}

/** Run commands as a batch script: each line's output, failing on an error. */
function run(s: Session, cmd: string): string {
  const r = consoleOf(engineOf(s)).execute(cmd);
  if (r.error) throw new Error(`${cmd}: ${r.output}`);
  return r.output;
}

function fails(s: Session, cmd: string): string {
  const r = consoleOf(engineOf(s)).execute(cmd);
  if (!r.error) throw new Error(`${cmd} should have failed, printed: ${r.output}`);
  return r.output;
}

/** The value of `print EXPR` without its `$N = `. */
const value = (s: Session, expr: string): string => run(s, `print ${expr}`).replace(/^\$\d+ = /, '');

describe('a loop bound written in a what-if timeline', () => {
  test('set var limit = 6 makes thread 0 sum six elements; timeline original shows the recorded sum', () => {
    const s = open();
    run(s, 'break kernel.cu:11');
    run(s, 'continue');
    expect(run(s, 'thread')).toContain('thread (0,0,0)');
    expect(value(s, 'limit')).toBe('4');
    const out = run(s, 'set var limit = 6');
    expect(out).toMatch(/^\[what-if 1\] written at step \d+; the launch re-ran with it from step \d+ \(\d+ steps; the original recording, unchanged, has \d+\)\. "timeline original" returns to it\.$/);
    expect(value(s, 'limit')).toBe('6');
    expect(run(s, 'status')).toMatch(/^\[what-if 1: step \d+\/\d+\]/);
    run(s, 'break kernel.cu:14');
    run(s, 'continue');
    // 1+2+3+4+5+6
    expect(value(s, 's')).toBe('21');
    run(s, 'goto end');
    expect(value(s, 'out[0]')).toBe('22'); // 21 + tile[0]
    expect(value(s, 'out[1]')).toBe('12'); // thread 1 kept limit 4: 10 + 2
    run(s, 'timeline original');
    expect(run(s, 'status')).toMatch(/^\[step \d+\/\d+\]/);
    run(s, 'goto end');
    expect(value(s, 'out[0]')).toBe('11'); // as recorded: 10 + 1
    run(s, 'timeline 1');
    run(s, 'goto end');
    expect(value(s, 'out[0]')).toBe('22');
  });

  test('reverse execution in the what-if goes back to the fork step and past it into the shared prefix', () => {
    const s = open();
    run(s, 'break kernel.cu:11');
    run(s, 'continue');
    const fork = engineOf(s).position().step;
    run(s, 'set var limit = 6');
    run(s, 'break kernel.cu:14');
    run(s, 'continue');
    expect(value(s, 's')).toBe('21');
    run(s, 'reverse-continue'); // back to breakpoint 1, at the fork step: the write is there
    expect(engineOf(s).position().step).toBe(fork);
    expect(value(s, 'limit')).toBe('6');
    expect(engineOf(s).timeline().name).toBe('what-if 1');
    run(s, 'reverse-stepi'); // before the write: the original's state (limit not yet 6)
    expect(engineOf(s).position().step).toBeLessThan(fork);
    expect(value(s, '$r9')).toBe('4'); // n, loaded at entry
    expect(value(s, 'limit')).not.toBe('6');
  });

  test('print x = v converts as C does and prints the new value; x += v; writes accumulate in one what-if', () => {
    const s = open();
    run(s, 'break kernel.cu:11');
    run(s, 'continue');
    expect(run(s, 'print limit = 5.9').split('\n')[0]).toBe('$1 = 5'); // double -> int truncates
    expect(run(s, 'print/x limit = 255').split('\n')[0]).toBe('$2 = 0xff');
    run(s, 'set variable limit -= 250');
    expect(value(s, 'limit')).toBe('5');
    const info = run(s, 'info timeline');
    expect(info).toContain('Current timeline: what-if 1');
    expect(info).toMatch(/what-if 1: \d+ steps, 3 writes:/);
    expect(info).toContain('limit = 5.9');
    expect(info).toContain('limit -= 250');
    expect(info).toContain('register $r2 of block (0,0,0) thread (0,0,0)');
    run(s, 'goto end');
    expect(value(s, 'out[0]')).toBe('16'); // 1+2+3+4+5 + 1
  });
});

describe('writes to a register, shared memory, global memory and a kernel parameter', () => {
  test('set $r9 = 5 (n as loaded, before limit = n) changes thread 0 alone', () => {
    const s = open();
    run(s, 'break kernel.cu:10');
    run(s, 'continue');
    expect(value(s, '$r9')).toBe('4');
    run(s, 'set $r9 = 5');
    expect(value(s, '$r9')).toBe('5');
    run(s, 'goto end');
    expect(value(s, 'out[0]')).toBe('16'); // 15 + 1
    expect(value(s, 'out[2]')).toBe('13'); // 10 + 3
  });

  test('set var tile[2] = 100 after the barrier: every thread of the block sums it', () => {
    const s = open();
    run(s, 'break kernel.cu:10');
    run(s, 'continue');
    expect(value(s, 'tile[2]')).toBe('3');
    run(s, 'set var tile[2] = 100');
    expect(value(s, 'tile[2]')).toBe('100');
    run(s, 'goto end');
    // s = 1 + 2 + 100 + 4 = 107 for every thread
    expect(value(s, 'out[0]')).toBe('108');
    expect(value(s, 'out[2]')).toBe('207');
    expect(value(s, 'out[5]')).toBe('113');
    run(s, 'timeline original');
    expect(value(s, 'out[2]')).toBe('13');
  });

  test('set var in[3] = 40 before the tile is loaded: a global write', () => {
    const s = open();
    run(s, 'break kernel.cu:8');
    run(s, 'continue');
    run(s, 'set var in[3] = 40');
    run(s, 'goto end');
    expect(value(s, 'out[0]')).toBe('47'); // 1+2+3+40 + 1
    expect(value(s, 'out[3]')).toBe('86'); // 46 + 40
  });

  test('set {int} ADDR = v writes the object of that type at an address', () => {
    const s = open();
    run(s, 'break kernel.cu:8');
    run(s, 'continue');
    const addr = /0x[0-9a-f]+/.exec(run(s, 'print &in[3]'))![0];
    run(s, `set {int} ${addr} = 40`);
    run(s, 'goto end');
    expect(value(s, 'out[3]')).toBe('86');
  });

  test('set var n = 6 at step 0: the kernel parameter every thread loads', () => {
    const s = open();
    expect(engineOf(s).position().step).toBe(0);
    run(s, 'set var n = 6');
    run(s, 'goto end');
    expect(value(s, 'out[0]')).toBe('22'); // 1+...+6 + 1
    expect(value(s, 'out[31]')).toBe('53'); // 21 + 32
    run(s, 'goto start');
    expect(value(s, 'n')).toBe('6');
    run(s, 'timeline original');
    expect(value(s, 'n')).toBe('4');
  });
});

describe('impossible writes are clear errors and change nothing', () => {
  test.each([
    ['set var t + 1 = 3', 'Left operand of assignment is not an lvalue.'],
    ['print 5 = 3', 'Left operand of assignment is not an lvalue.'],
    ['set var $pc = 3', 'Left operand of assignment is not an lvalue.'],
    ['set var *(int *) 0x10 = 1', 'Cannot access memory at address 0x10'],
    ['set var *(@const int *) 0 = 1', 'Cannot write to address 0x0 (@const): __constant__ memory is read-only on the device.'],
    ['set var nosuch = 1', 'No symbol "nosuch" in current context.'],
    ['set var', 'Argument required (expression to compute).'],
  ])('%s', (cmd, message) => {
    const s = open();
    run(s, 'break kernel.cu:11');
    run(s, 'continue');
    expect(fails(s, cmd)).toBe(message);
    expect(run(s, 'info timeline')).toMatch(/^Current timeline: the original recording \(\d+ steps, no writes\)\./);
    expect(value(s, 'limit')).toBe('4');
  });
});

describe('convenience variables', () => {
  test('set $i = 3 sets a gdb variable without forking', () => {
    const s = open();
    expect(run(s, 'set $i = 3')).toBe('');
    expect(value(s, '$i + 1')).toBe('4');
    expect(engineOf(s).timeline().id).toBe(0);
  });
});

describe('writes to local memory and to a call\'s parameter copy (samples/vars_structs)', () => {
  const SAMPLE = join(ROOT, 'samples', 'vars_structs');
  const openSample = (): Session => openSession({ ptxPath: join(SAMPLE, 'kernel.G.ptx'), launch: join(SAMPLE, 'launch.json') });
  // weigh's ld.param of k (its third parameter), so the break is before the copy is read
  const ptxLine = readFileSync(join(SAMPLE, 'kernel.G.ptx'), 'utf8').split('\n').findIndex((l) => /ld\.param\.u32\s.*weigh.*_param_2\]/.test(l)) + 1;

  test('the parameter copy k of weigh, written before weigh loads it, is what weigh reads', () => {
    const s = openSample();
    run(s, `break ptx:${ptxLine}`);
    run(s, 'continue');
    // the first thread to call weigh is thread 32 (warp 1 runs first here): k = (32 + 1) % 64
    expect(run(s, 'thread')).toContain('thread (32,0,0)');
    expect(value(s, '*(int *)&_Z5weighPK8ParticlePKiiPf_param_2')).toBe('33');
    expect(run(s, 'set var *(int *)&_Z5weighPK8ParticlePKiiPf_param_2 = 5')).toContain('[what-if 1]');
    expect(run(s, 'info timeline')).toContain('(a call\'s parameter copy) of thread (32,0,0), 4 bytes: 0x21 -> 0x5]');
    run(s, 'next');
    expect(value(s, 'k')).toBe('5');
    run(s, 'timeline original');
    expect(value(s, 'k')).toBe('33');
  });

  test('a register local of the caller\'s frame (up; set var tid = 7) is written in that frame', () => {
    const s = openSample();
    run(s, 'break weigh');
    run(s, 'continue');
    run(s, 'up');
    expect(value(s, 'tid')).toBe('32'); // thread (32,0,0): tid = threadIdx.x
    run(s, 'set var tid = 7');
    run(s, 'down');
    expect(value(s, 'k')).toBe('33'); // weigh's own k untouched: (32 + 1) % 64
    run(s, 'finish');
    expect(value(s, 'tid')).toBe('7');
    run(s, 'timeline original');
    expect(value(s, 'tid')).toBe('32');
  });

  test('struct members in local memory: bit fields keep their neighbours, enums and chars convert', () => {
    const s = openSample();
    run(s, 'break kernel.cu:69');
    run(s, 'continue');
    expect(run(s, 'thread')).toContain('thread (32,0,0)');
    // i = 32: p.flags = 32 & 7 = 0, p.level = 32 % 32 = 0 (u32 flags : 3, level : 5)
    run(s, 'set var p.level = 9');
    expect(value(s, 'p.level')).toBe('9');
    expect(value(s, 'p.flags')).toBe('0');
    expect(run(s, 'print p.level = 40').split('\n')[0]).toBe('$3 = 8'); // 40 mod 2^5, as C stores it
    expect(run(s, 'print p.color = BLUE').split('\n')[0]).toBe('$4 = BLUE');
    expect(run(s, 'print p.tag = 66').split('\n')[0]).toBe("$5 = 66 'B'");
    expect(run(s, 'print p.pos.x = 2').split('\n')[0]).toBe('$6 = 2');
    expect(run(s, 'info timeline')).toMatch(/what-if 1: \d+ steps, 5 writes:/);
  });

  test('local[11] (local memory of the kernel frame) + 100 adds 100 to outInt[i]', () => {
    const s = openSample();
    run(s, 'break kernel.cu:69');
    run(s, 'continue');
    const i = Number(value(s, 'blockIdx.x * blockDim.x + threadIdx.x')); // line 43
    expect(value(s, 'local[11]')).toBe(String(i)); // local[11] = i (line 56)
    expect(run(s, 'print &local[11]')).toMatch(/\(@local int \*\) 0x[0-9a-f]+/);
    run(s, `set var local[11] = ${i + 100}`);
    run(s, 'goto end');
    const whatIf = Number(value(s, `outInt[${i}]`));
    run(s, 'timeline original');
    const recorded = Number(value(s, `outInt[${i}]`));
    // outInt[i] = *sp + *lp + ... with lp = &local[11]: the write adds 100, nothing else changes
    expect(whatIf - recorded).toBe(100);
  });
});

describe('timeline travel', () => {
  test('timeline original STEP and timeline what-if 1 STEP go to a step of that timeline', () => {
    const s = open();
    run(s, 'break kernel.cu:11');
    run(s, 'continue');
    run(s, 'set var limit = 6');
    expect(run(s, 'timeline original 0')).toMatch(/\[step 0\/\d+\]/);
    expect(run(s, 'timeline what-if 1 0')).toMatch(/\[what-if 1: step 0\/\d+\]/);
    expect(fails(s, 'timeline 2')).toBe('No what-if timeline 2 (there is 1: see "info timeline").');
    expect(fails(s, 'timeline sideways')).toMatch(/^usage: timeline original/);
    expect(run(s, 'timeline')).toContain('* what-if 1:');
  });
});

describe('a write after the last step', () => {
  test('goto end; print out[3] = 5 changes the result in the what-if only', () => {
    const s = open();
    run(s, 'goto end');
    expect(run(s, 'print out[3] = 5').split('\n')[0]).toBe('$1 = 5');
    expect(value(s, 'out[3]')).toBe('5');
    run(s, 'goto start');
    run(s, 'goto end');
    expect(value(s, 'out[3]')).toBe('5');
    run(s, 'timeline original');
    expect(value(s, 'out[3]')).toBe('14'); // 10 + tile[3]
  });
});

describe('batch mode (ptxdbg FILE --batch --ex ...)', () => {
  const CLI = join(ROOT, 'dist', 'src', 'cli.js');
  const built = existsSync(CLI) ? null : 'dist/src/cli.js is missing: run `npm run build` first';
  testIf(built)('a write, the what-if result, the original again; a refused write exits 1', () => {
    const cli = (...ex: string[]): { code: number; out: string } => {
      const r = spawnSync(process.execPath, [CLI, join(DIR, 'kernel.G.ptx'), '--batch', ...ex.flatMap((c) => ['--ex', c])], { encoding: 'utf8', cwd: ROOT });
      return { code: r.status ?? -1, out: r.stdout + r.stderr };
    };
    const ok = cli('break kernel.cu:11', 'run', 'print limit = 6', 'goto end', 'print out[0]', 'timeline original', 'print out[0]');
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^\$1 = 6$/m);
    expect(ok.out).toMatch(/^\[what-if 1\] written at step \d+;/m);
    expect(ok.out).toMatch(/^\$2 = 22$/m); // 1+...+6 + 1
    expect(ok.out).toMatch(/^Now in the original recording at step \d+ of \d+\.$/m);
    expect(ok.out).toMatch(/^\$3 = 11$/m);
    const bad = cli('break kernel.cu:11', 'run', 'set var limit + 1 = 2');
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('Left operand of assignment is not an lvalue.');
  }, 120_000);
});

describe('conditions are evaluated in the current timeline', () => {
  test('break 14 if limit == 6 hits in the what-if and not in the original', () => {
    const s = open();
    run(s, 'break kernel.cu:11');
    run(s, 'continue');
    run(s, 'set var limit = 6');
    run(s, 'delete 1');
    run(s, 'break kernel.cu:14 if limit == 6');
    expect(run(s, 'continue')).toMatch(/^Breakpoint 2, block \(0,0,0\) thread \(0,0,0\)/);
    run(s, 'timeline original');
    run(s, 'goto start');
    expect(run(s, 'continue')).toMatch(/^The kernel finished after \d+ warp-steps\./);
    run(s, 'timeline 1');
    run(s, 'goto start');
    expect(run(s, 'continue')).toMatch(/^Breakpoint 2, /);
  });
});
