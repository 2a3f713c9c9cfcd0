/** Barrier errors: divergence within a warp, different barriers completing one, deadlock. */
import { HEADER, runPtx } from './helpers.js';

const OUT = { name: 'out', count: 64 };

test('a bar.sync reached by only part of a warp is a divergence error at its line (sm_70+: the barrier counts threads, so it completes)', () => {
  // lanes 0-15 of warp 0 take a branch with bar.sync 0 (line 8); everyone else reaches line 10.
  // Under independent thread scheduling lanes 16-31 go on while lanes 0-15 wait at line 8:
  // 16 + 48 arrivals complete barrier 0; lanes 0-15 then pass line 10 alone once the others
  // have exited (bar.sync waits for non-exited threads), so the run ends without a deadlock.
  const ptx = `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x; setp.ge.u32 %p1, %r1, 16;
  @%p1 bra $L_join;
  .loc 1 8 0
  bar.sync 0;
$L_join:
  .loc 1 10 0
  bar.sync 0;
  ret;
}`;
  const { report, result } = runPtx(ptx, { block: 64, buffers: [OUT] });
  expect(result.ok).toBe(true);
  const div = report.barrierErrors.filter((e) => e.kind === 'divergence');
  const partial = div.find((e) => /reached by only part/.test(e.message))!;
  expect(partial.line).toBe(8);
  expect(partial.block).toEqual([0, 0, 0]);
  expect(partial.file).toBe('t.cu');
  expect(partial.message).toMatch(/0x0000ffff/);
  // and the barrier was completed by threads waiting at two lines
  expect([...new Set(div.map((e) => e.line))].sort((a, b) => a - b)).toEqual([8, 10]);
  expect(report.barrierErrors.filter((e) => e.kind === 'deadlock')).toEqual([]);
  expect(report.fault).toBeNull();
});

test('whole warps waiting at different __syncthreads of one barrier: divergence at both lines', () => {
  // warp 0 waits at line 7, warp 1 at line 9; the machine lets barrier 0 complete
  const ptx = `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x; setp.ge.u32 %p1, %r1, 32;
  @%p1 bra $L_other;
  .loc 1 7 0
  bar.sync 0;
  bra.uni $L_end;
$L_other:
  .loc 1 9 0
  bar.sync 0;
$L_end:
  ret;
}`;
  const { report, result } = runPtx(ptx, { block: 64, buffers: [OUT] });
  expect(result.ok).toBe(true);
  expect(report.barrierErrors.map((e) => [e.kind, e.line]).sort()).toEqual([['divergence', 7], ['divergence', 9]]);
});

test('warps meeting at different named barriers with their own counts are fine; early exits are excused', () => {
  const ptx = `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>; .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x; setp.ge.u32 %p1, %r1, 64; setp.ge.u32 %p2, %r1, 90;
  @%p1 bra $L_second;
  bar.sync 1, 64;
  bra.uni $L_all;
$L_second:
  bar.sync 2, 32;
  @%p2 bra $L_exit;
$L_all:
  bar.sync 0;
  ret;
$L_exit:
  ret;
}`;
  const { report, result } = runPtx(ptx, { block: 96, buffers: [OUT] });
  expect(result.ok).toBe(true);
  expect(report.barrierErrors).toEqual([]);
});

test('a named barrier expecting more threads than ever arrive is reported as a deadlock', () => {
  const ptx = `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .loc 1 5 0
  bar.sync 1, 64;
  ret;
}`;
  const { report } = runPtx(ptx, { block: 32, buffers: [OUT] });
  expect(report.barrierErrors.map((e) => [e.kind, e.line])).toEqual([['deadlock', 5]]);
});
