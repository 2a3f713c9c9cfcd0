/**
 * A step log larger than its memory budget spills finished chunks (2^15 steps each) to a
 * temporary file and reads them back on demand: every step's location and mask, the trace file
 * written from it, and travel to positions in spilled chunks are those of the same recording kept
 * in memory. The hermetic kernel: 2 warps each going round a 4-instruction loop 140,000 times
 * (about 1.1 million warp-steps, three chunks).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultLaunch } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS, Machine } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { writeTraceFile } from '../../src/trace/file.js';
import { stateHash } from '../../src/trace/hash.js';
import { CHUNK_SHIFT, DEFAULT_INTERVAL, Trace } from '../../src/trace/trace.js';

const PTX = `.version 8.0
.target sm_80
.address_size 64
.visible .entry spin(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x; mov.u32 %r2, 0; mov.u32 %r3, 0;
$L:
  add.u32 %r3, %r3, %r1;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 140000;
  @%p1 bra $L;
  ld.param.u64 %rd1, [out]; mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}`;

const program = loadPtx(PTX, 'spin.ptx').program!;
const launch = { ...defaultLaunch(program), block: [64, 1, 1] as [number, number, number] };

function record(logBudget: number): Trace {
  const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  m.prime();
  return Trace.record(m, { interval: DEFAULT_INTERVAL, logBudget });
}

test('a spilled log reads back every step as recorded; travel and trace files are unchanged', () => {
  const kept = record(Infinity);
  const spilled = record(0);
  // 2 warps x (4 x 140000 + 8) steps, give or take the prologue: more than two chunks
  expect(kept.total).toBeGreaterThan(2 << CHUNK_SHIFT);
  expect(spilled.total).toBe(kept.total);
  // a budget of 0 spills every chunk once it is packed (the last at the end)
  expect(spilled.log.spilled).toBe(Math.ceil(kept.total / (1 << CHUNK_SHIFT)));
  expect(kept.log.spilled).toBe(0);
  expect(spilled.log.residentBytes()).toBeLessThan(kept.log.residentBytes() / 2);
  expect(spilled.log.bytes()).toBe(kept.log.bytes());
  for (let s = 0; s < kept.total; s++) {
    if (spilled.log.loc(s) !== kept.log.loc(s) || spilled.log.mask(s) !== kept.log.mask(s)) {
      throw new Error(`step ${s}: spilled (${spilled.log.loc(s)}, ${spilled.log.mask(s)}) vs kept (${kept.log.loc(s)}, ${kept.log.mask(s)})`);
    }
  }
  // travel into the first (spilled) chunk and back to the end gives the states of the kept trace
  for (const p of [kept.total, 1000, (1 << CHUNK_SHIFT) + 17, 5]) {
    kept.goto(p);
    spilled.goto(p);
    expect({ p, h: stateHash(spilled.machine) }).toEqual({ p, h: stateHash(kept.machine) });
  }
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-spill-'));
  try {
    const o = { schedule: 'rr' as const, seed: 1, maxSteps: DEFAULT_RUN_OPTIONS.maxSteps };
    writeTraceFile(join(dir, 'a.ptxtrace'), kept, 'spin.ptx', PTX, launch, o);
    writeTraceFile(join(dir, 'b.ptxtrace'), spilled, 'spin.ptx', PTX, launch, o);
    expect(readFileSync(join(dir, 'b.ptxtrace')).equals(readFileSync(join(dir, 'a.ptxtrace')))).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

test('the budget holds the log and the checkpoints together', () => {
  const kept = record(Infinity);
  // enough for the log alone, not for the log and the checkpoints: the log spills
  const budget = kept.log.residentBytes();
  const t = record(budget);
  expect(kept.bytes().checkpoints).toBeGreaterThan(0);
  expect(t.log.spilled).toBeGreaterThan(0);
  expect(t.log.residentBytes() + t.bytes().checkpoints).toBeLessThanOrEqual(budget);
  expect(t.bytes()).toEqual(kept.bytes());
}, 120_000);

test('an interval longer than a log chunk logs every step (a turn stops at the chunk end)', () => {
  const kept = record(Infinity);
  const m = new Machine(program, launch, DEFAULT_RUN_OPTIONS);
  m.prime();
  // checkpoints every 2^17 steps: intervals span four chunks of the log
  const t = Trace.record(m, { interval: 1 << 17 });
  expect(t.total).toBe(kept.total);
  for (let s = 0; s < kept.total; s++) {
    if (t.log.loc(s) !== kept.log.loc(s) || t.log.mask(s) !== kept.log.mask(s)) {
      throw new Error(`step ${s}: (${t.log.loc(s)}, ${t.log.mask(s)}) vs (${kept.log.loc(s)}, ${kept.log.mask(s)}) with the default interval`);
    }
  }
  expect(t.log.nseg).toBe(kept.log.nseg);
  for (let si = 0; si < kept.log.nseg; si++) expect(t.log.segStep[si]).toBe(kept.log.segStep[si]);
  t.goto((1 << CHUNK_SHIFT) + 5);
  kept.goto((1 << CHUNK_SHIFT) + 5);
  expect(stateHash(t.machine)).toBe(stateHash(kept.machine));
}, 120_000);
