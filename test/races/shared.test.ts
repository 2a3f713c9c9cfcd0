/**
 * Shared-memory races: what orders accesses within a CTA (bar.sync with ids and counts,
 * bar.arrive, bar.warp.sync) and what does not, hazard kinds, intra-warp marking, byte
 * granularity and benign same-value writes.
 */
import { between, HEADER, lines, runPtx } from './helpers.js';

/** s[t] = t (line 10), SYNC, v = s[(t + OFF) & 127] (line 12), out[t] = v (line 13). */
function neighbour(sync: string, off: number, mask = 127): string {
  return `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<10>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 buf[512];
  mov.u32 %r1, %tid.x; shl.b32 %r2, %r1, 2; mov.u32 %r3, buf; add.s32 %r4, %r3, %r2;
  .loc 1 10 0
  st.shared.u32 [%r4], %r1;
  .loc 1 11 0
  ${sync}
  add.s32 %r5, %r1, ${off}; and.b32 %r5, %r5, ${mask}; shl.b32 %r5, %r5, 2; add.s32 %r6, %r3, %r5;
  .loc 1 12 0
  ld.shared.u32 %r7, [%r6];
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1; mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
  .loc 1 13 0
  st.global.u32 [%rd3], %r7;
  ret;
}`;
}

const OUT = { name: 'out', count: 128 };

test('a missing __syncthreads between a store and another warp\'s load is a shared race naming both accesses', () => {
  const { report } = runPtx(neighbour('', 32), { block: 128, buffers: [OUT] });
  const rs = between(report.races, 10, 12);
  expect(rs.length).toBeGreaterThan(0);
  for (const r of rs) {
    expect(r.space).toBe('shared');
    expect(r.intraWarp).toBe(false);
    const [a, b] = r.accesses;
    expect(a.step).toBeLessThanOrEqual(b.step);
    const writer = a.op === 'write' ? a : b;
    const reader = a.op === 'write' ? b : a;
    expect(writer.op).toBe('write');
    expect(reader.op).toBe('read');
    expect(r.kind).toBe(a === writer ? 'RAW' : 'WAR');
    // the reader of s[(t+32)&127] conflicts with the thread that stored it, at that word
    expect(writer.thread[0]).toBe((reader.thread[0] + 32) % 128);
    expect(r.address).toBe(4 * writer.thread[0]);
    expect(writer.file).toBe('t.cu');
    expect(r.symbol).toBe('buf');
    expect(r.symbolOffset).toBe(4 * writer.thread[0]);
  }
  // round-robin runs warp 0 first: it reads warp 1's slots before warp 1 stores them (WAR);
  // warp 3 reads warp 0's slots after they were stored (RAW)
  expect(rs.map((r) => r.kind).sort()).toEqual(['RAW', 'WAR']);
  expect(report.benign).toEqual([]);
});

test('bar.sync 0 between the store and the load orders them: no race', () => {
  for (const bar of ['bar.sync 0;', 'barrier.sync 0;', 'bar.sync 0, 128;']) {
    const { report } = runPtx(neighbour(bar, 32), { block: 128, buffers: [OUT] });
    expect(report.races).toEqual([]);
    expect(report.barrierErrors).toEqual([]);
  }
});

test('a barrier orders accesses before it only: a write-after-read across the next phase is caught', () => {
  // phase 1 reads a neighbour after a barrier; phase 2 overwrites its own slot with no barrier
  const ptx = `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<10>;
  .shared .align 4 .b8 buf[256];
  mov.u32 %r1, %tid.x; shl.b32 %r2, %r1, 2; mov.u32 %r3, buf; add.s32 %r4, %r3, %r2;
  add.s32 %r5, %r1, 1; and.b32 %r5, %r5, 63; shl.b32 %r5, %r5, 2; add.s32 %r6, %r3, %r5;
  .loc 1 5 0
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  .loc 1 7 0
  ld.shared.u32 %r7, [%r6];
  .loc 1 8 0
  st.shared.u32 [%r4], %r7;
  ret;
}`;
  const { report } = runPtx(ptx, { block: 64, buffers: [OUT] });
  expect(between(report.races, 5, 7)).toEqual([]); // ordered by the barrier
  const war = between(report.races, 7, 8);
  expect(war.length).toBeGreaterThan(0);
  expect(war.every((r) => r.kind === 'WAR' || r.kind === 'RAW')).toBe(true);
  // lanes of one warp read before any lane writes (lockstep), yet it is reported, as intra-warp
  expect(war.some((r) => r.intraWarp && r.kind === 'WAR')).toBe(true);
  // and across the warp boundary (thread 31 reads thread 32's slot)
  expect(war.some((r) => !r.intraWarp)).toBe(true);
});

