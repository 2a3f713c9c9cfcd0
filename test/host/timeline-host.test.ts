/**
 * Stops at the host's calls (issue #25): a watchpoint on global memory whose value no thread
 * changed stops on the host cudaMemcpy that set it, named with its host line; `origin` goes on
 * to that copy; `goto launch K step -J` travels onto a host call; `print` there reads device
 * memory as the call left it. `ptxdbg ./offbyone --batch` on samples/apps/timeline/offbyone.cu.
 *
 * Expected values from the source: main makes, before its first launch (prefix<<<), the six
 * CHECKed calls cudaMalloc x4, cudaMemcpy(d_in ...), cudaMemset(d_out ...), so they sit at steps
 * -6..-1 of launch 1 (src/trace/position.ts), the copy at the 5th: -2. The host sets in[j] = j + 1
 * and copies it in; cudaMalloc leaves zeros (the runtime zeroes, as our sample's checks assume).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testIf } from '../helpers.js';
import { batchIn, buildTimeline, inOrder, lineIn, TIMELINE_DIR, whyNoTimeline } from './timeline-common.js';

const run = testIf(whyNoTimeline);

let bin: string;
beforeAll(async () => { bin = await buildTimeline('ptxdbg-timeline-host-', 'offbyone'); }, 600_000);

const source = readFileSync(join(TIMELINE_DIR, 'offbyone.cu'), 'utf8').split('\n');
const lineOf = (text: string): number => lineIn('offbyone.cu', text);
/** The CUDA calls main makes before its first launch, in order: [line, api]. */
const before1 = source
  .slice(lineOf('int main()'), lineOf('prefix<<<') - 1)
  .flatMap((l, i) => { const m = /CHECK\((cuda\w+)\(/.exec(l); return m ? [[lineOf('int main()') + 1 + i, m[1]!] as const] : []; });
/** The position of the call on `text`'s line: step -(calls from it to the launch) of launch 1. */
const stepOf = (text: string): number => before1.findIndex(([l]) => l === lineOf(text)) - before1.length;
const COPY = `cudaMemcpy (write) at offbyone.cu:${lineOf('cudaMemcpy(d_in')} in main, before launch 1: launch 1 step ${stepOf('cudaMemcpy(d_in')}]`;
const I = 4; // in[4] = 5

const debug = (commands: readonly string[]): ReturnType<typeof batchIn> => batchIn(bin, 'offbyone', commands);


test('the source has the six calls before launch 1 this file assumes', () => {
  expect(before1.map(([, api]) => api)).toEqual(['cudaMalloc', 'cudaMalloc', 'cudaMalloc', 'cudaMalloc', 'cudaMemcpy', 'cudaMemset']);
});

run('watch in[4] in launch 1, reverse-continue: the stop is on the host cudaMemcpy with its line; print there; forward from the first cudaMalloc stops on the copy again', () => {
  const r = debug([
    'launch 1', `watch in[${I}]`, 'reverse-continue', 'print $_launch', `print in[${I}]`,
    `goto launch 1 step ${stepOf('cudaMalloc(&d_in')}`, `print in[${I}]`, 'continue', 'reverse-continue',
  ]);
  expect(r.status).toBe(0);
  inOrder(r.out, [
    // backward: the copy wrote in[4] = 5 over cudaMalloc's zeros
    `Old value = 0\nNew value = ${I + 1}\nwritten by cudaMemcpy at offbyone.cu:${lineOf('cudaMemcpy(d_in')} in main (host, before launch 1)\n[host ${COPY}`,
    '$1 = 1', `$2 = ${I + 1}`,
    // at cudaMalloc(&d_in): the memory as that call left it, before the copy
    `[host cudaMalloc (malloc) at offbyone.cu:${lineOf('cudaMalloc(&d_in')} in main, before launch 1: launch 1 step ${stepOf('cudaMalloc(&d_in')}]`,
    '$3 = 0',
    // forward from there: the copy is the next change
    `Old value = 0\nNew value = ${I + 1}\nafter the write by cudaMemcpy at offbyone.cu:${lineOf('cudaMemcpy(d_in')} in main (host, before launch 1)\n[host ${COPY}`,
    // nothing changed it before the copy: the position stays at the copy (launch 1 starts after it)
    `No more reverse-execution history: no launch before this host call has a stop.\n[host ${COPY}`,
  ]);
  // no thread runs at a host call: the stop shows no thread line there
  const atCopy = r.out.slice(r.out.indexOf(`[host ${COPY}`));
  expect(atCopy.split('\n')[1]).toBe('$1 = 1');
}, 120_000);

run('origin in[4] from prefix goes on to the host copy and stops there', () => {
  const r = debug(['break prefix', 'continue', `origin in[${I}]`, `print in[${I}]`]);
  expect(r.status).toBe(0);
  inOrder(r.out, [
    `was last written by cudaMemcpy at offbyone.cu:${lineOf('cudaMemcpy(d_in')} in main (host, before launch 1): 0 (0x00000000) -> ${I + 1} (0x0000000${I + 1})`,
    `[host ${COPY}`, `$1 = ${I + 1}`,
  ]);
}, 120_000);

run('goto onto a host call that does not exist says which steps hold them', () => {
  const r = debug([`goto launch 1 step ${-before1.length - 1}`]);
  expect(r.status).toBe(1);
  expect(r.out + '').toContain(`launch 1 step ${-before1.length - 1}: the host events before launch 1 are at steps -${before1.length}..-1`);
}, 120_000);

run('a pending breakpoint\'s condition is parsed when it is set: one that does not parse is refused then, as gdb does, and takes no number', () => {
  // the session opens in launch 1 (prefix): finish is not in its code yet, so these are pending
  const at = `offbyone.cu:${lineOf('if (i < n) out[i] = b[i] + 1')}`;
  const r = debug(['break finish if i ==', `break ${at} if`, `break ${at} if i == 5`, 'info breakpoints', 'continue', 'print i']);
  expect(r.status).toBe(1); // the refused ones fail the batch
  inOrder(r.out, [
    'A syntax error in expression, near `\'.', '"if" needs a condition',
    `Breakpoint 1 (${at} if i == 5) pending.`,
    // finish<<<4, 2>>>: i = 5 is block 2, thread 1
    `Breakpoint 1, block (2,0,0) thread (1,0,0) at finish (${at})`, '$1 = 5',
  ]);
  const rows = r.out.split('\n').filter((l) => /^\d+\s+breakpoint\s/.test(l));
  expect(rows.length).toBe(1);
}, 120_000);

run('origin asked at a host call searches from that call: before the copy nothing wrote in[4]; at the memset after it, the copy', () => {
  const r = debug([
    `goto launch 1 step ${stepOf('cudaMalloc(&d_in')}`, `origin in[${I}]`,
    `goto launch 1 step ${stepOf('cudaMemset(d_out')}`, `origin in[${I}]`,
  ]);
  expect(r.status).toBe(1); // the first origin has no answer
  inOrder(r.out, [
    // at cudaMalloc(&d_in), before the copy of line 39: not the copy that comes later
    `[host cudaMalloc (malloc) at offbyone.cu:${lineOf('cudaMalloc(&d_in')} in main, before launch 1: launch 1 step ${stepOf('cudaMalloc(&d_in')}]`,
    'in the program before here: it holds what its allocation started with.',
    `[host cudaMemset (set) at offbyone.cu:${lineOf('cudaMemset(d_out')} in main, before launch 1: launch 1 step ${stepOf('cudaMemset(d_out')}]`,
    `was last written by cudaMemcpy at offbyone.cu:${lineOf('cudaMemcpy(d_in')} in main (host, before launch 1): 0 (0x00000000) -> ${I + 1} (0x0000000${I + 1})`,
    `[host ${COPY}`,
  ]);
  // the copy comes after cudaMalloc: the first answer must not name it
  const first = r.out.slice(r.out.indexOf('[host cudaMalloc'), r.out.indexOf('[host cudaMemset'));
  expect(first).not.toContain('cudaMemcpy');
}, 120_000);

run('backward from a host call before launch 1 stays at the call (launch 1 starts after it): reverse-step and reverse-continue', () => {
  const r = debug([`goto launch 1 step ${stepOf('cudaMemcpy(d_in')}`, 'reverse-step', 'reverse-continue', `print in[${I}]`]);
  expect(r.status).toBe(0);
  // nothing runs on the device before main's first launch: each says so and the position stays at the copy
  const said = r.out.split('\n').filter((l) => l.startsWith('No more reverse-execution history') || l.startsWith('[host') || l.startsWith('[launch'));
  expect(said).toEqual([`[host ${COPY}`, 'No more reverse-execution history: no launch before this host call has a stop.', `[host ${COPY}`, 'No more reverse-execution history: no launch before this host call has a stop.', `[host ${COPY}`]);
  expect(r.out).toContain(`$1 = ${I + 1}`);
}, 120_000);

run('at a host call the gdb language shows the call, not launch 1\'s frame: bt is the call, info locals/args/registers/frame say no device thread, list shows main\'s lines around it', () => {
  const r = debug([`goto launch 1 step ${stepOf('cudaMemcpy(d_in')}`, 'bt', 'info locals', 'info args', 'info registers', 'info frame', 'list', 'launch 1', 'bt']);
  expect(r.status).toBe(1); // the four refusals fail the batch
  const copyLine = lineOf('cudaMemcpy(d_in');
  const none = `host cudaMemcpy at offbyone.cu:${copyLine} in main — no device thread here`;
  // gdb's list: five lines either side of the call's, the call's marked
  const listing = Array.from({ length: 11 }, (_, k) => copyLine - 5 + k).map((l) => `${l === copyLine ? '=>' : '  '}${String(l).padStart(5)}\t${source[l - 1]}`).join('\n');
  inOrder(r.out, [
    `[host ${COPY}`, `#0  ${none}`,
    `No locals: ${none}`, `No arguments: ${none}`, `No registers: ${none}`, `No stack: ${none}.`,
    listing,
    // into launch 1: prefix's frame (offbyone.cu: prefix(const int *in, int *a, int n))
    `#0  prefix (in=`,
  ]);
  // nothing of prefix's frame before it is entered
  expect(r.out.slice(0, r.out.indexOf('#0  prefix'))).not.toMatch(/prefix \(in=|%r\d/);
}, 120_000);
