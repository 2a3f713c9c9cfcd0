/**
 * The TUI on a whole CUDA program (issue #25): samples/apps/timeline/offbyone, built here with
 * nvcc and recorded whole, rendered into a headless xterm. Expected values come from
 * offbyone.cu: its three launches `prefix<<<1, 8>>>`, `scale<<<2, 4>>>`, `finish<<<4, 2>>>` (in
 * that order, each at its line of main), and what its host check prints (out[0] = 2·0 + 1 = 1
 * where (0+1)(0+2) + 1 = 3 is expected).
 */
import './env.js';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingTool, ROOT, testIf } from '../helpers.js';
import { nvccBuild } from '../host/nvcc.js';
import { openProgramForTest, runtimeMissing } from './program-open.js';
import { KEY, TuiHarness } from './harness.js';

const DIR = join(ROOT, 'samples', 'apps', 'timeline');
const why = missingTool('nvcc') ?? runtimeMissing();
const run = testIf(why);

/** The 1-based line of offbyone.cu holding `text` (exactly one). */
function lineOf(text: string): number {
  const lines = readFileSync(join(DIR, 'offbyone.cu'), 'utf8').split('\n');
  const at = lines.flatMap((l, i) => (l.includes(text) ? [i + 1] : []));
  if (at.length !== 1) throw new Error(`offbyone.cu: ${at.length} lines hold ${text}`);
  return at[0]!;
}

// grid and block as offbyone.cu's launches write them (1-D: y = z = 1)
const PREFIX = 'launch 1/3 prefix<<<(1,1,1),(8,1,1)>>>';
const SCALE = 'launch 2/3 scale<<<(2,1,1),(4,1,1)>>>';
const FINISH = 'launch 3/3 finish<<<(4,1,1),(2,1,1)>>>';

let bin: string | undefined;
let h: TuiHarness | undefined;

beforeAll(async () => {
  if (why) return;
  bin = mkdtempSync(join(tmpdir(), 'ptxdbg-tui-program-'));
  // -G: the kernels' source lines and variables (offbyone.cu's own flag, -g, is the host's)
  const err = await nvccBuild(join(DIR, 'offbyone.cu'), join(bin, 'offbyone'), ['-g', '-G']);
  if (err !== undefined) throw new Error(`nvcc failed: ${err}`);
}, 600_000);
afterAll(() => { if (bin) rmSync(bin, { recursive: true, force: true }); });
afterEach(() => {
  h?.dispose();
  h = undefined;
});

/** Type a `:` command and wait for the screen to satisfy `pred`. */
async function command(t: TuiHarness, cmd: string, pred: (l: string[]) => boolean, what: string): Promise<string[]> {
  t.press(':', ...cmd.split(''));
  return t.pressAndWait(KEY.enter, pred, what);
}

const header = (l: string[]): string => l[0] ?? '';
/** The timeline row: the one that counts steps. */
const timeline = (l: string[]): string => l.find((x) => /^ (launch \d+\/\d+ )?step \d+\/\d+ /.test(x)) ?? '';