test('intra-warp races are reported and marked; bar.warp.sync orders the lanes it names', () => {
  const racy = runPtx(neighbour('', 1, 31), { block: 32, buffers: [OUT] }).report;
  expect(racy.races.length).toBe(1);
  const r = racy.races[0]!;
  expect(r.intraWarp).toBe(true);
  expect(r.kind).toBe('RAW');
  expect(lines(r)).toEqual([10, 12]);
  expect(r.accesses[0].thread[0]).toBe((r.accesses[1].thread[0] + 1) % 32);

  expect(runPtx(neighbour('bar.warp.sync -1;', 1, 31), { block: 32, buffers: [OUT] }).report.races).toEqual([]);

  // only lanes 0-15 synchronise: lane 15 reads lane 16's slot and lane 31 lane 0's, both unordered
  const half = runPtx(neighbour('bar.warp.sync 0x0000ffff;', 1, 31), { block: 32, buffers: [OUT] }).report;
  expect(half.races.length).toBeGreaterThan(0);
  const readers = new Set<number>();
  for (const x of half.races) for (const a of x.accesses) if (a.op === 'read') readers.add(a.thread[0]);
  for (const t of readers) expect(t >= 15).toBe(true);
});

test('named barriers with a thread count order only their participants', () => {
  // warps 0 and 1 meet at bar.sync 1, 64; warp 2 does not. Warp 0 stores, then warps 1 and 2 read.
  const ptx = `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>; .reg .b32 %r<10>;
  .shared .align 4 .b8 buf[512];
  mov.u32 %r1, %tid.x; and.b32 %r2, %r1, 31; shl.b32 %r2, %r2, 2; mov.u32 %r3, buf; add.s32 %r4, %r3, %r2;
  setp.lt.u32 %p1, %r1, 32;
  setp.lt.u32 %p2, %r1, 64;
  .loc 1 20 0
  @%p1 st.shared.u32 [%r4], %r1;
  @!%p2 bra $L_reader;
  .loc 1 21 0
  bar.sync 1, 64;
$L_reader:
  .loc 1 22 0
  @!%p1 ld.shared.u32 %r5, [%r4];
  ret;
}`;
  const { report } = runPtx(ptx, { block: 96, buffers: [OUT] });
  const rs = between(report.races, 20, 22);
  expect(rs.length).toBeGreaterThan(0);
  for (const r of rs) {
    const reader = r.accesses.find((a) => a.op === 'read')!;
    expect(reader.thread[0]).toBeGreaterThanOrEqual(64); // warp 2 only; warp 1 is ordered
  }
  expect(report.barrierErrors).toEqual([]);
});

test('producer bar.arrive + consumer bar.sync order the producer\'s stores before the consumer\'s loads', () => {
  const ptx = (consumerSync: string): string => `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<10>;
  .shared .align 4 .b8 buf[256];
  mov.u32 %r1, %tid.x; and.b32 %r2, %r1, 31; shl.b32 %r2, %r2, 2; mov.u32 %r3, buf; add.s32 %r4, %r3, %r2;
  setp.lt.u32 %p1, %r1, 32;
  @!%p1 bra $L_consumer;
  .loc 1 30 0
  st.shared.u32 [%r4], %r1;
  bar.arrive 1, 64;
  .loc 1 32 0
  st.shared.u32 [%r4+128], %r1;
  ret;
$L_consumer:
  ${consumerSync}
  .loc 1 35 0
  ld.shared.u32 %r5, [%r4];
  .loc 1 36 0
  ld.shared.u32 %r6, [%r4+128];
  ret;
}`;
  const ok = runPtx(ptx('bar.sync 1, 64;'), { block: 64, buffers: [OUT] }).report;
  expect(between(ok.races, 30, 35)).toEqual([]);
  // the store after bar.arrive is not ordered with the consumer's load
  expect(between(ok.races, 32, 36).length).toBeGreaterThan(0);
  const missing = runPtx(ptx(''), { block: 64, buffers: [OUT] }).report;
  expect(between(missing.races, 30, 35).length).toBeGreaterThan(0);
});

test('accesses to different bytes of one word do not conflict; the same byte does', () => {
  const ptx = (shift: string): string => `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<10>;
  .shared .align 4 .b8 buf[64];
  mov.u32 %r1, %tid.x; ${shift} mov.u32 %r3, buf; add.s32 %r4, %r3, %r2;
  .loc 1 40 0
  st.shared.u8 [%r4], %r1;
  ret;
}`;
  expect(runPtx(ptx('mov.u32 %r2, %r1;'), { block: 32, buffers: [OUT] }).report.races).toEqual([]);
  const same = runPtx(ptx('shr.u32 %r2, %r1, 1;'), { block: 32, buffers: [OUT] }).report;
  expect(same.races.length).toBe(1);
  expect(same.races[0]!.kind).toBe('WAW');
  expect(same.races[0]!.intraWarp).toBe(true);
});

