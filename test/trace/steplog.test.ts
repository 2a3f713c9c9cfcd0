/**
 * The step log holds runs (consecutive instructions of a warp under one mask, one entry each),
 * packs finished chunks (instruction offsets in 16 or 32 bits, masks through a palette or, past
 * 256 distinct masks, as they are) and spills them past its budget; every form reads back the
 * steps the hot loop logged. Synthetic steps, so each form is certain to be taken.
 */
import type { Warp } from '../../src/exec/state.js';
import { CHUNK_SHIFT, StepLog } from '../../src/trace/steplog.js';

const N = 1 << CHUNK_SHIFT;

/** Logs step s as the hot loop does (machine/run.ts): a new run (3 words) unless it continues the open one. */
function logger(log: StepLog): (s: number, w: Warp, pc: number, mask: number) => void {
  let last: Warp | undefined, next = -1, m = 0;
  return (s, w, pc, mask) => {
    const runs = log.runsFor(s, w);
    if (w !== last || pc !== next || mask !== m || s === log.runBase) {
      const r = 3 * log.nrun++;
      runs[r] = s - log.runBase; runs[r + 1] = pc; runs[r + 2] = mask;
    }
    last = w; next = pc + 1; m = mask;
  };
}
/** Step i's instruction index and mask: chunk 0 spans 100,000 instructions and 300 masks, chunk 1 a few of each. */
const pc = (i: number): number => (i < N ? (i * 7919) % 100_000 + 5 : 40 + (i % 13));
const mask = (i: number): number => (i < N ? (i % 300) | 0x80000000 : [-1, 0x0000ffff, 1][i % 3]!) | 0;

function fill(log: StepLog, total: number): void {
  // two warps taking turns every 1000 steps (warp keys 0 and 1)
  const warps = [0, 1].map((k) => ({ cta: { id: 0 }, tidBase: 32 * k }) as unknown as Warp);
  const step = logger(log);
  for (let s = 0; s < total; s++) {
    step(s, warps[Math.floor(s / 1000) % 2]!, pc(s), mask(s));
    if ((s & (N - 1)) === N - 1) log.packBefore((s + 1) >>> CHUNK_SHIFT);
  }
  log.seal(total);
}

test.each([['in memory', Infinity], ['spilled', 0]] as const)('packed chunks read back every step (%s)', (_, budget) => {
  const total = 2 * N + 12_345;
  const log = new StepLog(budget);
  fill(log, total);
  expect(log.spilled).toBe(budget === 0 ? 3 : 0);
  for (let s = 0; s < total; s++) {
    if (log.loc(s) !== pc(s) || log.mask(s) !== mask(s)) throw new Error(`step ${s}: (${log.loc(s)}, ${log.mask(s)}) instead of (${pc(s)}, ${mask(s)})`);
  }
  const last = log.chunk(2);
  expect(last.length).toBe(2 * 12_345);
  expect([last[0], last[1], last[2 * 12_344], last[2 * 12_344 + 1]]).toEqual([pc(2 * N), mask(2 * N) >>> 0, pc(total - 1), mask(total - 1) >>> 0]);
  expect(log.nseg).toBe(Math.ceil(total / 1000));
  expect(log.warpAt(1500)).toBe(1);
  // every step is a run of its own (no two in a row are consecutive instructions under one mask);
  // chunk 0: a 16-bit first step, a 32-bit offset and a raw mask a run (10 bytes); chunks 1 and 2:
  // 16-bit first steps and offsets and a mask index into a 3-mask palette (5 bytes a run)
  const seg = log.segStep.byteLength + log.segWarp.byteLength;
  expect(log.bytes() - seg).toBe(10 * N + (5 * N + 3 * 4) + (5 * 12_345 + 3 * 4));
});

test('a straight line under one mask is one entry, read back step by step', () => {
  // one warp going round 50 consecutive instructions: a run per round (and one more where chunk 1 starts mid-round)
  const total = N + 1000;
  const warp = { cta: { id: 0 }, tidBase: 0 } as unknown as Warp;
  const log = new StepLog(Infinity);
  const step = logger(log);
  for (let s = 0; s < total; s++) step(s, warp, 100 + (s % 50), -1);
  log.seal(total);
  for (let s = 0; s < total; s++) {
    if (log.loc(s) !== 100 + (s % 50) || log.mask(s) !== -1) throw new Error(`step ${s}: (${log.loc(s)}, ${log.mask(s)})`);
  }
  // chunk 0: ceil(N / 50) rounds; chunk 1 starts at step N (N % 50 = 18 into a round): 1 + ceil((1000 - 32) / 50) runs; 5 bytes a run and a 1-mask palette each
  const runs0 = Math.ceil(N / 50), runs1 = 1 + Math.ceil((1000 - (50 - (N % 50))) / 50);
  const seg = log.segStep.byteLength + log.segWarp.byteLength;
  expect(log.bytes() - seg).toBe(5 * runs0 + 4 + 5 * runs1 + 4);
  const words = log.chunk(1);
  expect([words[0], words[1], words[2 * 999], words[2 * 999 + 1]]).toEqual([100 + (N % 50), 0xffffffff, 100 + ((N + 999) % 50), 0xffffffff]);
});

test('a spilled log longer than the read-back cache reads back every step, in any order', () => {
  // 130 chunks (more than the 128 kept after reading back) and an odd tail of 300 distinct masks with
  // 16-bit offsets; in the others, which mask runs where changes from chunk to chunk (packing reuses
  // a spilled chunk's storage, so stale indices would show)
  const chunks = 130, tail = 4001, total = chunks * N + tail;
  const pcAt = (i: number): number => 1000 + ((i * 31) % 5000);
  const maskAt = (i: number): number => {
    const c = i >>> CHUNK_SHIFT;
    if (c === chunks) return (i % 300) + 1;
    return [-1, 0xff, 0xff00][((i >>> (4 + (c % 5))) + c) % 3]! | 0;
  };
  const warp = { cta: { id: 0 }, tidBase: 0 } as unknown as Warp;
  const log = new StepLog(0);
  const step = logger(log);
  for (let s = 0; s < total; s++) {
    step(s, warp, pcAt(s), maskAt(s));
    if ((s & (N - 1)) === N - 1) log.packBefore((s + 1) >>> CHUNK_SHIFT);
  }
  log.seal(total);
  expect(log.spilled).toBe(chunks + 1);
  const check = (s: number): void => {
    if (log.loc(s) !== pcAt(s) || log.mask(s) !== maskAt(s)) throw new Error(`step ${s}: (${log.loc(s)}, ${log.mask(s)}) instead of (${pcAt(s)}, ${maskAt(s)})`);
  };
  for (let s = 0; s < total; s++) check(s);
  // backwards chunk by chunk, then striding: chunks dropped from the cache and read again
  for (let c = chunks; c >= 0; c--) for (let s = c * N; s < Math.min(total, (c + 1) * N); s += 7) check(s);
  for (let k = 0; k < 3000; k++) check((k * 1_000_003) % total);
  // over its budget (0), the log keeps 8 chunks read back (a run a step at most: 16-bit first steps and offsets, mask indices, a palette)
  const seg = log.segStep.byteLength + log.segWarp.byteLength;
  expect(log.residentBytes() - seg).toBeGreaterThan(0);
  expect(log.residentBytes() - seg).toBeLessThanOrEqual(8 * (5 * N + 256 * 4));
});
