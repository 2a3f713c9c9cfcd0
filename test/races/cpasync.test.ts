/**
 * cp.async and the race checker: a copy is complete only at the issuing thread's wait_group /
 * wait_all (or cp.async.mbarrier.arrive), so reading its destination before then is a race
 * with the copy, even by the issuing thread, and other threads must be ordered after the wait.
 */
import { between, HEADER, runPtx } from './helpers.js';

/**
 * Thread t copies in[t] into s[t] with cp.async (line 10), then `mid` (lines 11, 12), then reads
 * s[(t + OFF) & 63] (line 13) and writes it to out[t].
 */
function kernel(mid: string, off: number): string {
  return `${HEADER}
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<10>; .reg .b64 %rd<8>;
  .shared .align 16 .b8 s[256];
  .shared .align 16 .b8 s2[256];
  ld.param.u64 %rd1, [in]; cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x; shl.b32 %r2, %r1, 2; mov.u32 %r3, s; add.s32 %r4, %r3, %r2;
  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r8, s2; add.s32 %r9, %r8, %r2;
  .loc 1 10 0
  cp.async.ca.shared.global [%r4], [%rd3], 4;
  ${mid}
  add.s32 %r5, %r1, ${off}; and.b32 %r5, %r5, 63; shl.b32 %r5, %r5, 2; add.s32 %r6, %r3, %r5;
  .loc 1 13 0
  ld.shared.u32 %r7, [%r6];
  ld.param.u64 %rd4, [out]; cvta.to.global.u64 %rd4, %rd4; add.s64 %rd5, %rd4, %rd2;
  .loc 1 14 0
  st.global.u32 [%rd5], %r7;
  ret;
}`;
}

const L = { block: 64, buffers: [{ name: 'in', count: 64, init: Array.from({ length: 64 }, (_, i) => i * 3) }, { name: 'out', count: 64 }] };

test('reading a cp.async destination after a barrier but without a wait is a race with the copy', () => {
  const { report } = runPtx(kernel('.loc 1 11 0\n  bar.sync 0;', 32), L);
  const rs = between(report.races, 10, 13);
  expect(rs.length).toBeGreaterThan(0);
  expect(rs[0]!.kind).toBe('RAW');
  expect(rs[0]!.accesses[0].op).toBe('write');
  expect(rs[0]!.accesses[1].op).toBe('read');
});

test('the issuing thread reading its own destination before the wait races with its copy', () => {
  const { report } = runPtx(kernel('', 0), L);
  const rs = between(report.races, 10, 13);
  expect(rs.length).toBeGreaterThan(0);
  const [a, b] = rs[0]!.accesses;
  expect(a.thread).toEqual(b.thread);
});

test('wait_all then __syncthreads orders the copy before every thread\'s read', () => {
  const { report } = runPtx(kernel('.loc 1 11 0\n  cp.async.wait_all;\n  .loc 1 12 0\n  bar.sync 0;', 32), L);
  expect(report.races).toEqual([]);
  const own = runPtx(kernel('.loc 1 11 0\n  cp.async.commit_group;\n  cp.async.wait_group 0;', 0), L);
  expect(own.report.races).toEqual([]);
});

test('a wait after the barrier does not order the copy for other threads', () => {
  const { report } = runPtx(kernel('.loc 1 11 0\n  bar.sync 0;\n  .loc 1 12 0\n  cp.async.wait_all;', 32), L);
  expect(between(report.races, 10, 13).length).toBeGreaterThan(0);
});

test('wait_group N completes all but the N newest groups', () => {
  // group 0 fills s (line 10); group 1 fills s2 (line 11); wait_group 1 completes only group 0
  const mid = `.loc 1 11 0
  cp.async.commit_group;
  cp.async.ca.shared.global [%r9], [%rd3], 4;
  cp.async.commit_group;
  cp.async.wait_group 1;
  .loc 1 12 0
  bar.sync 0;
  .loc 1 15 0
  ld.shared.u32 %r7, [%r9+4];`;
  const { report } = runPtx(kernel(mid, 1), L);
  expect(between(report.races, 10, 13)).toEqual([]);
  expect(between(report.races, 11, 15).length).toBeGreaterThan(0);
});

test('cp.async.mbarrier.arrive counts the thread\'s copies complete', () => {
  const mid = `.loc 1 11 0
  cp.async.mbarrier.arrive.noinc.shared.b64 [bar];
  bar.sync 0;`;
  const ptx = kernel(mid, 32).replace('.shared .align 16 .b8 s2[256];', '.shared .align 16 .b8 s2[256];\n  .shared .align 8 .b64 bar;')
    .replace('  .loc 1 10 0', '  setp.eq.u32 %p1, %r1, 0;\n  @%p1 mbarrier.init.shared.b64 [bar], 64;\n  bar.sync 0;\n  .loc 1 10 0')
    .replace('.reg .b32 %r<10>;', '.reg .b32 %r<10>; .reg .pred %p<2>;');
  const { report } = runPtx(ptx, L);
  expect(between(report.races, 10, 13)).toEqual([]);
});
