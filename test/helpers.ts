/** Test helpers: locate shared fixtures and list PTX files. */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
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
