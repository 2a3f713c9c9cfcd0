/**
 * Global-memory races between CTAs: nothing orders different blocks but atomics and
 * release/acquire (st.release / ld.acquire, fences around relaxed atomics); the shadow state
 * outlives a CTA's residency; heap blocks reused by malloc start clean.
 */
import { between, HEADER, runPtx } from './helpers.js';

/** Thread 0 of every block does out[0] = out[0] + 1 with plain accesses (lines 10 and 11). */
const PLAIN_RMW = `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<10>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x; setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_end;
  .loc 1 10 0
  ld.global.u32 %r2, [%rd1];
  add.u32 %r2, %r2, 1;
  .loc 1 11 0
  st.global.u32 [%rd1], %r2;
$L_end:
  ret;
}`;

test('plain read-modify-writes of one word by different blocks race (RAW and WAW), across blocks', () => {
  const { report } = runPtx(PLAIN_RMW, { grid: 4, block: 32, buffers: [{ name: 'out', count: 4 }] });
  const raw = report.races.find((r) => r.kind === 'RAW');
  const waw = report.races.find((r) => r.kind === 'WAW');
  expect(raw).toBeDefined();
  expect(waw).toBeDefined();
  for (const r of [raw!, waw!]) {
    expect(r.space).toBe('global');
    expect(r.intraWarp).toBe(false);
    expect(r.accesses[0].block[0]).not.toBe(r.accesses[1].block[0]);
    expect(r.accesses[0].step).toBeLessThan(r.accesses[1].step);
    expect(r.buffer).toBe('out[0]');
    expect(r.variable).toBeNull();
    // the address as the program sees it: the global window
    expect(Math.floor(r.address / 2 ** 32)).toBe(0x7f00);
  }
  expect([raw!.accesses[0].line, raw!.accesses[1].line]).toEqual([11, 10]);
  // one block alone does not race with itself (this run also reuses the shadow memory of the
  // run above, which must have been cleaned: stale records of blocks 1-3 would be races here)
  expect(runPtx(PLAIN_RMW, { grid: 1, block: 32, buffers: [{ name: 'out', count: 4 }] }).report.races).toEqual([]);
});

test('races between blocks that are never resident together are still found', () => {
  // blocks 0 and 7 write out[0]; with 4 resident CTAs block 7 starts after block 0 retired
  const ptx = `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>; .reg .b32 %r<10>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_end;
  setp.ne.u32 %p2, %r2, 0; setp.ne.u32 %p1, %r2, 7; and.pred %p1, %p1, %p2;
  @%p1 bra $L_end;
  .loc 1 12 0
  st.global.u32 [%rd1], %r2;
$L_end:
  ret;
}`;
  const { report } = runPtx(ptx, { grid: 8, block: 32, buffers: [{ name: 'out', count: 4 }], opts: { resident: 4 } });
  expect(report.races.length).toBe(1);
  expect(report.races[0]!.kind).toBe('WAW');
  expect(report.races[0]!.accesses.map((a) => a.block[0])).toEqual([0, 7]);
});

test('atomics on global memory from every block never race with each other', () => {
  const ptx = `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<10>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
  .loc 1 5 0
  atom.global.add.u32 %r1, [%rd1], 1;
  .loc 1 6 0
  red.global.max.u32 [%rd1+4], %r1;
  .loc 1 7 0
  atom.global.cas.b32 %r2, [%rd1+8], 0, 1;
  ret;
}`;
  const { report, result } = runPtx(ptx, { grid: 6, block: 64, buffers: [{ name: 'out', count: 4 }] });
  expect(result.ok).toBe(true);
  expect(report.races).toEqual([]);
  expect(report.benign).toEqual([]);
});

/** Block 0 thread 0 stores data then a flag; block 1 thread 0 waits for the flag, then loads data. */
function messagePassing(publish: string, wait: string): string {
  return `${HEADER}
.visible .entry k(.param .u64 buf)
{
  .reg .pred %p<3>; .reg .b32 %r<10>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf]; cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_end;
  setp.ne.u32 %p2, %r2, 0;
  @%p2 bra $L_consumer;
  .loc 1 20 0
  st.global.u32 [%rd1+4], 42;
  .loc 1 21 0
  ${publish}
  bra.uni $L_end;
$L_consumer:
  .loc 1 24 0
  ${wait}
  setp.eq.u32 %p1, %r3, 0;
  @%p1 bra $L_consumer;
  .loc 1 26 0
  ld.global.u32 %r4, [%rd1+4];
$L_end:
  ret;
}`;
}

