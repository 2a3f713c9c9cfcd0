/** Test helpers: locate shared fixtures and list PTX files. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The repository root, whether this runs from test/ (jest) or from the build in dist/test/. */
export const ROOT = basename(resolve(HERE, '..')) === 'dist' ? resolve(HERE, '..', '..') : resolve(HERE, '..');
export const SHARED = resolve(ROOT, '..', 'shared');
export const CONFORMANCE = join(SHARED, 'conformance');

export function ptxFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...ptxFilesUnder(p));
    else if (name.endsWith('.ptx')) out.push(p);
  }
  return out.sort();
}

/**
 * `test` when `why` is null, otherwise `test.skip` after printing why, so that a skipped test is
 * never silent (jest's own skip prints nothing but the count).
 */
export function testIf(why: string | null): typeof test {
  if (why === null) return test;
  process.stderr.write(`skipped: ${why}\n`);
  return test.skip as typeof test;
}

/** Why a program cannot be run (null when `cmd --version` works). */
export function missingTool(cmd: string): string | null {
  const r = spawnSync(cmd, ['--version'], { encoding: 'utf8' });
  return r.error || r.status !== 0 ? `${cmd} is not on the PATH` : null;
}

const madeDirs: string[] = [];
function removeMadeDirs(): void {
  for (const d of madeDirs.splice(0)) rmSync(d, { recursive: true, force: true });
}
// jest loads this module once per test file, so the hook runs after that file's tests; outside jest
// (benches, the fuzzer) the directories go when the process exits.
if (typeof afterAll === 'function') afterAll(removeMadeDirs);
else process.once('exit', removeMadeDirs);

/** A fresh directory under the system's temp folder, removed after the test file (tests leave nothing behind). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}
