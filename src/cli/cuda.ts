/**
 * `.cu` inputs for every subcommand: compile with `nvcc -G -ptx` into a cache keyed by the
 * source's hash, and take the launch file from beside the `.cu` (not the cached PTX).
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { compileCuda as engineCompileCuda, launchFileBeside } from '../engine/load.js';
import { EngineError } from '../engine/errors.js';
import { UsageError } from './common.js';
import type { LaunchFlags } from './run.js';

/** `kernel.cu`: compile with nvcc -G -ptx (engine/load.ts); a failure is a usage error here. */
export function compileCuda(cuPath: string, arch: string): string {
  try {
    return engineCompileCuda(cuPath, arch);
  } catch (e) {
    if (e instanceof EngineError) throw new UsageError(e.message);
    throw e;
  }
}

/**
 * The PTX to read for `file`: itself, or for a `.cu` the compiled PTX, with the launch file found
 * next to the `.cu` when no launch was given.
 */
export function ptxInput(file: string, arch: string | undefined, flags: LaunchFlags): { ptxPath: string; flags: LaunchFlags } {
  // a capture bundle (`ptxdbg capture`): its kernel.ptx, with its launch.json found beside it
  if (existsSync(join(file, 'kernel.ptx')) && statSync(file).isDirectory()) return { ptxPath: join(file, 'kernel.ptx'), flags };
  if (!file.endsWith('.cu')) return { ptxPath: file, flags };
  const ptxPath = compileCuda(file, arch ?? 'sm_80');
  if (flags.launch || flags.grid || flags.block || flags.arg?.length) return { ptxPath, flags };
  const found = launchFileBeside(file);
  return { ptxPath, flags: found ? { ...flags, launch: found } : flags };
}
