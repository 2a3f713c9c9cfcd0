/**
 * Navigation commands of the engine on kernels with calls (saxpy's __device__ axpy), divergence
 * and loops (divergence_stress), and barriers (barriers_named). Expected lines come from the
 * kernels' sources and inputs, not from the engine.
 */
import { engineOf } from '../../src/engine/api.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSession, type Session } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

function open(name: string, extra: Record<string, unknown> = {}): Session {
  const dir = join(ROOT, 'samples', name);
  return openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json'), interval: 256, ...extra });
}

/** A binary input file as typed elements (copied: Node may pool small file buffers). */
function readI32(rel: string): Int32Array {
  const b = readFileSync(join(ROOT, rel));
  return new Int32Array(new Uint8Array(b).buffer);
}
function readF32(rel: string): Float32Array {
  const b = readFileSync(join(ROOT, rel));
  return new Float32Array(new Uint8Array(b).buffer);
}

const run = (s: Session, cmd: string): string => {
  const r = consoleOf(engineOf(s)).execute(cmd);
  if (r.error) throw new Error(`${cmd}: ${r.output}`);
  return r.output;
};

describe('saxpy (a __device__ call per thread)', () => {
  // A fresh session per test: no test depends on where another left the position or breakpoints.
  let s: Session;
  beforeEach(() => { s = open('saxpy'); });

  test('starts at step 0 with thread (0,0,0) at the kernel\'s first line', () => {
    const w = s.where();
    expect(w.at).toEqual({ launch: 0, step: 0 });
    expect(w.thread).toEqual([0, 0, 0]);
    expect(w.state).toBe('active');
    expect(w.line).toBe(9);
  });

  test('next walks the kernel\'s lines; reverse-next walks them back to the same steps', () => {
    run(s, 'delete');
    run(s, 'goto 0');
    run(s, 'break kernel.cu:11');
    run(s, 'continue');
    const lines: number[] = [s.where().line];
    const steps: number[] = [s.position()];
    for (let i = 0; i < 4; i++) { run(s, 'next'); lines.push(s.where().line); steps.push(s.position()); }
    expect(lines).toEqual([11, 12, 13, 14, 15]);
    for (let i = 3; i >= 0; i--) {
      run(s, 'reverse-next');
      expect([s.where().line, s.position()]).toEqual([lines[i], steps[i]]);
    }
    run(s, 'delete');
  });

  test('step enters axpy after its prologue; finish returns to line 15; reverse-finish goes back to the call', () => {
    run(s, 'delete');
    run(s, 'goto 0');
    run(s, 'break kernel.cu:15');
    run(s, 'continue');
    const callLine = s.where();
    expect(callLine.line).toBe(15);
    run(s, 'step');
    let w = s.where();
    expect(w.function).toBe('_Z4axpyfff');
    expect(w.line).toBe(4);
    expect(w.frames.map((f) => f.function)).toEqual(['_Z4axpyfff', '_Z5saxpyifPKfPf']);
    expect(run(s, 'print a')).toBe('$1 = 2.5');
    run(s, 'finish');
    w = s.where();
    expect(w.function).toBe('_Z5saxpyifPKfPf');
    expect(w.line).toBe(15);
    expect(w.frames).toHaveLength(1);
    // back into the callee (its last line), then out to the call site
    run(s, 'reverse-step');
    expect(s.where().function).toBe('_Z4axpyfff');
    expect(s.where().line).toBe(6);
    run(s, 'reverse-finish');
    w = s.where();
    // back at the call instruction itself, before it executed
    expect(w.function).toBe('_Z5saxpyifPKfPf');
    expect(w.ptx).toMatch(/^call/);
    expect(s.position()).toBeGreaterThanOrEqual(callLine.at.step);
    run(s, 'delete');
  });

  test('reverse-continue stops at the previous breakpoint hit', () => {
    run(s, 'delete');
    run(s, 'goto 0');
    run(s, 'break kernel.cu:14');
    const first = run(s, 'continue');
    const a = s.position();
    expect(first).toMatch(/Breakpoint \d+, block \(0,0,0\) thread \(0,0,0\)/);
    run(s, 'continue');
    const b = s.position();
    expect(b).toBeGreaterThan(a);
    // another warp hit it: focus followed the hit
    expect(s.where().thread[0] % 32).toBe(0);
    expect(s.where().thread[0]).not.toBe(0);
    run(s, 'next');
    run(s, 'reverse-continue');
    expect(s.position()).toBe(b);
    run(s, 'reverse-continue');
    expect(s.position()).toBe(a);
    expect(s.where().thread).toEqual([0, 0, 0]);
    expect(run(s, 'reverse-continue')).toMatch(/start of the recording/);
    run(s, 'delete');
  });

  test('a reverse watchpoint lands on the step that wrote the value', () => {
    run(s, 'delete');
    run(s, 'goto 0');
    run(s, 'watch y[5]');
    run(s, 'goto end');
    const out = run(s, 'reverse-continue');
    expect(out).toMatch(/Hardware watchpoint \d+: y\[5\]/);
    const at = s.position();
    const w = s.where();
    // the writer: thread 5 at the store of line 15, about to execute it
    expect(w.thread).toEqual([5, 0, 0]);
    expect(w.line).toBe(15);
    expect(w.ptx).toMatch(/^st\./);
    const x = readF32('samples/saxpy/in/x.bin')[5]!;
    const y0 = readF32('samples/saxpy/in/y.bin')[5]!;
    const before = run(s, 'print y[5]');
    run(s, `goto ${at + 1}`);
    const after = run(s, 'print y[5]');
    expect(Number(before.split('= ')[1])).toBeCloseTo(y0, 4);
    expect(Number(after.split('= ')[1])).toBeCloseTo(Math.fround(Math.fround(2.5 * x) + y0), 4);
    // forward: from the start, continue stops right after the same write
    run(s, 'goto 0');
    run(s, 'continue');
    expect(s.position()).toBe(at + 1);
    // history lists that single write
    expect(run(s, 'history y[5]')).toMatch(/thread \(5,0,0\) at kernel\.cu:15 \(step \d+\)/);
    run(s, 'delete');
  });

  test('a read watch on a raw global range finds the load of y[5] going backward', () => {
    run(s, 'delete');
    run(s, 'goto 0');
    const addr = /global (0x[0-9a-f]+)/.exec(run(s, 'watch y[5]'))![1]!;
    run(s, 'delete');
    run(s, `rwatch @global ${addr} 4`);
    run(s, 'goto end');
    const out = run(s, 'reverse-continue');
    expect(out).toMatch(/Hardware read watchpoint \d+: @global/);
    expect(s.where().thread).toEqual([5, 0, 0]);
    expect(s.where().line).toBe(14);
    expect(s.where().ptx).toMatch(/^ld\./);
    run(s, 'delete');
  });

  test('stepping past the last line says the thread exited', () => {
    run(s, 'goto 0');
    run(s, 'cuda block (1,0,0) thread (3,0,0)');
    let out = '';
    for (let i = 0; i < 20 && !/exited/.test(out); i++) out = run(s, 'next');
    expect(out).toMatch(/Thread \(3,0,0\) of block \(1,0,0\) has exited/);
    expect(s.where().state).toBe('exited');
  });
});