test('release/acquire on a flag orders a block\'s data before another block\'s reads', () => {
  const l = { grid: 2, block: 32, buffers: [{ name: 'buf', count: 4 }] };
  const ra = runPtx(messagePassing('st.release.gpu.global.u32 [%rd1], 1;', 'ld.acquire.gpu.global.u32 %r3, [%rd1];'), l);
  expect(ra.result.ok).toBe(true);
  expect(ra.report.races).toEqual([]);

  const fenced = runPtx(messagePassing('membar.gl; st.relaxed.gpu.global.u32 [%rd1], 1;', 'ld.relaxed.gpu.global.u32 %r3, [%rd1]; membar.gl;'), l);
  expect(fenced.report.races).toEqual([]);

  // volatile is relaxed with system scope (PTX memory model): the flag accesses themselves are
  // strong and do not race, but without fences nothing orders the data
  const vol = runPtx(messagePassing('st.volatile.global.u32 [%rd1], 1;', 'ld.volatile.global.u32 %r3, [%rd1];'), l);
  expect(between(vol.report.races, 20, 26).length).toBe(1);
  expect(between(vol.report.races, 21, 24).length).toBe(0);
  // the classic idiom: membar.gl before the volatile flag store, after the volatile flag load
  const volFenced = runPtx(messagePassing('membar.gl; st.volatile.global.u32 [%rd1], 1;', 'ld.volatile.global.u32 %r3, [%rd1]; membar.gl;'), l);
  expect(volFenced.report.races).toEqual([]);

  // a fence on one side only is not enough
  const oneSided = runPtx(messagePassing('membar.gl; st.relaxed.gpu.global.u32 [%rd1], 1;', 'ld.relaxed.gpu.global.u32 %r3, [%rd1];'), l);
  expect(between(oneSided.report.races, 20, 26).length).toBe(1);
  expect(between(oneSided.report.races, 21, 24)).toEqual([]); // the flag accesses are strong
});

test('a .cta-scoped atomic is not atomic with respect to other blocks', () => {
  const ptx = (scope: string): string => `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<10>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
  .loc 1 5 0
  atom${scope}.global.add.u32 %r1, [%rd1], 1;
  ret;
}`;
  const l = { grid: 2, block: 32, buffers: [{ name: 'out', count: 1 }] };
  expect(runPtx(ptx(''), l).report.races).toEqual([]);
  const cta = runPtx(ptx('.cta'), l).report;
  expect(cta.races.length).toBe(1);
  expect(cta.races[0]!.accesses.map((a) => a.op)).toEqual(['atomic', 'atomic']);
  expect(cta.races[0]!.accesses[0].block[0]).not.toBe(cta.races[0]!.accesses[1].block[0]);
});

test('memory reused by malloc after free starts with a clean history', () => {
  // every thread: p = malloc(16); *p = global thread id; free(p); blocks reuse each other's blocks
  const ptx = `${HEADER}
.extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);
.extern .func free (.param .b64 free_param_0);
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<10>; .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mad.lo.u32 %r1, %r2, 32, %r1;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], 16;
  .param .b64 retval0;
  call.uni (retval0), malloc, (param0);
  ld.param.b64 %rd2, [retval0+0];
  }
  .loc 1 7 0
  st.u32 [%rd2], %r1;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd2;
  call.uni free, (param0);
  }
  ret;
}`;
  const { report, machine, result } = runPtx(ptx, { grid: 8, block: 32, buffers: [{ name: 'out', count: 1 }] });
  expect(result.ok).toBe(true);
  // the heap blocks really were reused across blocks (else this test proves nothing)
  const heapBases = new Set(machine.arena.allocs.filter((a) => a.kind === 'heap').map((a) => a.base));
  expect(heapBases.size).toBeLessThan(8 * 32);
  expect(report.races).toEqual([]);
  expect(report.benign).toEqual([]);
});
