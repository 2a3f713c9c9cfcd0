/**
 * The program timeline end to end (issue #25): `ptxdbg debug --batch -- ./app` on the samples in
 * samples/apps/timeline, built here with nvcc. The files' first-line flags are `-g` (host lines
 * for the call sites); `-G` is added so the device code has source lines too (breakpoint stops
 * name `offbyone.cu:21`). Expected lines, kernels, grids and the order of stops come from the .cu
 * sources (and CUDA's rule that a breakpoint is reported once per warp that reaches it), never
 * from ptxdbg's output.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { testIf } from '../helpers.js';
import { nvccBuildInto } from './nvcc.js';
import { CLI, lineIn, TIMELINE_DIR, whyNoTimeline } from './timeline-common.js';

const DIR = TIMELINE_DIR;
const run = testIf(whyNoTimeline);

let bin: string;

beforeAll(async () => {
  if (whyNoTimeline) return;
  bin = await nvccBuildInto('ptxdbg-timeline-cli-', [
    { name: 'offbyone', source: join(DIR, 'offbyone.cu'), flags: ['-g', '-G'] },
    { name: 'rdc', source: join(DIR, 'rdc_main.cu'), flags: ['-g', '-G', '-rdc=true', join(DIR, 'rdc_other.cu')] },
  ]);
}, 600_000);

const lineOf = lineIn;

/** `ptxdbg debug --batch --ex C1 --ex C2 ... -- ./app`: its stdout (the program's output, then the transcript). */
function debug(app: string, commands: readonly string[], form: 'debug' | 'bare' = 'debug', options: readonly string[] = []): { out: string; err: string; status: number | null } {
  const ex = commands.flatMap((c) => ['--ex', c]);
  const args = form === 'debug' ? ['debug', '--batch', ...options, ...ex, '--', `./${app}`] : [`./${app}`, '--batch', ...ex];
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: bin, encoding: 'utf8', timeout: 120_000 });
  return { out: r.stdout, err: r.stderr, status: r.status };
}

/** The `[launch N kernel<<<grid,block>>> at site]` lines of a transcript, in order. */
const launchLines = (out: string): string[] => out.split('\n').filter((l) => l.startsWith('[launch '));

// offbyone.cu: prefix<<<1, 8>>>, scale<<<2, 4>>>, finish<<<4, 2>>> from main, in that order
const L = (n: number): string => {
  const [kernel, grid, block] = [['prefix', '(1,1,1)', '(8,1,1)'], ['scale', '(2,1,1)', '(4,1,1)'], ['finish', '(4,1,1)', '(2,1,1)']][n - 1]!;
  return `[launch ${n} ${kernel}<<<${grid},${block}>>> at offbyone.cu:${lineOf('offbyone.cu', `${kernel}<<<`)} in main]`;
};
/** The first line of a kernel's body: the line after its `__global__` header. */
const bodyLine = (file: string, kernel: string): number => lineOf(file, `__global__ void ${kernel}(`) + 1;

run('info cuda launches: the three launches with their kernels, grid x block and host call-site lines', () => {
  const r = debug('offbyone', ['info cuda launches']);
  expect(r.status).toBe(0);
  // the program's own output comes first, as it ran: out[0] = 0*2+1 = 1 where 3 was expected
  expect(r.out.split('\n')[0]).toBe('out[0] = 1, expected 3');
  const table = r.out.split('\n').slice(r.out.split('\n').indexOf('FAIL') + 1).filter((l) => l.trim());
  expect(table[0]).toMatch(/^\s+Launch\s+Kernel\s+Grid x Block\s+Warp-steps\s+Host call site$/);
  // a row: the focus mark (the session opens in launch 1), then the columns
  const rows = table.slice(1).map((l) => [l.startsWith('*') ? '*' : '', ...l.slice(1).trim().split(/\s{2,}/)]);
  expect(rows.map((c) => [c[0], c[1], c[2], c[3], c[5]])).toEqual([
    ['*', '1', 'prefix', '(1,1,1) x (8,1,1)', `offbyone.cu:${lineOf('offbyone.cu', 'prefix<<<')} in main`],
    ['', '2', 'scale', '(2,1,1) x (4,1,1)', `offbyone.cu:${lineOf('offbyone.cu', 'scale<<<')} in main`],
    ['', '3', 'finish', '(4,1,1) x (2,1,1)', `offbyone.cu:${lineOf('offbyone.cu', 'finish<<<')} in main`],
  ]);
  for (const c of rows) expect(c[4]).toMatch(/^\d+$/);
  expect(r.err).toContain('3 launches, 3 recorded');
}, 120_000);

run('a breakpoint in the second kernel: pending at launch 1, hit in launch 2 once per warp, then continue crosses into launch 3', () => {
  const r = debug('offbyone', ['break scale', 'break finish', 'continue', 'continue', 'continue', 'reverse-continue']);
  expect(r.status).toBe(0);
  // the session opens in launch 1 (prefix): scale and finish are not in its code yet
  expect(r.out).toContain('Breakpoint 1 (scale) pending.');
  expect(r.out).toContain('Breakpoint 2 (finish) pending.');
  // scale<<<2, 4>>>: one warp per block, so block 0 then block 1; finish<<<4, 2>>> starts with block 0
  const stops = r.out.split('\n').filter((l) => /^Breakpoint \d, block/.test(l));
  expect(stops).toEqual([
    `Breakpoint 1, block (0,0,0) thread (0,0,0) at scale (offbyone.cu:${bodyLine('offbyone.cu', 'scale')})`,
    `Breakpoint 1, block (1,0,0) thread (0,0,0) at scale (offbyone.cu:${bodyLine('offbyone.cu', 'scale')})`,
    `Breakpoint 2, block (0,0,0) thread (0,0,0) at finish (offbyone.cu:${bodyLine('offbyone.cu', 'finish')})`,
    // reverse-continue from launch 3's first hit: back across the boundary to scale's last
    `Breakpoint 1, block (1,0,0) thread (0,0,0) at scale (offbyone.cu:${bodyLine('offbyone.cu', 'scale')})`,
  ]);
  expect(launchLines(r.out)).toEqual([L(2), L(2), L(3), L(2)]);
}, 120_000);

