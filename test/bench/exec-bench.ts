/**
 * `npm run bench` part for whole programs: builds test/bench/exec-bench.cu with nvcc and runs it
 * under `ptxdbg exec`; prints its figures (per-launch overhead, memcpy throughput). Without nvcc
 * it says so and measures nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingTool, ROOT } from '../helpers.js';

const why = missingTool('nvcc');
if (why) {
  process.stdout.write(`exec bench skipped: ${why}\n`);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-exec-bench-'));
  try {
    const app = join(dir, 'exec-bench');
    const c = spawnSync('nvcc', ['-cudart', 'shared', '-arch=sm_80', '-O2', '-o', app, join(ROOT, 'test', 'bench', 'exec-bench.cu')], { encoding: 'utf8' });
    if (c.status !== 0) throw new Error(`nvcc failed:\n${c.stderr}`);
    const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'bin', 'ptxdbg.js'), 'exec', '--', app], { encoding: 'utf8' });
    process.stdout.write(`whole programs (ptxdbg exec):\n${r.stdout}${r.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
