/**
 * `.cu` inputs for every subcommand: compile with `nvcc -G -ptx` into a cache keyed by the
 * source's hash, and take the launch file from beside the `.cu` (not the cached PTX).
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { MAX_SOURCE_BYTES, readBounded, ReadError } from '../io/bounded.js';
import { UsageError } from './common.js';
import type { LaunchFlags } from './run.js';

/** `kernel.cu`: compile with nvcc -G -ptx into a cache keyed by the source's hash. */
export function compileCuda(cuPath: string, arch: string): string {
  let src: Buffer;
  try {
    src = readBounded(cuPath, MAX_SOURCE_BYTES);
  } catch (e) {
    if (e instanceof ReadError) throw new UsageError(e.message);
    throw e;
  }
  const probe = spawnSync('nvcc', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new UsageError(`nvcc is not on the PATH, so ${cuPath} cannot be compiled here. Compile it elsewhere with\n  nvcc -G -ptx -arch=${arch} ${basename(cuPath)} -o ${basename(cuPath).replace(/\.cu$/, '.ptx')}\nand open the .ptx file: ptxdbg ${basename(cuPath).replace(/\.cu$/, '.ptx')}`);
  }
  const key = createHash('sha256').update(src).update(arch).digest('hex').slice(0, 16);
  const cacheRoot = process.env['PTXDBG_CACHE'] ?? join(process.env['XDG_CACHE_HOME'] ?? join(homedir() || tmpdir(), '.cache'), 'ptxdbg');
  const dir = join(cacheRoot, key);
  const out = join(dir, basename(cuPath).replace(/\.cu$/, '') + '.ptx');
  if (existsSync(out)) return out;
  mkdirSync(dir, { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  const r = spawnSync('nvcc', ['-G', '-ptx', `-arch=${arch}`, resolve(cuPath), '-o', tmp], { encoding: 'utf8', cwd: dirname(resolve(cuPath)) });
  if (r.status !== 0) throw new UsageError(`nvcc failed on ${cuPath}:\n${(r.stderr || r.stdout || String(r.error)).trim()}`);
  renameSync(tmp, out);
  // keep a copy of the source next to the PTX so the Source pane finds it
  writeFileSync(join(dir, basename(cuPath)), src);
  return out;
}


/**
 * The PTX to read for `file`: itself, or for a `.cu` the compiled PTX, with the launch file found
 * next to the `.cu` when no launch was given.
 */
export function ptxInput(file: string, arch: string | undefined, flags: LaunchFlags): { ptxPath: string; flags: LaunchFlags } {
  if (!file.endsWith('.cu')) return { ptxPath: file, flags };
  const ptxPath = compileCuda(file, arch ?? 'sm_80');
  if (flags.launch || flags.grid || flags.block || flags.arg?.length) return { ptxPath, flags };
  const stem = basename(file).replace(/\.cu$/, '');
  const found = [join(dirname(file), `${stem}.launch.json`), join(dirname(file), 'launch.json')].find((p) => existsSync(p));
  return { ptxPath, flags: found ? { ...flags, launch: found } : flags };
}