test('conflicting writes of the same value are benign and listed apart, never among the races', () => {
  const ptx = (value: string): string => `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<10>;
  .shared .align 4 .b8 flag[4];
  mov.u32 %r1, %tid.x; mov.u32 %r3, flag;
  .loc 1 50 0
  st.shared.u32 [%r3], ${value};
  ret;
}`;
  const same = runPtx(ptx('7'), { block: 64, buffers: [OUT] }).report;
  expect(same.races).toEqual([]);
  expect(same.benign.length).toBeGreaterThan(0);
  expect(same.benign.every((r) => r.kind === 'WAW' && lines(r)[0] === 50 && lines(r)[1] === 50)).toBe(true);
  const differ = runPtx(ptx('%r1'), { block: 64, buffers: [OUT] }).report;
  expect(differ.benign).toEqual([]);
  expect(differ.races.length).toBeGreaterThan(0);
  expect(differ.races.every((r) => r.kind === 'WAW')).toBe(true);
});

test('atomics do not race with each other but do with plain accesses', () => {
  const ptx = (other: string): string => `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<10>;
  .shared .align 4 .b8 cnt[4];
  mov.u32 %r1, %tid.x; mov.u32 %r3, cnt; setp.eq.u32 %p1, %r1, 40;
  .loc 1 60 0
  atom.shared.add.u32 %r4, [%r3], 1;
  .loc 1 61 0
  @%p1 ${other}
  ret;
}`;
  expect(runPtx(ptx('atom.shared.add.u32 %r5, [%r3], 2;'), { block: 64, buffers: [OUT] }).report.races).toEqual([]);
  const mixed = runPtx(ptx('ld.shared.u32 %r5, [%r3];'), { block: 64, buffers: [OUT] }).report;
  expect(between(mixed.races, 60, 61).length).toBeGreaterThan(0);
  for (const r of mixed.races) expect(r.accesses.map((a) => a.op).sort()).toEqual(['atomic', 'read']);
});

test('lanes of one store writing the same word pairwise: each pair with equal values is benign, each with different values a race', () => {
  // lanes 2k and 2k+1 write word k of shared `buf` (line 50) and of global `out` (line 51): the
  // value 7 for even k (equal: benign), the lane number for odd k (different: a race); 32 lanes
  // make 16 pairs, 8 of each kind, per space
  const ptx = `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<10>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 buf[64];
  mov.u32 %r1, %tid.x; shr.u32 %r2, %r1, 1; shl.b32 %r3, %r2, 2; mov.u32 %r4, buf; add.s32 %r5, %r4, %r3;
  and.b32 %r6, %r2, 1; setp.eq.u32 %p1, %r6, 0; selp.u32 %r7, 7, %r1, %p1;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1; cvt.u64.u32 %rd2, %r3; add.s64 %rd3, %rd1, %rd2;
  .loc 1 50 0
  st.shared.u32 [%r5], %r7;
  .loc 1 51 0
  st.global.u32 [%rd3], %r7;
  ret;
}`;
  const { report } = runPtx(ptx, { block: 32, buffers: [{ name: 'out', count: 16 }] });
  const summary = (rs: typeof report.races): string[] => rs.map((r) => `${r.kind} ${r.space} ${lines(r).join('/')} ${r.intraWarp} ${r.count}`).sort();
  expect(summary(report.benign)).toEqual(['WAW global 51/51 true 8', 'WAW shared 50/50 true 8']);
  expect(summary(report.races)).toEqual(['WAW global 51/51 true 8', 'WAW shared 50/50 true 8']);
});

test('a store whose lane faults is checked for the lanes before that lane', () => {
  // lanes 0-15 write their lane number to shared word 0 (line 60); lane 16 is out of bounds and
  // ends the run: lanes 1-15 each overwrite the previous lane's different value, 15 conflicts
  const ptx = `${HEADER}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<10>;
  .shared .align 4 .b8 buf[64];
  mov.u32 %r1, %tid.x; mov.u32 %r4, buf; setp.lt.u32 %p1, %r1, 16; selp.u32 %r5, %r4, 4096, %p1;
  .loc 1 60 0
  st.shared.u32 [%r5], %r1;
  ret;
}`;
  const { report } = runPtx(ptx, { block: 32, buffers: [{ name: 'out', count: 1 }] });
  expect(report.fault).not.toBeNull();
  expect(report.races.map((r) => `${r.kind} ${r.space} ${lines(r).join('/')} ${r.intraWarp} ${r.count}`)).toEqual(['WAW shared 60/60 true 15']);
  expect(report.benign).toEqual([]);
});
