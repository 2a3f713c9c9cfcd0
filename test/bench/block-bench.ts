/**
 * Block compiler on vs off (issue #29): each kernel of ../shared/perf (-O3), recording off and on,
 * the four variants interleaved in one process round after round (so load drift hits all alike),
 * CPU time of the launch (process.cpuUsage), medians. Prints M thread-instructions/s and the
 * on/off ratios, with the load average. `node dist/test/bench/block-bench.js [ROUNDS] [kernels...]`.
 * Printed, never asserted.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { readLaunchFile } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { Trace } from '../../src/trace/trace.js';

const PERF = join(process.cwd(), '..', 'shared', 'perf');
const rounds = Number(process.argv[2] ?? 5);
const names = process.argv.length > 3 ? process.argv.slice(3) : ['saxpy', 'loop', 'reduce'];

function cpuMs(f: () => void): number {
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]!; };

console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
for (const name of names) {
  const dir = join(PERF, name);
  const program = loadPtx(readFileSync(join(dir, 'kernel.O3.ptx'), 'utf8'), `${name}.ptx`).program!;
  const launch = readLaunchFile(join(dir, 'launch.json'), program);
  const t: Record<string, number[]> = { offPlain: [], offRec: [], onPlain: [], onRec: [] };
  let thr = 0;
  for (let r = 0; r < rounds; r++) {
    for (const blocks of [false, true]) {
      const opts = { ...DEFAULT_RUN_OPTIONS, blocks };
      const tag = blocks ? 'on' : 'off';
      t[`${tag}Plain`]!.push(cpuMs(() => { const m = new Machine(program, launch, opts); m.run(); thr = m.threadInstructions; }));
      t[`${tag}Rec`]!.push(cpuMs(() => { Trace.record(new Machine(program, launch, opts)); }));
    }
  }
  const rate = (k: string): number => thr / 1e3 / median(t[k]!);
  console.log(`${name}: ${(thr / 1e6).toFixed(1)} M thread-instr; M thr-instr/s (CPU, median of ${rounds}): blocks off ${rate('offPlain').toFixed(1)} / rec ${rate('offRec').toFixed(1)}; blocks on ${rate('onPlain').toFixed(1)} / rec ${rate('onRec').toFixed(1)}; on/off ${(rate('onPlain') / rate('offPlain')).toFixed(2)}x plain, ${(rate('onRec') / rate('offRec')).toFixed(2)}x rec; recording overhead off ${(rate('offPlain') / rate('offRec')).toFixed(2)}x, on ${(rate('onPlain') / rate('onRec')).toFixed(2)}x`);
}
console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
