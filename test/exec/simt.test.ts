/**
 * Warp-synchronous instructions under independent thread scheduling: a `.sync` collective waits
 * for every member lane, so diverged paths that reach the same shfl.sync / bar.warp.sync execute
 * it together (src/exec/simt/converge.ts). Expected values are computed by hand from the PTX.
 */
import { DEFAULT_RUN_OPTIONS } from '../../src/exec/machine.js';
import { runModule } from './run-module.js';

// 32 lanes, v = lane. Three iterations of: x = shfl.sync.idx(v, 1) (lane 1's v); v += x.
// After the first iteration the odd lanes jump straight back to the loop head while the even
// lanes take a detour (a never-taken exit test, so the branch only reconverges after the loop):
// the two paths reach the shfl.sync separately and must execute it as one.
// Lane 1: v = 1 -> 2 -> 4 -> 8, so x = 1, 2, 4 and every lane ends with v = lane + 7.
const LOOP = (sync: string): string => `.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>; .reg .pred %p<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %laneid;
  mov.u32 %r2, %r1;
  mov.u32 %r3, 0;
  and.b32 %r4, %r1, 1;
  setp.eq.u32 %p2, %r4, 1;
$LOOP:
${sync}
  add.u32 %r2, %r2, %r5;
  add.u32 %r3, %r3, 1;
  setp.ge.u32 %p1, %r3, 3;
  @%p1 bra $END;
  @%p2 bra $LOOP;
  setp.ge.u32 %p3, %r3, 100;
  @%p3 bra $END;
  bra $LOOP;
$END:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
`;

test('diverged paths reaching the same shfl.sync execute it together (full member mask)', () => {
  const { out, res } = runModule(LOOP('  shfl.sync.idx.b32 %r5, %r2, 1, 0x1f, 0xffffffff;'), 32, 32);
  expect(res.fault?.message).toBeUndefined();
  expect(out).toEqual(Array.from({ length: 32 }, (_, l) => l + 7));
});

test('the member mask in a register works the same; bar.warp.sync merges paths as well', () => {
  const { out, res } = runModule(LOOP('  mov.u32 %r9, -1;\n  bar.warp.sync %r9;\n  shfl.sync.idx.b32 %r5, %r2, 1, 0x1f, %r9;'), 32, 32);
  expect(res.fault?.message).toBeUndefined();
  expect(out).toEqual(Array.from({ length: 32 }, (_, l) => l + 7));
});

test('vote.sync.ballot from diverged paths sees every member lane', () => {
  // ballot of (lane is odd) over the full warp = 0xAAAAAAAA; v += popc(ballot) = 16 per
  // iteration: every lane ends with lane + 48
  const { out, res } = runModule(LOOP('  vote.sync.ballot.b32 %r6, %p2, 0xffffffff;\n  popc.b32 %r5, %r6;'), 32, 32);
  expect(res.fault?.message).toBeUndefined();
  expect(out).toEqual(Array.from({ length: 32 }, (_, l) => l + 48));
});

test('--schedule random varies which diverged path runs first (deterministically per seed)', () => {
  // lanes >= 16 take the branch and store 2 to out[0], lanes < 16 fall through and store 1:
  // the path that runs second decides out[0]. Round-robin runs the taken path first (1 stays).
  const src = `.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .pred %p; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %laneid;
  setp.ge.u32 %p, %r1, 16;
  @%p bra $B;
  st.global.u32 [%rd1], 1;
  bra.uni $J;
$B:
  st.global.u32 [%rd1], 2;
$J:
  ret;
}
`;
  expect(runModule(src, 1, 32).out).toEqual([1]);
  const seen = new Set<number>();
  for (let seed = 1; seed <= 16; seed++) {
    const opts = { ...DEFAULT_RUN_OPTIONS, schedule: 'random' as const, seed };
    const a = runModule(src, 1, 32, opts).out[0]!;
    expect(runModule(src, 1, 32, opts).out[0]).toBe(a);
    seen.add(a);
  }
  expect([...seen].sort()).toEqual([1, 2]);
});

test('redux.sync and match.sync from diverged paths see every member lane', () => {
  // redux.sync.add of the lane ids 0..31 = 496 per iteration: lane + 3 * 496 = lane + 1488
  const r = runModule(LOOP('  redux.sync.add.u32 %r5, %r1, 0xffffffff;'), 32, 32);
  expect(r.res.fault?.message).toBeUndefined();
  expect(r.out).toEqual(Array.from({ length: 32 }, (_, l) => l + 1488));
  // match.any.sync on the lane's parity: the 16 lanes of the same parity, popc 16: lane + 48
  const m = runModule(LOOP('  match.any.sync.b32 %r6, %r4, 0xffffffff;\n  popc.b32 %r5, %r6;'), 32, 32);
  expect(m.res.fault?.message).toBeUndefined();
  expect(m.out).toEqual(Array.from({ length: 32 }, (_, l) => l + 48));
});

test('warp collectives where lanes name different member groups reduce within their own group', () => {
  // lanes 0-15 pass mask 0x0000ffff, lanes 16-31 mask 0xffff0000 (cooperative groups'
  // labeled_partition runs one collective per bucket at once)
  const group = (body: string): string => `.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p1, %r1, 16;
  selp.b32 %r2, 0x0000ffff, 0xffff0000, %p1;
${body}
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
`;
  const lanes = Array.from({ length: 32 }, (_, l) => l);
  // sums 0+..+15 = 120 and 16+..+31 = 376
  expect(runModule(group('  redux.sync.add.u32 %r5, %r1, %r2;'), 32, 32).out).toEqual(lanes.map((l) => (l < 16 ? 120 : 376)));
  // signed max of (lane - 20): 15 - 20 = -5 in the low group, 31 - 20 = 11 in the high one
  expect(runModule(group('  sub.s32 %r3, %r1, 20;\n  redux.sync.max.s32 %r5, %r3, %r2;'), 32, 32).out).toEqual(lanes.map((l) => (l < 16 ? (-5 >>> 0) : 11)));
  // ballot of lane % 3 == 0 within the group: {0,3,...,15} and {18,21,24,27,30}
  const low = [0, 3, 6, 9, 12, 15].reduce((a, b) => a | (1 << b), 0);
  const high = ([18, 21, 24, 27, 30].reduce((a, b) => a | (1 << b), 0)) >>> 0;
  expect(runModule(group('  rem.u32 %r3, %r1, 3;\n  setp.eq.u32 %p2, %r3, 0;\n  vote.sync.ballot.b32 %r5, %p2, %r2;'), 32, 32).out).toEqual(lanes.map((l) => (l < 16 ? low : high)));
  // match.any on parity within the group: even/odd lanes of that half
  expect(runModule(group('  and.b32 %r3, %r1, 1;\n  match.any.sync.b32 %r5, %r3, %r2;'), 32, 32).out)
    .toEqual(lanes.map((l) => (l < 16 ? (l % 2 ? 0xaaaa : 0x5555) : (l % 2 ? 0xaaaa0000 : 0x55550000))));
  // elect.sync: the lowest lane of each group
  expect(runModule(group('  elect.sync %r5|%p2, %r2;'), 32, 32).out).toEqual(lanes.map((l) => (l < 16 ? 0 : 16)));
});
