/**
 * Tests run in any clone: none names a path of the machine it was written on. Fixtures are found
 * from the repository root (test/helpers.ts ROOT) or ../shared relative to it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './helpers.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return n === 'corpus' || n === 'fixtures' ? [] : sources(p);
    return /\.tsx?$/.test(n) ? [p] : [];
  });
}

test('no test or helper names an absolute path of a development machine', () => {
  const offenders: string[] = [];
  for (const f of sources(join(ROOT, 'test'))) {
    if (f.endsWith('hermetic.test.ts')) continue;
    readFileSync(f, 'utf8').split('\n').forEach((line, i) => {
      if (/['"`](\/work\/|\/home\/|\/root\/|\/Users\/|[A-Z]:\\\\)/.test(line)) offenders.push(`${relative(ROOT, f)}:${i + 1}: ${line.trim()}`);
    });
  }
  expect(offenders).toEqual([]);
});

test('every temporary directory a test makes is removed (tempDir, or rmSync in the same file)', () => {
  const offenders: string[] = [];
  for (const f of sources(join(ROOT, 'test'))) {
    const text = readFileSync(f, 'utf8');
    if (/\bmkdtempSync\(/.test(text) && !/\brmSync\(/.test(text)) offenders.push(relative(ROOT, f));
  }
  expect(offenders).toEqual([]);
});
