/**
 * `npm run bench`, trace part (issue #4): throughput with recording on and its overhead
 * (recorded / plain run time), trace bytes per warp-step (log + segments + distinct checkpoint
 * pages), and on a ~10-million-warp-step recording the latency of reverse-stepi and of goto to a
 * random step (p50/p99) plus peak memory. Printed, never asserted.
 */
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { Session } from '../../src/engine/session.js';
import { Trace } from '../../src/trace/trace.js';
import { KERNELS } from './kernels.js';
import { bestOffOn, pct, travelLatency } from './measure.js';

function throughput(): void {
  console.log('\nrecording (best of 5): thread-instr/s with the trace on, overhead = recorded time / plain time, bytes per warp-step\n');
  for (const k of KERNELS) {
    const program = loadPtx(k.ptx, `${k.name}.ptx`).program!;
    const kernel = [...program.functions.values()].find((f) => f.isEntry)!.name;
    const launch = { kernel, ...k.launch };
    // plain and recorded runs alternate (best of 5 each)
    const { plain, rec, thr, steps, bytes } = bestOffOn(program, launch, 5);
    console.log(`${k.name.padEnd(62)} ${(thr / rec / 1e3).toFixed(1).padStart(7)} M thread-instr/s  overhead ${(rec / plain).toFixed(2)}x  ${(bytes / steps).toFixed(2)} bytes/warp-step`);
  }
}

function latency(): void {
  const k = KERNELS[0]!;
  const program = loadPtx(k.ptx, `${k.name}.ptx`).program!;
  const kernel = [...program.functions.values()].find((f) => f.isEntry)!.name;
  // scale the ALU kernel's grid to about ten million warp-steps
  const perBlock = 1179968 / k.launch.grid[0];
  const grid = Math.ceil(10_000_000 / perBlock);
  const launch = { kernel, ...k.launch, grid: [grid, 1, 1] as [number, number, number] };
  launch.args = launch.args.map((a) => (a.kind === 'buffer' ? { ...a, count: grid * 256 } : a));
  const before = process.memoryUsage().rss;
  let peak = before;
  const m = new Machine(program, launch, { ...DEFAULT_RUN_OPTIONS, maxSteps: 50_000_000 });
  m.prime();
  const t = Trace.record(m);
  peak = Math.max(peak, process.memoryUsage().rss);
  const b = t.bytes();
  const s = new Session(`${k.name}.ptx`, k.ptx, program, launch, m.opts, t);
  console.log(`\n${t.total} warp-steps recorded in ${(t.wallMs / 1000).toFixed(1)} s; trace ${((b.log + b.checkpoints) / 1e6).toFixed(1)} MB (${((b.log + b.checkpoints) / t.total).toFixed(2)} bytes/warp-step, ${t.checkpoints.length} checkpoints)`);
  const { gotoMs, revMs } = travelLatency(s, grid, 256, 12345, () => { peak = Math.max(peak, process.memoryUsage().rss); });
  console.log(`goto random step:  p50 ${pct(gotoMs, 50).toFixed(1)} ms  p99 ${pct(gotoMs, 99).toFixed(1)} ms  (200 samples; target p99 <= 50 ms)`);
  console.log(`reverse-stepi:     p50 ${pct(revMs, 50).toFixed(1)} ms  p99 ${pct(revMs, 99).toFixed(1)} ms  (200 samples; a new focus builds its thread timeline first, not timed)`);
  const bytes = b.log + b.checkpoints;
  console.log(`peak memory (RSS, sampled): ${(peak / 1e6).toFixed(0)} MB (target <= 1500 MB; ${(before / 1e6).toFixed(0)} MB before recording, after the throughput runs): ${(peak / bytes).toFixed(2)}x the trace's bytes (whole process), ${((peak - before) / bytes).toFixed(2)}x from before recording`);
}

throughput();
latency();