run('offbyone: the header and timeline name the launch; c crosses launches, C comes back; info cuda launches, launch 2, the program output, q', async () => {
  const debug = await openProgramForTest(join(bin!, 'offbyone'));
  h = await TuiHarness.start({ debug, title: 'offbyone', cols: 120, rows: 36 }, (l) => header(l).includes('launch 1/3'));
  // it opens at the start of the first launch
  expect(header(h.lines())).toContain(PREFIX);
  expect(timeline(h.lines())).toMatch(/^ launch 1\/3 step 0\/\d+ /);

  // breakpoints in the second and third kernels, then c twice: each stop is in the next launch
  await command(h, 'break scale', (l) => /Breakpoint 1/.test(l.join('\n')), 'breakpoint 1');
  await command(h, 'break finish', (l) => /Breakpoint 2/.test(l.join('\n')), 'breakpoint 2');
  // scale<<<2, 4>>>: two blocks of one warp each, so the breakpoint hits twice in launch 2
  await h.pressAndWait('c', (l) => header(l).includes(SCALE) && header(l).includes('block (0,0,0)'), 'c into launch 2');
  expect(timeline(h.lines())).toMatch(/^ launch 2\/3 step \d+\/\d+ /);
  // at a line of scale's body (between its signature and finish's)
  const at = Number(/offbyone\.cu:(\d+)/.exec(header(h.lines()))?.[1]);
  expect(at).toBeGreaterThan(lineOf('__global__ void scale'));
  expect(at).toBeLessThan(lineOf('__global__ void finish'));
  await h.pressAndWait('c', (l) => header(l).includes(SCALE) && header(l).includes('block (1,0,0)'), 'c: the second warp of launch 2');
  await h.pressAndWait('c', (l) => header(l).includes(FINISH) && header(l).includes('block (0,0,0)'), 'c into launch 3');
  // C goes back across the boundary to the last hit in launch 2
  await h.pressAndWait('C', (l) => header(l).includes(SCALE) && header(l).includes('block (1,0,0)'), 'C back into launch 2');

  // info cuda launches: one row per launch with its kernel and the line of main that launched it
  const info = await command(h, 'info cuda launches', (l) => /finish/.test(l.join('\n')) && /prefix/.test(l.join('\n')), 'the launch list');
  // the Console is the right-hand column: its rows, unwrapped
  const text = info.map((l) => l.slice(l.lastIndexOf('│') + 1)).join(' ').replace(/\s+/g, ' ');
  for (const [n, kernel, dims, line] of [[1, 'prefix', '(1,1,1) x (8,1,1)', lineOf('prefix<<<')], [2, 'scale', '(2,1,1) x (4,1,1)', lineOf('scale<<<')], [3, 'finish', '(4,1,1) x (2,1,1)', lineOf('finish<<<')]] as const) {
    expect(text).toContain(`${n} ${kernel} ${dims} `);
    expect(text).toMatch(new RegExp(`${kernel} ${dims.replace(/[()]/g, '\\$&')} \\d+ offbyone\\.cu:${line} in main`));
  }

  // launch N travels into launch N (from launch 3 back to 2, at its first step)
  await command(h, 'launch 3', (l) => header(l).includes(FINISH), 'launch 3');
  await command(h, 'launch 2', (l) => header(l).includes(SCALE) && /^ launch 2\/3 step 0\//.test(timeline(l)), 'launch 2');

  // the program's output at its place on the timeline, read in the Output pane as a user reaches
  // it: `:` opens the command line, Tab on its empty line leaves it for the next pane, and Tab
  // walks on to the Output pane (it shares the right-hand column's last slot with the Console)
  h.press(':');
  const prompt = (l: string[]): boolean => l.some((x) => x.trimEnd() === ':');
  await h.waitFor(prompt, 10000, 'the : line');
  await h.pressAndWait(KEY.tab, (l) => !prompt(l), 'Tab on the empty : line leaves it');
  const outputPane = (l: string[]): string => l.map((x) => x.slice(x.lastIndexOf('│', x.length - 2) + 1)).join('\n');
  const marker = '── launch 2 step 0 ──';
  // one Tab at a time, each given time to render before the next: pressing on a screen not yet
  // redrawn would walk past the Output pane (seen under load)
  const atOutput = (l: string[]): boolean => outputPane(l).includes(marker);
  let screen: string[] = h.lines();
  for (let i = 0; i < 12 && !atOutput(screen); i++) {
    h.press(KEY.tab);
    const hh = h;
    screen = await hh.waitFor(atOutput, 1000, 'Tab').catch(() => hh.lines());
  }
  screen = await h.waitFor(atOutput, 10000, 'the Output pane');
  // offbyone prints after its last launch, so at launch 2 its lines come after the marker (dimmed):
  // its host check, out[0] = b[0] + 1 with b[0] = 2 * a[0] = 0, where 2 * 1 + 1 = 3 is expected
  const pane = outputPane(screen);
  expect(pane.indexOf('out[0] = 1, expected 3')).toBeGreaterThan(pane.indexOf(marker));

  expect(await h.quit()).toBe(0);
}, 300_000);

run('offbyone: a breakpoint condition that fails to evaluate stops at its hit in a later launch and says why (gdb, #27)', async () => {
  const debug = await openProgramForTest(join(bin!, 'offbyone'));
  h = await TuiHarness.start({ debug, title: 'offbyone', cols: 120, rows: 36 }, (l) => header(l).includes('launch 1/3'));
  // pending while prefix (launch 1) is in focus; scale has no `nosuchname`
  await command(h, 'break scale if nosuchname == 1', (l) => /Breakpoint 1/.test(l.join('\n')), 'breakpoint 1');
  // gdb's two lines: `Error in testing condition for breakpoint 1:` and the reason (the message line shows the first)
  const l = await h.pressAndWait('c', (ls) => ls.some((x) => x.trim() === 'Error in testing condition for breakpoint 1:') && /No symbol "nosuchname" in current/.test(ls.join('\n')), 'the condition error');
  expect(header(l)).toContain(SCALE);
  expect(await h.quit()).toBe(0);
}, 300_000);

run('offbyone: at a host call the header and timeline name the call and its host line, not launch 1\'s thread; launch 1 goes back into the device', async () => {
  const debug = await openProgramForTest(join(bin!, 'offbyone'));
  h = await TuiHarness.start({ debug, title: 'offbyone', cols: 120, rows: 36 }, (l) => header(l).includes('launch 1/3'));
  // main's calls before prefix<<<: cudaMalloc x4, cudaMemcpy(d_in) (line of the copy), cudaMemset: the copy is step -2 of launch 1
  const copy = `cudaMemcpy offbyone.cu:${lineOf('cudaMemcpy(d_in')}`;
  const l = await command(h, 'goto launch 1 step -2', (ls) => header(ls).includes('host '), 'the host stop');
  expect(header(l)).toContain(`host ${copy} in main`);
  expect(header(l)).toContain('before launch 1/3');
  // no device thread runs there: the header names none
  expect(header(l)).not.toContain('block (');
  expect(header(l)).not.toContain(PREFIX);
  expect(l.find((x) => x.startsWith(' host '))).toMatch(new RegExp(`^ host ${copy} · launch 1/3 step -2 `));
  // into the launch again: its thread and line
  await command(h, 'launch 1', (ls) => header(ls).includes(PREFIX) && header(ls).includes('block (0,0,0)'), 'launch 1');
  expect(timeline(h.lines())).toMatch(/^ launch 1\/3 step 0\/\d+ /);
  expect(await h.quit()).toBe(0);
}, 300_000);

run('offbyone: at a host call the Source pane shows main\'s line of the call, marked; Variables and Registers say no device thread runs there, not launch 1\'s values', async () => {
  const debug = await openProgramForTest(join(bin!, 'offbyone'));
  h = await TuiHarness.start({ debug, title: 'offbyone', cols: 160, rows: 48 }, (l) => header(l).includes('launch 1/3'));
  // main's calls before prefix<<<: cudaMalloc x4, cudaMemcpy(d_in), cudaMemset(d_out): the copy is step -2 of launch 1
  const copyLine = lineOf('cudaMemcpy(d_in');
  const copyText = readFileSync(join(DIR, 'offbyone.cu'), 'utf8').split('\n')[copyLine - 1]!.trim();
  const l = await command(h, 'goto launch 1 step -2', (ls) => header(ls).includes('host '), 'the host stop');
  // the Source pane (the left-hand column): titled with the host call, the call's own line marked (▶ and its number), its text shown
  const left = l.map((x) => x.slice(0, x.indexOf('│')));
  expect(left.some((x) => x.includes(`Host cudaMemcpy in main · offbyone.cu:${copyLine}`))).toBe(true);
  const marked = left.filter((x) => x.includes('▶'));
  expect(marked.length).toBe(1);
  expect(marked[0]).toMatch(new RegExp(`▶\\s*${copyLine} `));
  expect(marked[0]).toContain(copyText.slice(0, 30));
  // Variables and Registers (the middle column): each says no device thread runs, and names the call; nothing of prefix's frame
  const mid = l.map((x) => x.split('│')[1] ?? '');
  expect(mid.filter((x) => x.trim() === 'no device thread at a host call:').length).toBe(2);
  expect(mid.filter((x) => x.trim().startsWith(`cudaMemcpy at offbyone.cu:${copyLine} in`)).length).toBe(2);
  expect(mid.join('\n')).not.toMatch(/%r\d/);
  // the Threads pane (the right-hand column) says so too: no warp of launch 1 with its lanes
  const right = l.map((x) => x.split('│')[2] ?? '');
  expect(right.some((x) => x.trim() === 'no device thread at a host call:')).toBe(true);
  expect(right.join('\n')).not.toMatch(/w0 +●/);
  // into launch 1 again: prefix's frame and registers are back
  const back = await command(h, 'launch 1', (ls) => header(ls).includes(PREFIX) && header(ls).includes('block (0,0,0)'), 'launch 1');
  const backMid = back.map((x) => x.split('│')[1] ?? '').join('\n');
  expect(backMid).not.toContain('no device thread');
  expect(backMid).toMatch(/%r\d/);
  expect(back.map((x) => x.split('│')[2] ?? '').join('\n')).toMatch(/w0 +●/);
  expect(await h.quit()).toBe(0);
}, 300_000);

run('offbyone built from a source that is gone: at a host call the Source pane says in one line which call it is and that no device thread runs there', async () => {
  // offbyone.cu and the ../check.h it includes, copied, built, then removed: neither the kernels'
  // nor main's source can be found (the DWARF names only the removed copy)
  const gone = join(bin!, 'gone');
  mkdirSync(join(gone, 'timeline'), { recursive: true });
  copyFileSync(join(DIR, 'offbyone.cu'), join(gone, 'timeline', 'offbyone.cu'));
  copyFileSync(join(DIR, '..', 'check.h'), join(gone, 'check.h'));
  const err = await nvccBuild(join(gone, 'timeline', 'offbyone.cu'), join(bin!, 'offbyone-nosrc'), ['-g', '-G']);
  if (err !== undefined) throw new Error(`nvcc failed: ${err}`);
  rmSync(gone, { recursive: true, force: true });
  const debug = await openProgramForTest(join(bin!, 'offbyone-nosrc'));
  h = await TuiHarness.start({ debug, title: 'offbyone', cols: 240, rows: 48 }, (l) => header(l).includes('launch 1/3'));
  const copyLine = lineOf('cudaMemcpy(d_in');
  const l = await command(h, 'goto launch 1 step -2', (ls) => header(ls).includes('host '), 'the host stop');
  // (a terminal wide enough for the whole line in the Source pane)
  const left = l.map((x) => x.slice(0, x.indexOf('│')));
  expect(left.some((x) => x.includes('Host cudaMemcpy in main · source not found'))).toBe(true);
  expect(left.some((x) => x.includes(`host cudaMemcpy at offbyone.cu:${copyLine} in main — no device thread here`))).toBe(true);
  expect(left.join('\n')).not.toContain('▶');
  expect(await h.quit()).toBe(0);
}, 300_000);
