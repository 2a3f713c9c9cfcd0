/**
 * Reports on real nvcc output: variable and element names through DWARF, source lines in -G and
 * -O3 builds (call sites for header wrappers, inlined-at lines), determinism, and merged reports
 * over several random schedules.
 */
import { join } from 'node:path';
import type { DwarfType } from '../../dwarf/src/index.js';
import { readLaunchFile } from '../../src/exec/launch.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/exec/machine.js';
import { loadPtx } from '../../src/ptx/index.js';
import { readFileSync } from 'node:fs';
import { checkRun, checkSchedules } from '../../src/races/run.js';
import { elementPath } from '../../src/races/variables.js';
import { localStaticName } from '../../src/races/format.js';
import { ROOT } from '../helpers.js';

function sample(name: string, build: 'G' | 'O3') {
  const dir = join(ROOT, 'samples', name);
  const program = loadPtx(readFileSync(join(dir, `kernel.${build}.ptx`), 'utf8'), `kernel.${build}.ptx`).program!;
  return { program, launch: readLaunchFile(join(dir, 'launch.json'), program) };
}

const FLOAT: DwarfType = { kind: 'base', name: 'float', encoding: 4, byteSize: 4, die: undefined };
const INT: DwarfType = { kind: 'base', name: 'int', encoding: 5, byteSize: 4, die: undefined };

test('elementPath indexes arrays row-major and names struct members', () => {
  const tile: DwarfType = { kind: 'array', element: FLOAT, dims: [16, 17], die: undefined };
  expect(elementPath(tile, 0)).toBe('[0][0]');
  expect(elementPath(tile, (3 * 17 + 16) * 4)).toBe('[3][16]');
  expect(elementPath(tile, (3 * 17 + 16) * 4 + 2)).toBe('[3][16]');
  const cell: DwarfType = {
    kind: 'struct', name: 'Cell', byteSize: 8, declaration: false, die: undefined,
    members: [
      { name: 'count', type: INT, offset: 0, bitSize: undefined, bitOffset: undefined, isBase: false },
      { name: 'w', type: { kind: 'array', element: FLOAT, dims: [1], die: undefined }, offset: 4, bitSize: undefined, bitOffset: undefined, isBase: false },
    ],
  };
  const cells: DwarfType = { kind: 'array', element: cell, dims: [10], die: undefined };
  expect(elementPath(cells, 8 * 2 + 4)).toBe('[2].w[0]');
  expect(elementPath(cells, 8 * 9)).toBe('[9].count');
  expect(elementPath({ kind: 'const', target: tile, die: undefined }, 4)).toBe('[0][1]');
});

test('local static PTX names demangle to the source name', () => {
  expect(localStaticName('_ZZ13transposeRacyPKfPfiE4tile')).toBe('tile');
  expect(localStaticName('_ZZ16neighbourAvgRacyPKfPfiE1s')).toBe('s');
  expect(localStaticName('sdata')).toBe('sdata');
});

test('a -G build names the racing element of a 2D shared tile through DWARF', () => {
  const { program, launch } = sample('race_tile_2d', 'G');
  const { report } = checkRun(program, launch, DEFAULT_RUN_OPTIONS);
  expect(report.races.length).toBeGreaterThan(0);
  for (const r of report.races) {
    const m = /^tile\[(\d+)\]\[(\d+)\]$/.exec(r.variable ?? '');
    expect(m).not.toBeNull();
    const [row, col] = [Number(m![1]), Number(m![2])];
    // __shared__ float tile[16][17]: the element is where the address is
    expect(r.symbolOffset).toBe((row * 17 + col) * 4);
    expect(col).toBeLessThan(16); // the padding column is never touched
    // thread (tx,ty) writes tile[ty][tx] and reads tile[tx][ty]
    for (const a of r.accesses) {
      const [tx, ty] = a.thread;
      expect(a.op === 'write' ? [ty, tx] : [tx, ty]).toEqual([row, col]);
      expect(a.line).toBe(a.op === 'write' ? 8 : 11);
      expect(a.file).toBe('kernel.cu');
    }
  }
});