describe('divergence_stress (divergent paths, loops, early returns)', () => {
  // A fresh session per test: no test depends on where another left the position or breakpoints.
  let s: Session;
  beforeEach(() => { s = open('divergence_stress'); });
  const input = readI32('samples/divergence_stress/in/in.bin');

  /** Lines the focused thread visits with `next` from line 22 to its exit. */
  function linesAfter22(thread: number): number[] {
    run(s, 'delete');
    run(s, 'goto 0');
    run(s, `break kernel.cu:22 if threadIdx.x == ${thread} && blockIdx.x == 0`);
    run(s, 'continue');
    expect(s.where().thread).toEqual([thread, 0, 0]);
    const lines: number[] = [22];
    for (let i = 0; i < 40; i++) {
      const out = run(s, 'next');
      if (/exited/.test(out)) break;
      lines.push(s.where().line);
    }
    return lines;
  }

  test('a thread with bits 0x100 and 0x200 takes the early return of lines 24-26', () => {
    expect(input[1]! & 0x300).toBe(0x300);
    const lines = linesAfter22(1);
    expect(lines.slice(0, 5)).toEqual([22, 23, 24, 25, 26]);
    expect(lines).not.toContain(35);
  });

  test('a thread without 0x100 skips to the switch, and its lanes wait while others run the branch', () => {
    expect(input[0]! & 0x100).toBe(0);
    const lines = linesAfter22(0);
    expect(lines).not.toContain(24);
    expect(lines.slice(0, 3)).toEqual([22, 34, 35]);
    // stop thread 0 on its path (line 34), then look at thread 1, which takes the other path
    run(s, 'delete');
    run(s, 'goto 0');
    run(s, 'break kernel.cu:34 if threadIdx.x == 0 && blockIdx.x == 0');
    run(s, 'continue');
    expect(s.where().line).toBe(34);
    run(s, 'cuda thread (1,0,0)');
    const w1 = s.where();
    expect(w1.state).toBe('inactive');
    // next takes thread 1 to where it next executes: its own branch, never line 34
    run(s, 'next');
    expect([23, 24]).toContain(s.where().line);
    expect(s.where().state).toBe('active');
  });

  test('stepi and reverse-stepi move by one instruction of the focused thread', () => {
    run(s, 'goto 0');
    run(s, 'cuda block (0,0,0) thread (7,0,0)');
    const p0 = s.position();
    run(s, 'stepi');
    const p1 = s.position();
    run(s, 'stepi');
    expect(s.position()).toBeGreaterThan(p1);
    run(s, 'reverse-stepi');
    expect(s.position()).toBe(p1);
    run(s, 'reverse-stepi');
    expect(s.position()).toBe(p0);
  });
});

