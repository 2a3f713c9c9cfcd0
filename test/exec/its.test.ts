/**
 * Independent thread scheduling (sm_70+): a per-lane spinlock with every lane of a warp
 * contending completes with no lost update, in both builds and under seeded random schedules
 * (which vary the path-switch quantum too); expected values come from the CUDA source
 * (samples/its_spinlock/gen.py: counter = sum(in), entries = 64, lock released).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLaunchFile } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine, type RunOptions } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { stateHash } from '../../src/trace/hash.js';
import { Trace } from '../../src/trace/trace.js';
import { ROOT } from '../helpers.js';

const CLI = join(ROOT, 'dist', 'src', 'cli.js');
const DIR = join(ROOT, 'samples', 'its_spinlock');

/** Runs the sample and returns the exit status, stderr and the output buffers it wrote. */
function runSpinlock(build: 'G' | 'O3', extra: string[]): { status: number | null; err: string; buf: Map<string, number[]> } {
  const out = mkdtempSync(join(tmpdir(), 'its-'));
  try {
    const r = spawnSync('node', [CLI, 'run', join(DIR, `kernel.${build}.ptx`), '--launch', join(DIR, 'launch.json'), '--out', out, ...extra], { cwd: DIR, encoding: 'utf8' });
    const buf = new Map<string, number[]>();
    if (r.status === 0) {
      for (const name of ['lock', 'counter', 'entries', 'done']) {
        const b = readFileSync(join(out, `${name}.bin`));
        buf.set(name, [...new Int32Array(b.buffer, b.byteOffset, b.byteLength / 4)]);
      }
    }
    return { status: r.status, err: r.stderr ?? '', buf };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const input = Array.from({ length: 64 }, (_, t) => ((13 * t + 5) % 97) - 40);
const sum = input.reduce((a, b) => a + b, 0);

for (const build of ['G', 'O3'] as const) {
  for (const sched of [[], ['--schedule', 'random', '--seed', '3'], ['--schedule', 'random', '--seed', '11']]) {
    test(`spinlock with contending lanes completes (${build}, ${sched.join(' ') || 'rr'})`, () => {
      const r = runSpinlock(build, sched);
      expect(r.err).toBe('');
      expect(r.status).toBe(0);
      expect(r.buf.get('lock')).toEqual([0]);
      expect(r.buf.get('counter')).toEqual([sum]);
      expect(r.buf.get('entries')).toEqual([64]);
      expect(r.buf.get('done')).toEqual(new Array<number>(64).fill(1));
    }, 60_000);
  }
}

// Path switches are scheduler state: a restored checkpoint must replay them exactly.
test('spinlock trace: goto restores the state reached by running forward (random schedule)', () => {
  const ptxPath = join(DIR, 'kernel.O3.ptx');
  const program = loadPtx(readFileSync(ptxPath, 'utf8'), ptxPath).program!;
  const launch = readLaunchFile(join(DIR, 'launch.json'), program);
  const opts: RunOptions = { ...DEFAULT_RUN_OPTIONS, schedule: 'random', seed: 5 };
  const machine = new Machine(program, launch, opts);
  machine.prime();
  const trace = Trace.record(machine, { interval: 4096 });
  const picks = [1, 777, Math.floor(trace.total / 3), Math.floor(trace.total / 2), trace.total - 1, trace.total];
  const ref = new Machine(program, launch, opts);
  ref.prime();
  const expected = new Map<number, string>();
  for (const p of picks) { ref.advance(p); expected.set(p, stateHash(ref)); }
  for (const p of [...picks].reverse()) { trace.goto(p); expect([p, stateHash(machine)]).toEqual([p, expected.get(p)]); }
}, 60_000);
