/**
 * A checkpoint's bytes (Checkpoint.bytes, counted as it is taken) are what it does not share with
 * an earlier checkpoint: summed over a recording they equal the distinct bytes found by walking
 * every checkpoint (memory pages and page sets, barrier arrays and allocator states counted once
 * however many checkpoints share them), with global, shared and local memory written, and CTAs
 * reused from the pool.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ArenaState } from '../../src/exec/memory.js';
import { readLaunchFile } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { type Checkpoint, checkpointBytes } from '../../src/trace/checkpoint.js';
import { isZeroPage, type Pages } from '../../src/trace/pages.js';
import { Trace } from '../../src/trace/trace.js';
import { ROOT } from '../helpers.js';

/** Distinct bytes of `cps`, by walking them (256: the estimate for a checkpoint's own objects). */
function walk(cps: readonly Checkpoint[]): number {
  const pages = new Set<Uint8Array>(), sets = new Set<Pages>(), bars = new Set<Int32Array>(), arenas = new Set<ArenaState>();
  let n = 0;
  for (const c of cps) {
    n += 256 + c.ctas.nums.byteLength + c.ctas.bytes.byteLength + c.ctas.refs.length * 8 + c.dirtyGlobal.byteLength;
    for (const s of [c.global, ...c.ctas.refs.filter((x): x is Pages => Array.isArray(x))]) {
      if (sets.has(s)) continue;
      sets.add(s);
      n += s.length * 8;
      for (const p of s) if (!isZeroPage(p) && !pages.has(p)) { pages.add(p); n += p.byteLength; }
    }
    for (const x of c.ctas.refs) if (x instanceof Int32Array && !bars.has(x)) { bars.add(x); n += x.byteLength + 64; }
    if (!arenas.has(c.arena)) { arenas.add(c.arena); n += c.arena.granules.byteLength + c.arena.allocs.length * 64; }
  }
  return n;
}

test.each(['dyn_shared_mixed', 'local_mem_calls', 'barriers_named', 'fence_last_block'])('%s: checkpoint bytes are the distinct bytes', (name) => {
  const dir = join(ROOT, 'samples', name);
  const ptxPath = join(dir, 'kernel.G.ptx');
  const program = loadPtx(readFileSync(ptxPath, 'utf8'), ptxPath).program!;
  const launch = readLaunchFile(join(dir, 'launch.json'), program);
  for (const resident of [1, 4]) {
    const t = Trace.record(new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, resident }), { interval: 64 });
    expect(t.checkpoints.length).toBeGreaterThan(2);
    expect(checkpointBytes(t.checkpoints)).toBe(walk(t.checkpoints));
  }
});
