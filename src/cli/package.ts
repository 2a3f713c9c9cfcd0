/**
 * Where this installation of ptxdbg lives: the folder of its package.json, found from this
 * module's own location. The code runs from dist/src/ (tsc's output, which the tests use) or
 * from the bundle in dist/bin/ (the installed command), at different depths, so paths to
 * dist/cudart and package.json are found from the root, not counted in `..`s.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The package's root folder (undefined if no package.json of ptxdbg is above this module). */
export function packageRoot(): string | undefined {
  if (root !== undefined) return root;
  for (let d = dirname(fileURLToPath(import.meta.url)); ; d = dirname(d)) {
    const p = join(d, 'package.json');
    if (existsSync(p)) {
      try {
        if ((JSON.parse(readFileSync(p, 'utf8')) as { name?: unknown }).name === 'ptxdbg') return (root = d);
      } catch { /* not ours: keep looking */ }
    }
    if (dirname(d) === d) return undefined;
  }
}

/** The package's version, or 'unknown'. */
export function packageVersion(): string {
  const r = packageRoot();
  if (r === undefined) return 'unknown';
  try {
    return String((JSON.parse(readFileSync(join(r, 'package.json'), 'utf8')) as { version?: unknown }).version ?? 'unknown');
  } catch {
    return 'unknown';
  }
}
