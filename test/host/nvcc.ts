/**
 * Builds whole CUDA programs for the `ptxdbg exec` tests: `nvcc -cudart shared -arch=sm_80`, so
 * the program loads the ptxdbg runtime (dist/cudart) in place of NVIDIA's.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from '../helpers.js';

/** Build `source` into `out`; resolves to nvcc's complaint when it fails, else undefined. */
export function nvccBuild(source: string, out: string, flags: readonly string[] = []): Promise<string | undefined> {
  return new Promise((done) => {
    const p = spawn('nvcc', ['-cudart', 'shared', '-arch=sm_80', '-o', out, source, ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (b: Buffer) => { err += b.toString(); });
    p.on('error', (e) => done(e.message));
    p.on('close', (code) => done(code === 0 ? undefined : err || `nvcc exited with ${code}`));
  });
}

/** Build several programs two at a time (the machine may have two cores); the failures by name. */
export async function nvccBuildAll(jobs: readonly { name: string; source: string; out: string; flags?: readonly string[] }[]): Promise<Map<string, string>> {
  const failures = new Map<string, string>();
  const queue = [...jobs];
  const worker = async (): Promise<void> => {
    for (let j = queue.shift(); j !== undefined; j = queue.shift()) {
      const err = await nvccBuild(j.source, j.out, j.flags);
      if (err !== undefined) failures.set(j.name, err);
    }
  };
  await Promise.all([worker(), worker()]);
  return failures;
}

/**
 * Build `jobs` (each into `dir/name`) in a fresh temp directory that is removed after the test
 * file; throws with nvcc's complaints when any fails. Resolves to the directory.
 */
export async function nvccBuildInto(prefix: string, jobs: readonly { name: string; source: string; flags?: readonly string[] }[]): Promise<string> {
  const dir = tempDir(prefix);
  const failures = await nvccBuildAll(jobs.map((j) => ({ ...j, out: join(dir, j.name) })));
  if (failures.size) throw new Error(`nvcc failed: ${[...failures].map(([n, e]) => `${n}: ${e}`).join('\n')}`);
  return dir;
}