run('set cuda break_on_launch application: each launch\'s first instruction in order, forward then backward', () => {
  const r = debug('offbyone', ['set cuda break_on_launch application', 'run', 'continue', 'continue', 'continue', 'print $_exitcode', 'reverse-continue', 'reverse-continue', 'reverse-continue', 'reverse-continue']);
  expect(r.status).toBe(0);
  // forward: 1, 2, 3, then the program's end (in launch 3); backward: 3, 2, 1, then nothing earlier
  expect(launchLines(r.out)).toEqual([L(1), L(2), L(3), L(3), L(3), L(2), L(1), L(1)]);
  const steps = r.out.split('\n').filter((l) => l.startsWith('[step ')).map((l) => /^\[step (\d+)\//.exec(l)![1]);
  expect(steps.filter((s, i) => i !== 3)).toEqual(['0', '0', '0', '0', '0', '0', '0']);
  expect(r.out).toContain('The program exited with code 1 after 3 launches');
  // report(false) makes main return 1: gdb's $_exitcode at the program's end
  expect(r.out).toContain('$1 = 1');
  expect(r.out).toContain('No more reverse-execution history: at the start of launch 1');
  // each first instruction is the kernel's header line
  const at = r.out.split('\n').filter((l) => /^(?:prefix|scale|finish) at offbyone\.cu:\d+$/.test(l));
  expect(at.slice(0, 3)).toEqual([
    `prefix at offbyone.cu:${lineOf('offbyone.cu', '__global__ void prefix(')}`,
    `scale at offbyone.cu:${lineOf('offbyone.cu', '__global__ void scale(')}`,
    `finish at offbyone.cu:${lineOf('offbyone.cu', '__global__ void finish(')}`,
  ]);
}, 120_000);

run('launch 2 and goto launch N step S; $_launch; a launch that does not exist is an error', () => {
  const r = debug('offbyone', ['launch 2', 'print $_launch', 'goto launch 3 step 5', 'print $_launch', 'launch 7']);
  expect(r.status).toBe(1); // the last command failed
  expect(launchLines(r.out)).toEqual([L(2), L(3)]);
  expect(r.out).toMatch(/\[step 0\/\d+\] block \(0,0,0\) thread \(0,0,0\)/);
  expect(r.out).toMatch(/\[step 5\/\d+\]/);
  expect(r.out).toContain('$1 = 2');
  expect(r.out).toContain('$2 = 3');
  expect(r.out).toContain('launch 7 does not exist: the program made 3 launches (1..3)');
}, 120_000);

run('a condition on $_launch, and ptxdbg ./app (the executable where a .ptx would go)', () => {
  // scale runs once, as launch 2: a condition on launch 3 never holds there
  const r = debug('offbyone', ['break scale if $_launch == 3', 'break finish if $_launch == 3', 'continue'], 'bare');
  expect(r.status).toBe(0);
  expect(r.out.split('\n').filter((l) => /^Breakpoint \d, block/.test(l))).toEqual([
    `Breakpoint 2, block (0,0,0) thread (0,0,0) at finish (offbyone.cu:${bodyLine('offbyone.cu', 'finish')})`,
  ]);
}, 120_000);

run('-rdc: a breakpoint in a kernel of the other translation unit', () => {
  const r = debug('rdc', ['info cuda launches', 'break bump', 'continue']);
  expect(r.status).toBe(0);
  // rdc_main.cu: fill<<<2, 32>>> then bump<<<1, 64>>>; bump is defined in rdc_other.cu
  expect(r.out).toContain(`[launch 2 bump<<<(1,1,1),(64,1,1)>>> at rdc_main.cu:${lineOf('rdc_main.cu', 'bump<<<')} in main]`);
  expect(r.out).toContain(`Breakpoint 1, block (0,0,0) thread (0,0,0) at bump (rdc_other.cu:${bodyLine('rdc_other.cu', 'bump')})`);
}, 120_000);

run('--record scale: only scale\'s launch is recorded; the session opens in it and the others say why they cannot be visited', () => {
  const r = debug('offbyone', ['info cuda launches', 'launch 1'], 'debug', ['--record', 'scale']);
  expect(r.status).toBe(1); // launch 1 cannot be visited
  const rows = r.out.split('\n').filter((l) => /^[* ]\s+\d+\s/.test(l));
  expect(rows.map((l) => [l.startsWith('*'), ...l.slice(1).trim().split(/\s{2,}/).slice(0, 2), /unrecorded/.test(l)])).toEqual([
    [false, '1', 'prefix', true], [true, '2', 'scale', false], [false, '3', 'finish', true],
  ]);
  expect(r.out).toContain('launch 1 (prefix<<<(1,1,1),(8,1,1)>>>) was not recorded');
  expect(r.err).toContain('3 launches, 1 recorded');
}, 120_000);
