/**
 * Frozen checkpoints (src/trace/frozen.ts): every checkpoint but the newest keeps its CTAs, warps
 * and frames in one buffer. Thawing one must give back exactly the objects the snapshot took
 * (compared field by field with the newest checkpoint, which is not frozen), and restoring a frozen
 * checkpoint must put the machine in the same state as running there from the start.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLaunchFile } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { frozen, residentIds, restore } from '../../src/trace/checkpoint.js';
import { thaw } from '../../src/trace/frozen.js';
import { stateHash } from '../../src/trace/hash.js';
import { Trace } from '../../src/trace/trace.js';
import { ROOT } from '../helpers.js';

// calls and local memory (frame pools), barriers, divergence (SIMT stacks)
const CASES = ['local_mem_calls', 'barriers_named', 'divergence_stress'];

describe.each(CASES)('frozen checkpoints of %s', (name) => {
  const dir = join(ROOT, 'samples', name);
  const ptxPath = join(dir, 'kernel.G.ptx');
  const program = loadPtx(readFileSync(ptxPath, 'utf8'), ptxPath).program!;
  const launch = readLaunchFile(join(dir, 'launch.json'), program);
  const opts = { ...DEFAULT_RUN_OPTIONS, resident: 2 };

  test('all but the newest are frozen, and a thawed one equals the objects it was made from', () => {
    const t = Trace.record(new Machine(program, launch, opts), { interval: 64 });
    expect(t.checkpoints.length).toBeGreaterThan(2);
    t.checkpoints.forEach((c, i) => expect('resident' in c.ctas).toBe(i === t.checkpoints.length - 1));
    const live = t.checkpoints[t.checkpoints.length - 1]!;
    if (!('resident' in live.ctas)) throw new Error('the newest checkpoint is frozen');
    const again = frozen(live);
    if ('resident' in again.ctas) throw new Error('frozen() kept the objects');
    expect(thaw(again.ctas)).toEqual(live.ctas);
    expect(residentIds(again)).toEqual(live.ctas.resident.map((c) => c.id));
  });

  test('restoring a frozen checkpoint gives the state of a run stopped at its step', () => {
    const t = Trace.record(new Machine(program, launch, opts), { interval: 64 });
    for (const c of t.checkpoints.slice(0, -1)) {
      const fresh = new Machine(program, launch, opts);
      fresh.prime();
      fresh.advance(c.step);
      restore(t.machine, c, t.stdout);
      expect(stateHash(t.machine)).toBe(stateHash(fresh));
    }
  });
});
