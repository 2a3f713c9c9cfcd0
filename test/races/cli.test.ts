/**
 * `ptxdbg races` through the built CLI (run `npm run build` first): the --json contract, exit
 * codes, text output, bad input.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir, testIf } from '../helpers.js';

const CLI = join(ROOT, 'dist', 'src', 'cli.js');
const built = existsSync(CLI);

function races(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('node', [CLI, 'races', ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const S = (name: string, build = 'G'): string => join('samples', name, `kernel.${build}.ptx`);

testIf(built ? null : `${CLI} is not built (run npm run build)`)('--json follows the contract and exits 1 on a race', () => {
  const r = races(S('race_shared_raw'), '--launch', 'samples/race_shared_raw/launch.json', '--json');
  expect(r.status).toBe(1);
  const rep = JSON.parse(r.stdout) as Record<string, unknown>;
  expect(Object.keys(rep)).toEqual(expect.arrayContaining(['races', 'barrierErrors', 'benign']));
  const racesList = rep.races as Record<string, unknown>[];
  expect(racesList.length).toBeGreaterThan(0);
  for (const race of racesList) {
    expect(['RAW', 'WAR', 'WAW']).toContain(race.kind);
    expect(race.space).toBe('shared');
    expect(typeof race.address).toBe('number');
    expect(typeof race.intraWarp).toBe('boolean');
    expect(race.variable === null || typeof race.variable === 'string').toBe(true);
    const acc = race.accesses as Record<string, unknown>[];
    expect(acc.length).toBe(2);
    for (const a of acc) {
      for (const k of ['block', 'thread']) {
        expect(Array.isArray(a[k]) && (a[k] as unknown[]).length === 3 && (a[k] as unknown[]).every(Number.isInteger)).toBe(true);
      }
      expect(['read', 'write', 'atomic']).toContain(a.op);
      expect(a.file).toBe('kernel.cu');
      for (const k of ['line', 'pc', 'step']) expect(Number.isInteger(a[k])).toBe(true);
      expect(typeof a.ptx).toBe('string');
    }
    expect((acc[0]!.step as number) <= (acc[1]!.step as number)).toBe(true);
  }
});

testIf(built ? null : `${CLI} is not built (run npm run build)`)('a clean kernel exits 0 with empty lists; the launch file next to the PTX is found', () => {
  const r = races(S('saxpy'), '--json');
  expect(r.status).toBe(0);
  const rep = JSON.parse(r.stdout) as { races: unknown[]; barrierErrors: unknown[]; benign: unknown[] };
  expect(rep.races).toEqual([]);
  expect(rep.barrierErrors).toEqual([]);
  expect(rep.benign).toEqual([]);
});

testIf(built ? null : `${CLI} is not built (run npm run build)`)('barrier errors exit 1 and carry kind, block and line', () => {
  const r = races(S('sync_divergent_barrier', 'O3'), '--json');
  expect(r.status).toBe(1);
  const rep = JSON.parse(r.stdout) as { barrierErrors: { kind: string; block: number[]; line: number; file: string }[] };
  expect(rep.barrierErrors.some((e) => e.kind === 'divergence' && e.line === 8 && e.file === 'kernel.cu')).toBe(true);
  expect(rep.barrierErrors.every((e) => e.block.length === 3)).toBe(true);
});

testIf(built ? null : `${CLI} is not built (run npm run build)`)('text output names both accesses and marks intra-warp and benign races', () => {
  const r = races(S('race_intra_warp'));
  expect(r.status).toBe(1);
  expect(r.stdout).toMatch(/race 1: RAW on shared memory at 0x[0-9a-f]+ \(s\[\d+\]\) — intra-warp/);
  expect(r.stdout).toMatch(/write\s+by block \(0,0,0\) thread \(\d+,0,0\) at kernel\.cu:6, step \d+/);
  expect(r.stdout).toMatch(/read\s+by block \(0,0,0\) thread \(\d+,0,0\) at kernel\.cu:8, step \d+/);
  const b = races(S('benign_same_value'));
  expect(b.status).toBe(0);
  expect(b.stdout).toMatch(/benign \(same value written\) 1: WAW on shared memory .*\(flag\)/);
  expect(b.stdout).toMatch(/0 races, 2 benign races, 0 barrier errors/);
});

testIf(built ? null : `${CLI} is not built (run npm run build)`)('a kernel that faults otherwise exits 3, with the fault in the report', () => {
  const r = races(S('bug_trap'), '--json');
  expect(r.status).toBe(3);
  const rep = JSON.parse(r.stdout) as { fault: string | null; races: unknown[] };
  expect(rep.fault).toMatch(/^trap: /);
  expect(rep.races).toEqual([]);
  expect(r.stderr).toMatch(/trap/);
});

testIf(built ? null : `${CLI} is not built (run npm run build)`)('--schedules N --seed S reruns under N random schedules', () => {
  const r = races(S('race_shared_waw', 'O3'), '--schedules', '3', '--seed', '7', '--json');
  expect(r.status).toBe(1);
  const rep = JSON.parse(r.stdout) as { schedules: { count: number; seeds: number[]; outputsDiffer: boolean } };
  expect(rep.schedules.count).toBe(3);
  expect(rep.schedules.seeds).toEqual([7, 8, 9]);
  expect(typeof rep.schedules.outputsDiffer).toBe('boolean');
});

testIf(built ? null : `${CLI} is not built (run npm run build)`)('bad input is a clear message and a non-zero exit, never a crash', () => {
  const dir = tempDir('ptxdbg-races-');
  const badPtx = join(dir, 'bad.ptx');
  writeFileSync(badPtx, '.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { frobnicate; }\n');
  const cases: [string[], number, RegExp][] = [
    [[join(dir, 'missing.ptx')], 2, /cannot read/],
    [[badPtx], 1, /error/],
    [[S('saxpy'), '--launch', join(dir, 'nope.json')], 2, /bad launch/],
    [[S('saxpy'), '--schedules', '0'], 2, /--schedules/],
    [[S('saxpy'), '--kernel', 'nope', '--grid', '2'], 2, /bad launch|nope/],
  ];
  for (const [args, status, msg] of cases) {
    const r = races(...args);
    expect(r.status).toBe(status);
    expect(r.stderr).toMatch(msg);
    expect(r.stderr).not.toMatch(/internal error/);
  }
});