test('-O3 builds without DWARF still give lines and the PTX symbol', () => {
  const { program, launch } = sample('race_tile_2d', 'O3');
  const { report } = checkRun(program, launch, DEFAULT_RUN_OPTIONS);
  expect(report.races.length).toBeGreaterThan(0);
  for (const r of report.races) {
    expect(r.variable).toBeNull();
    expect(r.symbol).toBe('_ZZ13transposeRacyPKfPfiE4tile');
    expect(r.accesses.map((a) => a.line).sort()).toEqual([11, 8].sort());
  }
});

test('atomics in -G header wrappers and -O3 inlined header code are attributed to the user\'s line', () => {
  for (const build of ['G', 'O3'] as const) {
    const { program, launch } = sample('race_atomic_plain', build);
    const { report } = checkRun(program, launch, DEFAULT_RUN_OPTIONS);
    expect(report.races.length).toBe(1);
    const [a, b] = report.races[0]!.accesses;
    expect([a.op, a.file, a.line]).toEqual(['atomic', 'kernel.cu', 4]);
    expect([b.op, b.file, b.line]).toEqual(['read', 'kernel.cu', 6]);
    expect(a.block[0]).not.toBe(b.block[0]);
  }
});

test('same PTX, launch and seed give the same report', () => {
  const { program, launch } = sample('race_missing_syncwarp', 'G');
  const opts = { ...DEFAULT_RUN_OPTIONS, schedule: 'random' as const, seed: 5 };
  const a = JSON.stringify(checkRun(program, launch, opts).report);
  const b = JSON.stringify(checkRun(program, launch, opts).report);
  expect(a).toBe(b);
  expect(JSON.parse(a).races.length).toBeGreaterThan(0);
});

test('--schedules merges findings over seeded random schedules and compares outputs', () => {
  const racy = sample('race_shared_waw', 'O3');
  const rep = checkSchedules(racy.program, racy.launch, DEFAULT_RUN_OPTIONS, 4, 10);
  expect(rep.schedules!.seeds).toEqual([10, 11, 12, 13]);
  expect(rep.races.length).toBeGreaterThan(0);
  for (const r of rep.races) {
    expect(r.seeds!.length).toBeGreaterThan(0);
    expect(r.seeds!.every((s) => s >= 10 && s <= 13)).toBe(true);
  }
  // no duplicates by (kind, space, instruction pair, intra-warp)
  const keys = rep.races.map((r) => `${r.kind}${r.space}${r.accesses[0].pc}/${r.accesses[1].pc}${r.intraWarp}`);
  expect(new Set(keys).size).toBe(keys.length);
  // which thread stores last into a bucket depends on how the warps interleave
  expect(rep.schedules!.outputsDiffer).toBe(true);
  expect(rep.schedules!.differing).toEqual(['owner']);

  const clean = sample('sync_warp_reduce', 'G');
  const ok = checkSchedules(clean.program, clean.launch, DEFAULT_RUN_OPTIONS, 3, 1);
  expect(ok.races).toEqual([]);
  expect(ok.schedules!.outputsDiffer).toBe(false);
});

test('every reported pair is in execution order and every access of a pair is a different thread', () => {
  for (const name of ['race_shared_raw', 'race_shared_war', 'race_shared_waw', 'race_missing_syncwarp', 'race_tile_2d', 'benign_same_value']) {
    const s = sample(name, 'G');
    const { report } = checkRun(s.program, s.launch, { ...DEFAULT_RUN_OPTIONS, schedule: 'random', seed: 3 });
    for (const r of [...report.races, ...report.benign]) {
      const [a, b] = r.accesses;
      expect(a.step).toBeLessThanOrEqual(b.step);
      expect(`${a.block}/${a.thread}`).not.toBe(`${b.block}/${b.thread}`);
      expect(r.intraWarp).toBe(a.block.join() === b.block.join() && Math.floor(linear(a.thread, s.launch.block) / 32) === Math.floor(linear(b.thread, s.launch.block) / 32));
    }
  }
});

function linear(t: number[], block: number[]): number {
  return t[0]! + t[1]! * block[0]! + t[2]! * block[0]! * block[1]!;
}
