/**
 * The replacement runtime loads in place of NVIDIA's: an app built with `nvcc -cudart shared`
 * resolves every versioned symbol it needs from dist/cudart/libcudart.so.13 and runs to its end.
 * Outside `ptxdbg exec` it has no device: every call fails with cudaErrorNoDevice (100), as
 * NVIDIA's runtime does on a machine without a GPU, and it says how to run the program.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingTool, ROOT, testIf } from '../helpers.js';

const why = missingTool('nvcc') ?? missingTool('cc');

testIf(why)('an nvcc -cudart shared app runs on our libcudart.so.13', () => {
  const b = spawnSync('node', [join(ROOT, 'scripts', 'build-cudart.mjs')], { encoding: 'utf8' });
  expect(b.status).toBe(0);
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-cudart-'));
  try {
    writeFileSync(join(dir, 'a.cu'), [
      '#include <cstdio>',
      '__global__ void k(int *p) { p[threadIdx.x] = 1; }',
      'int main() { int *d = 0; cudaError_t e = cudaMalloc(&d, 64); k<<<1, 4>>>(d);',
      '  printf("malloc=%s sync=%d\\n", cudaGetErrorName(e), (int)cudaDeviceSynchronize()); return 3; }',
      '',
    ].join('\n'));
    const c = spawnSync('nvcc', ['-cudart', 'shared', '-o', join(dir, 'a'), join(dir, 'a.cu')], { encoding: 'utf8' });
    expect(c.status).toBe(0);
    const r = spawnSync(join(dir, 'a'), [], { encoding: 'utf8', env: { ...process.env, LD_LIBRARY_PATH: join(ROOT, 'dist', 'cudart') } });
    expect(r.status).toBe(3); // the app's own exit code
    expect(r.stdout).toBe('malloc=cudaErrorNoDevice sync=100\n');
    expect(r.stderr).toContain('run it as `ptxdbg exec -- PROGRAM`');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
