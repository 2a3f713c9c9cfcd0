/**
 * gdb habits: finish's return value, $pc/$_exitcode, whatis/ptype, display, disassemble and x/i,
 * x/s, list FUNC and A,B, until/advance, info cuda kernels/blocks, help CMD, bt with source names
 * and arguments, a breakpoint on a line without code, and the empty line repeating a step.
 * Expected values come from the samples' sources and input files.
 */
import { engineOf } from '../../src/engine/api.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSession, type Session } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

function open(name: string): Session {
  const dir = join(ROOT, 'samples', name);
  return openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json') });
}
const run = (s: Session, cmd: string): string => {
  const r = consoleOf(engineOf(s)).execute(cmd);
  if (r.error) throw new Error(`${cmd}: ${r.output}`);
  return r.output;
};
const f32 = (rel: string): Float32Array => new Float32Array(new Uint8Array(readFileSync(join(ROOT, rel))).buffer);

describe('saxpy: axpy(a, x, y) = a*x + y called by thread 0 with x[0], y[0]', () => {
  const x0 = f32('samples/saxpy/in/x.bin')[0]!;
  const y0 = f32('samples/saxpy/in/y.bin')[0]!;
  let s: Session;
  beforeEach(() => {
    s = open('saxpy');
    run(s, 'break axpy');
    run(s, 'continue');
  });

  test('finish prints the value returned, in the function\'s C type', () => {
    const out = run(s, 'finish');
    const m = /Value returned is \$1 = (\S+)/.exec(out);
    expect(m).not.toBeNull();
    // one f32 rounding of the exact product plus y
    expect(Math.fround(Number(m![1]))).toBe(Math.fround(Math.fround(2.5 * x0) + y0));
  });

  test('$pc is the PTX instruction index; whatis and ptype name types', () => {
    // axpy's body: ld.param x3 (0-2), then the mul of line 4 at instruction 3
    expect(run(s, 'print $pc')).toBe('$1 = 3');
    expect(run(s, 'whatis a')).toBe('type = float');
    expect(consoleOf(engineOf(s)).execute('print $_exitcode').output).toBe('$_exitcode is void (not set yet).');
    run(s, 'goto end');
    expect(run(s, 'print $_exitcode')).toBe('$2 = 0'); // the kernel finished without a fault
  });

  test('display shows its expressions after every stop until undisplay', () => {
    expect(run(s, 'display a')).toBe('1: a = 2.5');
    expect(run(s, 'next')).toContain('\n1: a = 2.5');
    run(s, 'undisplay 1');
    expect(run(s, 'next')).not.toContain('1: a =');
  });

  test('disassemble marks the current instruction; x/2i $pc lists two from it', () => {
    const d = run(s, 'disassemble').split('\n');
    // gdb names the symbol demangled (c++filt _Z4axpyfff: `axpy(float, float, float)`); the
    // instructions' <symbol+offset> stay mangled, as gdb's default `set print asm-demangle off` shows them
    expect(d[0]).toBe('Dump of PTX for function axpy(float, float, float):');
    expect(d.filter((l) => l.startsWith('=> '))).toEqual(['=>     3: mul.f32 %f4, %f1, %f2;']);
    expect(run(s, 'x/2i $pc').split('\n')).toEqual([
      '=>     3 <_Z4axpyfff+3>: mul.f32 %f4, %f1, %f2;',
      '       4 <_Z4axpyfff+4>: add.f32 %f5, %f4, %f3;',
    ]);
  });

  test('bt names frames by their source names with argument values', () => {
    const bt = run(s, 'bt').split('\n');
    expect(bt[0]).toMatch(/^\*#0  axpy \(a=2\.5, x=(\S+), y=(\S+)\) at kernel\.cu:4$/);
    const [, xs, ys] = /x=(\S+), y=(\S+)\)/.exec(bt[0]!)!;
    expect(Math.fround(Number(xs))).toBe(x0);
    expect(Math.fround(Number(ys))).toBe(y0);
    expect(bt[1]).toMatch(/^ #1  saxpy \(n=200, a=2\.5, x=0x[0-9a-f]+, y=0x[0-9a-f]+\) at kernel\.cu:15$/);
  });

  test('list FUNC and list A,B', () => {
    expect(run(s, 'list 3,5').split('\n').map((l) => l.slice(2, 7).trim())).toEqual(['3', '4', '5']);
    expect(run(s, 'list axpy')).toContain('__device__ __noinline__ float axpy(float a, float x, float y)');
  });

  test('info cuda kernels and blocks; help for one command', () => {
    expect(run(s, 'info cuda kernels')).toMatch(/running.*\(2,1,1\)\s+\(128,1,1\)\s+saxpy/);
    const blocks = run(s, 'info cuda blocks').split('\n');
    expect(blocks.slice(1).map((l) => l.replace(/\s+/g, ' ').trim())).toEqual(['* (0,0,0) running 4/0/0', '(1,0,0) running 4/0/0']);
    expect(run(s, 'help finish')).toMatch(/^finish: run until the current function returns/);
  });

  test('an empty line repeats the last stepping command at an interactive prompt only', () => {
    run(s, 'next'); // line 5
    expect(s.where().line).toBe(5);
    consoleOf(engineOf(s)).execute('', { repeatOnEmpty: true }); // line 6
    expect(s.where().line).toBe(6);
    consoleOf(engineOf(s)).execute('');
    expect(s.where().line).toBe(6);
  });
});

test('a breakpoint on a line without code moves to the next line with code', () => {
  const s = open('saxpy');
  // line 8 is blank between axpy and the kernel; the kernel's first line with code is 9
  expect(run(s, 'break 8')).toMatch(/^Breakpoint 1 at saxpy pc \d+: file kernel\.cu, line 9\.$/);
});

test('until leaves a loop: from its last line to the first line after it, where next goes round', () => {
  const s = open('sync_warp_reduce');
  run(s, 'break 14 if threadIdx.x == 0'); // the loop body's last line, the second __syncwarp()
  run(s, 'continue');
  expect(s.where().line).toBe(14);
  // as in gdb, the breakpoint on the loop's line 14 stops `until` in the next iteration (off = 8)
  expect(run(s, 'until')).toMatch(/^Breakpoint 1, /);
  expect(run(s, 'print off')).toMatch(/= 8$/);
  run(s, 'delete');
  run(s, 'until');
  expect(s.where().line).toBe(16); // if (t == 0) out[blockIdx.x] = v;
  const t = open('sync_warp_reduce');
  run(t, 'break 14 if threadIdx.x == 0');
  run(t, 'continue');
  run(t, 'next');
  expect(t.where().line).toBe(10); // next goes back round to the loop header
});

test('ptype spells out structs (bit fields, arrays) and x/s reads a C string', () => {
  const s = open('vars_structs');
  run(s, 'break 64');
  run(s, 'continue');
  expect(run(s, 'ptype origin')).toBe('type = struct Vec2 {\n    float x;\n    float y;\n}');
  const p = run(s, 'ptype p');
  expect(p).toContain('    u32 flags : 3;\n    u32 level : 5;\n    short hist[4];\n}');
  // thread 0: label[k] = 'a' + k for k < 7, label[7] = 0
  expect(run(s, 'x/s label')).toMatch(/^local 0x[0-9a-f]+:\t"abcdefg"$/);
});

test('a stop at __trap() lands in the user frame at the call site, with its registers', () => {
  const s = open('bug_trap');
  const out = run(s, 'continue');
  expect(out).toContain('trap instruction executed');
  // thread 45 has the bad index; the kernel calls __trap() on line 8
  expect(s.where().thread).toEqual([45, 0, 0]);
  expect(s.where().line).toBe(8);
  expect(s.selectedFrame).toBe(1);
  expect(run(s, 'info registers')).toMatch(/%r\d+\s+0x2d\s+45/); // i = 45 is in a register
  run(s, 'down');
  expect(s.where().function).toBe('__trap');
});

test('frame N and up move where the session says it is (header, Source and PTX panes)', () => {
  const s = open('saxpy');
  run(s, 'break axpy');
  run(s, 'continue');
  expect(s.where().line).toBe(4);
  run(s, 'up');
  expect(s.where().function).toBe('_Z5saxpyifPKfPf');
  expect(s.where().line).toBe(15); // y[i] = axpy(a, xi, yi);
  run(s, 'frame 0');
  expect(s.where().line).toBe(4);
});

test('a warp waiting at __syncthreads() is shown at the barrier\'s line, not the next one', () => {
  // origin_flow, round-robin: warp 0 runs to the barrier (line 17) and waits while warp 1 reaches line 16
  const s = open('origin_flow');
  run(s, 'break 16 if threadIdx.x == 32');
  run(s, 'continue');
  run(s, 'cuda thread (0,0,0)');
  expect(s.where().state).toBe('barrier');
  expect(s.where().line).toBe(17);
  expect(s.warps().find((w) => w.warp === 0)!.line).toBe(17);
});
