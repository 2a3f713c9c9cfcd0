/**
 * Key-to-frame latency of the TUI on a large recording (not a jest test: run it by hand).
 *
 *   npm run build && node dist/test/tui/perf.js [blocks=3072] [cols=100] [rows=30]
 *
 * saxpy with `blocks` x 256 threads (3072 blocks: about 1.1 million warp-steps). For each key,
 * the time from writing it to the fake TTY stdin until Ink has written the new frame.
 */
import { engineOf } from '../../src/engine/api.js';
import { existsSync } from 'node:fs';
import { PassThrough, Writable } from 'node:stream';
import { join } from 'node:path';
import { openSession } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { runTui } from '../../tui/index.js';
import { tuiOf } from '../../src/cli/tui-console.js';
import { ROOT } from '../helpers.js';

const blocks = Number(process.argv[2] ?? 3072);
const cols = Number(process.argv[3] ?? 100);
const rows = Number(process.argv[4] ?? 30);
const n = blocks * 256;
// Compiled into dist/test/tui, ROOT is dist/.
const root = existsSync(join(ROOT, 'samples')) ? ROOT : join(ROOT, '..');

let lastWrite = 0;
let frames = 0;
class Out extends Writable {
  readonly isTTY = true;
  readonly columns = cols;
  readonly rows = rows;
  override _write(_c: Buffer, _e: string, cb: () => void): void {
    lastWrite = performance.now();
    frames++;
    cb();
  }
}
class In extends PassThrough {
  readonly isTTY = true;
  setRawMode(): this { return this; }
  ref(): this { return this; }
  unref(): this { return this; }
}

const t0 = performance.now();
const session = openSession({
  ptxPath: join(root, 'samples', 'saxpy', 'kernel.G.ptx'), grid: String(blocks), block: '256',
  arg: [`s32:${n}`, 'f32:2.5', `f32[${n}]`, `f32[${n}]`],
});
process.stderr.write(`recorded ${session.total} warp-steps in ${(performance.now() - t0).toFixed(0)} ms\n`);

const out = new Out();
const inp = new In();
const done = runTui({ ...tuiOf(session), title: 'perf', stdout: out as unknown as NodeJS.WriteStream, stdin: inp as unknown as NodeJS.ReadStream });
await new Promise((r) => setTimeout(r, 1000));

/** CPU time (ms) of the last press: wall time is unreliable on a busy machine. */
const cpuTimes: number[] = [];

async function press(key: string): Promise<number> {
  // Wait out Ink's frame throttle so each key starts a fresh frame.
  await new Promise((r) => setTimeout(r, 40));
  const before = frames;
  const c0 = process.cpuUsage();
  const t = performance.now();
  inp.write(key);
  const deadline = t + 5000;
  while (frames === before && performance.now() < deadline) await new Promise((r) => setImmediate(r));
  const c = process.cpuUsage(c0);
  cpuTimes.push((c.user + c.system) / 1000);
  return lastWrite - t;
}

// Pairs that undo each other, so every press changes the screen (an unchanged frame is not written).
const pairs: [string, string, string, string][] = [
  ['n', 'next', 'N', 'reverse-next'], ['s', 'step', 'S', 'reverse-step'], ['i', 'stepi', 'I', 'reverse-stepi'],
  [']', '+1% of the run', '[', '-1% of the run'], ['\x1b[B', 'cursor down', '\x1b[A', 'cursor up'], ['\t', 'next pane', '\x1b[Z', 'previous pane'],
];
const report: string[] = [];
const line = (what: string, ts: number[]): string => {
  ts.sort((a, b) => a - b);
  return `${what.padEnd(16)} median ${ts[Math.floor(ts.length / 2)]!.toFixed(1).padStart(6)} ms   max ${ts[ts.length - 1]!.toFixed(1).padStart(6)} ms`;
};
for (const [a, wa, b, wb] of pairs) {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < 10; i++) {
    ta.push(await press(a));
    tb.push(await press(b));
  }
  report.push(line(wa, ta), line(wb, tb));
}
report.push(line('CPU per key', cpuTimes));
inp.write('q');
await done;

// The engine's share: the same commands and queries without the UI.
const engine: string[] = [];
for (const [a, b] of [['next', 'reverse-next'], ['step', 'reverse-step'], ['stepi', 'reverse-stepi']] as const) {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < 10; i++) {
    for (const [cmd, ts] of [[a, ta], [b, tb]] as const) {
      const t = performance.now();
      consoleOf(engineOf(session)).execute(cmd);
      session.where(); session.warps(); session.registers(); session.output();
      ts.push(performance.now() - t);
    }
  }
  engine.push(line(`engine ${a}`, ta), line(`engine ${b}`, tb));
}
process.stdout.write(`${cols}x${rows}, ${session.total} warp-steps\n${report.join('\n')}\n${engine.join('\n')}\n`);
