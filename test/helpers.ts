/** Test helpers: locate shared fixtures and list PTX files. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
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
