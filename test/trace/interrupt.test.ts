/** Recording with progress reports, stopped early (Ctrl-C): the part recorded is a valid trace. */
import { parseLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { stateHash } from '../../src/trace/hash.js';
import { type RecordProgress, Trace } from '../../src/trace/trace.js';
import { loadPtx } from '../../src/ptx/index.js';

// every thread adds 1 to its own out[t] forever: a launch that never ends by itself
const PTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry forever(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
$L_top:
  ld.global.u32 %r2, [%rd3];
  add.u32 %r2, %r2, 1;
  st.global.u32 [%rd3], %r2;
  bra.uni $L_top;
}`;
const program = loadPtx(PTX, 'forever.ptx').program!;
const launch = () => parseLaunch({ kernel: 'forever', grid: [2, 1, 1], block: [64, 1, 1], args: [{ name: 'out', type: 'u32', count: 128 }] }, program, '.', 'L');
const opts = { ...DEFAULT_RUN_OPTIONS, maxSteps: 10_000_000 };

test('an aborted recording ends at a boundary, reports progress, and replays like a plain run', async () => {
  const ctl = new AbortController();
  const seen: RecordProgress[] = [];
  const interval = 1024;
  const t = await Trace.recordAsync(new Machine(program, launch(), opts), {
    interval, progressEveryMs: 0,
    onProgress: (p) => { seen.push(p); if (p.steps >= 5 * interval) ctl.abort(); },
    signal: ctl.signal,
  });
  expect(t.interrupted).toBe(true);
  expect(t.fault).toBeUndefined();
  // stopped at the first boundary at or after 5 intervals, long before the step limit
  expect(t.total).toBe(5 * interval);
  expect(seen.map((p) => p.steps)).toEqual([1, 2, 3, 4, 5].map((k) => k * interval));
  expect(seen.every((p, i) => i === 0 || p.bytes >= seen[i - 1]!.bytes)).toBe(true);
  // any position of the partial recording is the state a plain run reaches after as many steps
  const fresh = (p: number) => { const m = new Machine(program, launch(), opts); m.prime(); m.advance(p); return stateHash(m); };
  t.goto(1234);
  expect(stateHash(t.machine)).toBe(fresh(1234));
  t.goto(t.total);
  expect(stateHash(t.machine)).toBe(fresh(t.total));
});

test('recordAsync without a signal records the same trace as record', async () => {
  const small = { ...DEFAULT_RUN_OPTIONS, maxSteps: 3000 };
  const a = Trace.record(new Machine(program, launch(), small), { interval: 512 });
  const b = await Trace.recordAsync(new Machine(program, launch(), small), { interval: 512, progressEveryMs: 0 });
  expect(b.interrupted).toBe(false);
  expect(b.total).toBe(a.total);
  expect(b.fault?.kind).toBe('step-limit');
  expect(Buffer.compare(Buffer.from(a.log.chunk(0).buffer), Buffer.from(b.log.chunk(0).buffer))).toBe(0);
});
