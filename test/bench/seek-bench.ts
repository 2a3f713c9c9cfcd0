/**
 * `npm run bench`, the 10^8-warp-step part of issue #14's scale target: the ALU bench kernel's
 * grid scaled to about 10^8 warp-steps, recorded with a 64 MiB step-log budget (the rest of the
 * log spills to a file, as a trace larger than memory does), then `goto` a random step and
 * `reverse-stepi` of a random thread, p50/p99 over 200 samples each (target: seek p99 <= 50 ms).
 * Printed, never asserted.
 */
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { entryNames } from '../../src/ptx/resolve.js';
import { Session } from '../../src/engine/session.js';
import { DEFAULT_INTERVAL, Trace } from '../../src/trace/trace.js';
import { KERNELS } from './kernels.js';
import { pct, travelLatency } from './measure.js';

const STEPS = 100_000_000;

function main(): void {
  const k = KERNELS[0]!;
  const program = loadPtx(k.ptx, `${k.name}.ptx`).program!;
  const kernel = entryNames(program)[0]!;
  // the ALU kernel's launch is 1179968 warp-steps (trace-bench); its blocks are alike
  const perBlock = 1179968 / k.launch.grid[0];
  const grid = Math.ceil(STEPS / perBlock);
  const launch = { kernel, ...k.launch, grid: [grid, 1, 1] as [number, number, number] };
  launch.args = launch.args.map((a) => (a.kind === 'buffer' ? { ...a, count: grid * 256 } : a));
  const m = new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, maxSteps: 2 * STEPS });
  const t0 = performance.now();
  const t = Trace.record(m, { interval: DEFAULT_INTERVAL, logBudget: 64 * 2 ** 20 });
  const recordMs = performance.now() - t0;
  const b = t.bytes();
  const s = new Session(`${k.name}.ptx`, k.ptx, program, launch, m.opts, t);
  const { gotoMs, revMs } = travelLatency(s, grid, 256, 987654321);
  const mb = (n: number): string => (n / 1e6).toFixed(0);
  console.log(`\n${(t.total / 1e6).toFixed(1)} M warp-steps (ALU kernel, ${grid} blocks) recorded in ${(recordMs / 1000).toFixed(1)} s; trace ${mb(b.log + b.checkpoints)} MB, ${t.log.spilled} log chunks spilled past a 64 MiB budget (${mb(t.log.residentBytes())} MB of log in memory), ${t.checkpoints.length} checkpoints; peak RSS ${mb(process.resourceUsage().maxRSS * 1024)} MB`);
  console.log(`goto random step:  p50 ${pct(gotoMs, 50).toFixed(1)} ms  p99 ${pct(gotoMs, 99).toFixed(1)} ms  (200 samples; target p99 <= 50 ms at 10^8 warp-steps)`);
  console.log(`reverse-stepi:     p50 ${pct(revMs, 50).toFixed(1)} ms  p99 ${pct(revMs, 99).toFixed(1)} ms  (200 samples; a new focus builds its thread timeline first, not timed)`);
}

main();
