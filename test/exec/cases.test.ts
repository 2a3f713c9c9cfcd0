/**
 * Runs the conformance cases (../shared/conformance) and our own samples through the built CLI
 * with the shared runner, both builds, with --races: race and barrier-error cases must be
 * reported by `ptxdbg races --json`, and race-free cases must report no race.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CONFORMANCE, missingTool, ROOT, SHARED, testIf } from '../helpers.js';

const RUNNER = join(SHARED, 'tools', 'run-cases.py');

/** Samples that do not pass yet, each with the reason (kept short and honest). */
const KNOWN_FAILING: Record<string, string> = {};

function cases(dir: string): string[] {
  return readdirSync(dir).filter((n) => existsSync(join(dir, n, 'case.json')) && !(n in KNOWN_FAILING)).sort();
}

function runCases(dir: string): { out: string; status: number | null } {
  const r = spawnSync('python3', [RUNNER, dir, '--only', cases(dir).join(','), '--races', '--timeout', '60'], { cwd: ROOT, encoding: 'utf8' });
  return { out: (r.stdout ?? '') + (r.stderr ?? ''), status: r.status };
}

const whyNot =
  missingTool('python3') ??
  (existsSync(RUNNER) && existsSync(CONFORMANCE) ? null : `the shared case runner or conformance cases are absent (${RUNNER})`);

testIf(whyNot)('every conformance case passes in -G and -O3, races included', () => {
  const { out, status } = runCases(CONFORMANCE);
  expect(out).toMatch(/\b(\d+) passed, 0 failed/);
  expect(status).toBe(0);
  expect(Number(/(\d+) passed/.exec(out)?.[1])).toBe(cases(CONFORMANCE).length * 2);
}, 600_000);

testIf(whyNot)('our samples pass in -G and -O3', () => {
  const dir = join(ROOT, 'samples');
  const { out, status } = runCases(dir);
  expect(out).toMatch(/\b(\d+) passed, 0 failed/);
  expect(status).toBe(0);
}, 600_000);
