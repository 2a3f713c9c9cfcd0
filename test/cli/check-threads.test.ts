/**
 * `check` of a large module sweeps shares of its functions on worker threads (cli/check-sweep.ts):
 * the verdict is the same as on one thread wherever the problem sits, and a module with a problem
 * is then reported by the whole load, so the message is the one-thread message. The workers are
 * the built ones (dist/bin/check-worker.js, `npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sweepModule } from '../../src/cli/check-sweep.js';
import { ROOT, testIf } from '../helpers.js';

const WORKER = join(ROOT, 'dist', 'bin', 'check-worker.js');
const withBuild = testIf(existsSync(WORKER) ? null : 'the CLI is not built (npm run build)');
const worker = pathToFileURL(WORKER);

const HEAD = '.version 8.0\n.target sm_80\n.address_size 64\n\n';
/** Kernel `k<i>`; `bad` gives it redux.sync.min.f32, which the interpreter cannot run. */
function kernel(i: number, bad: boolean): string {
  return `.visible .entry k${i}(.param .u64 out)\n{\n  .reg .b32 %r<4>;\n  mov.u32 %r1, %tid.x;\n  ${bad ? 'redux.sync.min.f32 %r2, %r1, 0xffffffff;' : 'add.u32 %r2, %r1, 1;'}\n  ret;\n}\n\n`;
}
function module(n: number, badAt = -1): string {
  let s = HEAD;
  for (let i = 0; i < n; i++) s += kernel(i, i === badAt);
  return s;
}

describe('check on several threads', () => {
  withBuild('a clean module is clean on 1 and on 3 threads', async () => {
    expect(await sweepModule(module(9), 'm.ptx', { threads: 1 })).toBe(true);
    expect(await sweepModule(module(9), 'm.ptx', { threads: 3, worker })).toBe(true);
  });

  withBuild('a problem in the first, middle or last share (this thread or a worker) is found', async () => {
    for (const at of [0, 4, 8]) {
      expect(await sweepModule(module(9, at), 'm.ptx', { threads: 3, worker })).toBe(false);
    }
  });

  test('a worker that fails gives no verdict of clean', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-check-threads-'));
    try {
      const failing = join(dir, 'worker.mjs');
      writeFileSync(failing, "throw new Error('worker failed');\n");
      expect(await sweepModule(module(9), 'm.ptx', { threads: 3, worker: pathToFileURL(failing) })).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a worker entry that is not there: one thread does it all', async () => {
    const missing = pathToFileURL(join(ROOT, 'test', 'cli', 'no-such-worker.js'));
    expect(await sweepModule(module(9, 8), 'm.ptx', { threads: 3, worker: missing })).toBe(false);
    expect(await sweepModule(module(9), 'm.ptx', { threads: 3, worker: missing })).toBe(true);
  });

  withBuild('ptxdbg check --workers 3: what the user reads is what one thread gives', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-check-threads-'));
    try {
      const cli = (args: string[]) => spawnSync(process.execPath, [join(ROOT, 'dist', 'bin', 'ptxdbg.js'), 'check', ...args], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
      writeFileSync(join(dir, 'good.ptx'), module(9));
      const good = cli(['--workers', '3', 'good.ptx']);
      expect([good.status, good.stdout, good.stderr]).toEqual([0, 'good.ptx: ok\n', '']);
      // the unsupported instruction is in k8, in the last share: line and column from the text
      const text = module(9, 8);
      writeFileSync(join(dir, 'bad.ptx'), text);
      const lines = text.split('\n');
      const line = lines.findIndex((l) => l.includes('redux')) + 1;
      const column = lines[line - 1]!.indexOf('redux') + 1;
      const three = cli(['--workers', '3', 'bad.ptx']);
      const one = cli(['--workers', '1', 'bad.ptx']);
      expect(three.status).toBe(1);
      expect(three.stderr).toMatch(new RegExp(`^bad\\.ptx:${line}:${column}: error: not supported by the interpreter: .*redux`));
      expect([three.status, three.stdout, three.stderr]).toEqual([one.status, one.stdout, one.stderr]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
