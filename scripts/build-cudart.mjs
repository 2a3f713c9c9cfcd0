// Builds the replacement CUDA runtime (src/cudart) into dist/cudart/libcudart.so.13 with the
// system C compiler. Never fails the build: without `cc` it prints a notice and stops.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'cudart');
mkdirSync(out, { recursive: true });
const src = join(root, 'src', 'cudart');
const r = spawnSync('cc', ['-O2', '-fPIC', '-shared', '-Wall', '-Wl,-soname,libcudart.so.13',
  `-Wl,--version-script=${join(src, 'libcudart.map')}`, '-o', join(out, 'libcudart.so.13'), join(src, 'cudart.c')],
  { encoding: 'utf8' });
if (r.error) console.warn('notice: no C compiler (cc) found; the ptxdbg CUDA runtime (ptxdbg exec) was not built');
else if (r.status !== 0) console.warn(`notice: building the ptxdbg CUDA runtime failed; ptxdbg exec is unavailable\n${r.stderr}`);