describe('barriers_named (bar.sync between warps)', () => {
  // A fresh session per test: no test depends on where another left the position or breakpoints.
  let s: Session;
  beforeEach(() => { s = open('barriers_named'); });
  test('next steps over __syncthreads lines and reverse-next comes back', () => {
    const src = readFileSync(join(ROOT, 'samples/barriers_named/kernel.cu'), 'utf8').split('\n');
    const syncLine = src.findIndex((l) => l.includes('__syncthreads_count(')) + 1;
    expect(syncLine).toBeGreaterThan(0);
    run(s, `break kernel.cu:${syncLine}`);
    run(s, 'continue');
    expect(s.where().line).toBe(syncLine);
    const before = s.position();
    run(s, 'next');
    expect(s.where().line).not.toBe(syncLine);
    expect(s.position()).toBeGreaterThan(before);
    run(s, 'reverse-next');
    expect(s.position()).toBe(before);
  });
});

describe('trace-file errors', () => {
  test('goto outside the recording is an error message, not a crash', () => {
    const s = open('saxpy');
    const r = consoleOf(engineOf(s)).execute(`goto ${s.total + 5}`);
    expect(r.error).toBe(true);
    expect(r.output).toMatch(/outside the recording/);
  });
});

describe('race_shared_waw (many lanes of one warp store to the same shared word)', () => {
  test('a write watch names the lane whose value stays: the highest lane of the warp with that key', () => {
    const s = open('race_shared_waw');
    const keys = readI32('samples/race_shared_waw/in/keys.bin');
    run(s, 'break 8');
    run(s, 'run');
    run(s, 'delete');
    run(s, 'watch bucket[7]');
    const out = run(s, 'continue');
    const writer = s.where().thread[0];
    // the warp that wrote first: lanes in order, the last one with key 7 wins
    const warp = Math.floor(writer / 32);
    const lanes = [...Array(32).keys()].map((l) => warp * 32 + l).filter((t) => (keys[t]! & 15) === 7);
    expect(lanes.length).toBeGreaterThan(1);
    expect(writer).toBe(lanes[lanes.length - 1]);
    expect(out).toMatch(new RegExp(`Old value = -1\\nNew value = ${writer}\\n`));
  });
});
