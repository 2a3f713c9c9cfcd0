/**
 * Races across a program's launches (issue #25): `info races` in `ptxdbg ./racy --batch` lists
 * every launch's races under its launch, numbered L.N, and `race L.N [2]` travels there.
 * samples/apps/timeline/racy.cu: fill<<<1, 64>>>, count<<<1, 64>>>, twice<<<1, 64>>>; only count
 * races (every thread does `*total += a[i]`, a load and a store of one word, two warps), fill and
 * twice write only their own a[i]. Expected launches, lines and threads come from the source.
 */
import { testIf } from '../helpers.js';
import { batchIn, buildTimeline, lineIn, whyNoTimeline } from './timeline-common.js';

const run = testIf(whyNoTimeline);

let bin: string;
beforeAll(async () => { bin = await buildTimeline('ptxdbg-timeline-races-', 'racy'); }, 600_000);

const lineOf = (text: string): number => lineIn('racy.cu', text);
const RACE_LINE = lineOf('*total += a[i]');
const launchLine = (n: number, kernel: string): string => `Launch ${n} ${kernel}<<<(1,1,1),(64,1,1)>>> at racy.cu:${lineOf(`${kernel}<<<1, n>>>`)} in main`;

const debug = (commands: readonly string[]): ReturnType<typeof batchIn> => batchIn(bin, 'racy', commands);

run('info races lists the races of every launch under their launch: only count (launch 2), at its += line', () => {
  const r = debug(['info races']);
  expect(r.status).toBe(0);
  const lines = r.out.split('\n');
  expect(lines).toContain(`${launchLine(1, 'fill')}: no races or barrier errors`);
  expect(lines).toContain(`${launchLine(3, 'twice')}: no races or barrier errors`);
  const from = lines.indexOf(`${launchLine(2, 'count')}:`);
  expect(from).toBeGreaterThan(0);
  const heads = lines.filter((l) => /^race \d+\.\d+: /.test(l));
  expect(heads.length).toBeGreaterThan(0);
  // every race is launch 2's, and every access is at the += line
  expect(heads.every((l) => l.startsWith('race 2.'))).toBe(true);
  const accesses = lines.filter((l) => /^\s+(read|write)\s+by block/.test(l));
  expect(accesses.every((l) => l.includes(`at racy.cu:${RACE_LINE},`))).toBe(true);
  expect(r.out).toMatch(/\d+ races? in 1 launch of 3\. Use "race L\.N"/);
}, 120_000);

run('race L.N 2 travels into launch 2 to a race between the two warps: the reading thread of warp 1 in focus at the += line', () => {
  const listing = debug(['info races']).out.split('\n');
  // a race whose two accesses are by threads of different warps (thread x < 32 and >= 32)
  const threadOf = (l: string): number => Number(/thread \((\d+),0,0\)/.exec(l)![1]);
  const at = listing.findIndex((l, i) => /^race 2\.\d+: /.test(l) && threadOf(listing[i + 1]!) < 32 && threadOf(listing[i + 2]!) >= 32);
  expect(at).toBeGreaterThan(0);
  const name = /^race (2\.\d+):/.exec(listing[at]!)![1]!;
  const t = threadOf(listing[at + 2]!);
  const r = debug([`race ${name} 2`, 'print $_launch', 'print i', 'race 1.1']);
  expect(r.status).toBe(1); // launch 1 has no race
  expect(r.out).toContain(`Race ${name} (`);
  expect(r.out).toContain('[launch 2 count<<<(1,1,1),(64,1,1)>>>');
  expect(r.out).toMatch(new RegExp(`\\] block \\(0,0,0\\) thread \\(${t},0,0\\) warp 1 lane ${t - 32}`));
  expect(r.out).toContain(`${RACE_LINE}\t  if (i < n) *total += a[i];`);
  // $_launch is 2; i = blockIdx.x * blockDim.x + threadIdx.x = t in a single block
  expect(r.out).toContain('$1 = 2');
  expect(r.out).toContain(`$2 = ${t}`);
  expect(r.out).toContain('No races were found in launch 1.');
}, 120_000);
