/**
 * Writes in a whole-program session (issue #25): `print x = v` / `set var` fork a what-if timeline
 * of the launch in focus, as in a single-kernel session (gdb's semantics within the launch: the
 * write is seen by print and by later execution); the launches after it stay the recorded ones,
 * and the messages say so. At a host call there is no device thread: writes are refused there.
 * `ptxdbg ./offbyone --batch` on samples/apps/timeline/offbyone.cu.
 *
 * Expected values from the source, by hand (n = 8, in[i] = i + 1): prefix leaves
 * a[i] = i(i+1)/2 (a[5] = 15), scale b[i] = 2 a[i] (b[5] = 30), finish out[i] = b[i] + 1
 * (out[5] = 31). finish<<<4, 2>>>: i = 5 is block (2,0,0) thread (1,0,0).
 */
import { spawnSync } from 'node:child_process';
import { testIf } from '../helpers.js';
import { batchIn, buildTimeline, CLI, inOrder, lineIn, whyNoTimeline } from './timeline-common.js';

const run = testIf(whyNoTimeline);

let bin: string;
beforeAll(async () => { bin = await buildTimeline('ptxdbg-timeline-writes-', 'offbyone'); }, 600_000);

const FINISH_LINE = lineIn('offbyone.cu', 'if (i < n) out[i] = b[i] + 1');
const COPY_LINE = lineIn('offbyone.cu', 'cudaMemcpy(d_in');

const debug = (commands: readonly string[]): ReturnType<typeof batchIn> => batchIn(bin, 'offbyone', commands);


run('in launch 3, print b[5] = 7 forks the launch: print sees 7, and thread 5 then writes out[5] = 7 + 1; the original recording still has 31', () => {
  const r = debug([
    'launch 3', 'print b[5] = 7', 'print b[5]', `break offbyone.cu:${FINISH_LINE} if i == 5`, 'continue', 'print i', 'next', 'print out[5]',
    'timeline original', 'print out[5]',
  ]);
  expect(r.status).toBe(0);
  inOrder(r.out, [
    '$1 = 7',
    // one line: what forked, and that the later launches are not re-run
    '[what-if 1] written at step 0; launch 3 re-ran with it from step 0; later launches are the recorded ones, not re-executed with it',
    '$2 = 7',
    `Breakpoint 1, block (2,0,0) thread (1,0,0) at finish (offbyone.cu:${FINISH_LINE})`, 'what-if 1: step', '$3 = 5',
    // next runs line 27 with the written b[5]
    '$4 = 8',
    'Now in the original recording', '$5 = 31',
  ]);
}, 120_000);

run('a write in launch 2 is not carried into launch 3: continue says so, and launch 3 reads what the recording holds; launch 2 stays in its what-if', () => {
  const r = debug(['launch 2', 'print a[5] = 100', 'break finish', 'continue', 'print b[5]', 'launch 2', 'print a[5]', 'timeline original', 'print a[5]']);
  expect(r.status).toBe(0);
  inOrder(r.out, [
    '$1 = 100', 'launch 2 re-ran with it from step 0; later launches are the recorded ones, not re-executed with it',
    'Breakpoint 1, block (0,0,0) thread (0,0,0) at finish',
    '(launch 3 is as recorded: the what-if writes of launch 2 are not carried into other launches)',
    // b[5] = 2 a[5] as recorded (15), not 2 * 100
    '$2 = 30',
    '$3 = 100', 'Now in the original recording', '$4 = 15',
  ]);
}, 120_000);

run('a write at a later step of a launch: the fork re-runs from the launch\'s start state, and the recording is left as it was', () => {
  // scale reads a[5] in block 1; whatever step the write is made at, the original keeps a[5] = 15
  const r = debug(['goto launch 2 step 40', 'print a[5] = 100', 'timeline original', 'print a[5]', 'goto launch 2 step 0', 'print a[5]', 'timeline 1', 'print a[5]']);
  expect(r.status).toBe(0);
  inOrder(r.out, ['$1 = 100', '[what-if 1] written at step 40', 'Now in the original recording at step 40', '$2 = 15', '$3 = 15', 'Now in what-if 1', '$4 = 15']);
}, 120_000);

run('at a host call writes are refused in one line (no device thread there); reads and convenience variables still work', () => {
  const r = debug(['goto launch 1 step -2', 'print in[4] = 9', 'set var in[4] = 9', 'print in[4]', 'set var $k = 3', 'print $k * 2']);
  expect(r.status).toBe(1); // the refused writes fail the batch
  const refusal = `cannot write at a host call (cudaMemcpy at offbyone.cu:${COPY_LINE} in main): no device thread runs there; go to a launch (launch N) to write`;
  inOrder(r.out, [refusal, refusal, '$1 = 5', '$2 = 6']);
  expect(r.out).not.toContain('what-if');
}, 120_000);

run('exec --break (one launch over the program\'s live device memory): a write forks from the launch\'s start and leaves the recording as it was', () => {
  // scale<<<2, 4>>>: thread i = 5 reads a[5] (15) and writes b[5] = 2 a[5]. A write of a[5] = 100
  // at step 0 gives b[5] = 200 at the end; the original still has a[5] = 15, b[5] = 30
  const r = spawnSync(process.execPath, [CLI, 'exec', '--break', 'scale', '--batch', ...['print a[5] = 100', 'goto 46', 'print b[5]', 'timeline original', 'print b[5]', 'print a[5]'].flatMap((c) => ['--ex', c]), '--', './offbyone'], { cwd: bin, encoding: 'utf8', timeout: 120_000 });
  inOrder(r.stdout, ['$1 = 100', '[what-if 1] written at step 0', '$2 = 200', 'Now in the original recording at step 46', '$3 = 30', '$4 = 15']);
}, 120_000);
