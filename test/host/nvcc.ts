/**
 * Builds whole CUDA programs for the `ptxdbg exec` tests: `nvcc -cudart shared -arch=sm_80`, so
 * the program loads the ptxdbg runtime (dist/cudart) in place of NVIDIA's.
 */
import { spawn } from 'node:child_process';

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
