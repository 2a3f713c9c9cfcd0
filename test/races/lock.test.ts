/**
 * The lock idiom under independent thread scheduling: lanes of one warp (and other warps) take a
 * global lock with a relaxed atom.cas, update a plain counter, and release it with a fence and
 * atom.exch. The release publishes the holder's accesses; the next successful CAS acquires them,
 * so the critical sections are ordered: no race. Without the fence the exch releases nothing and
 * the plain counter accesses race (also between lanes of one warp).
 */
import { HEADER, runPtx } from './helpers.js';

const lock = (fence: string): string => `${HEADER}
.visible .entry k(.param .u64 lk, .param .u64 ctr)
{
  .reg .pred %p; .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [lk];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [ctr];
  cvta.to.global.u64 %rd2, %rd2;
$SPIN:
  .loc 1 5 0
  atom.global.cas.b32 %r1, [%rd1], 0, 1;
  setp.ne.u32 %p, %r1, 0;
  @%p bra $SPIN;
  .loc 1 7 0
  ld.global.u32 %r2, [%rd2];
  add.u32 %r2, %r2, 1;
  .loc 1 8 0
  st.global.u32 [%rd2], %r2;
${fence}
  .loc 1 10 0
  atom.global.exch.b32 %r3, [%rd1], 0;
  ret;
}`;

test('a fenced lock orders its critical sections: every lane and warp counted, no race', () => {
  const { report, result, machine } = runPtx(lock('  membar.gl;'), { block: 64, buffers: [{ name: 'lk', count: 1 }, { name: 'ctr', count: 1 }] });
  expect(result.ok).toBe(true);
  expect(report.races).toEqual([]);
  const b = machine.buffers[1]!.alloc.base;
  expect(new Uint32Array(machine.arena.bank.u8.slice(b, b + 4).buffer)[0]).toBe(64);
});

test('without the fence before the release the counter accesses race (intra-warp too)', () => {
  const { report, result } = runPtx(lock(''), { block: 64, buffers: [{ name: 'lk', count: 1 }, { name: 'ctr', count: 1 }] });
  expect(result.ok).toBe(true);
  expect(report.races.length).toBeGreaterThan(0);
  expect(report.races.some((r) => r.intraWarp)).toBe(true);
  for (const r of report.races) expect([r.accesses[0].line, r.accesses[1].line].every((l) => l === 7 || l === 8)).toBe(true);
});
