/**
 * What the program-timeline tests share: where their CUDA programs live, the CLI they run, why
 * they skip, and the line of a source that holds a text (expected lines come from the sources).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { missingTool, ROOT } from '../helpers.js';
import { nvccBuildInto } from './nvcc.js';

export const TIMELINE_DIR = join(ROOT, 'samples', 'apps', 'timeline');
export const CLI = join(ROOT, 'dist', 'bin', 'ptxdbg.js');
/** Why these tests cannot run here (no nvcc, or the replacement runtime not built), or null. */
export const whyNoTimeline: string | null = missingTool('nvcc') ?? (existsSync(join(ROOT, 'dist', 'cudart', 'libcudart.so.13')) ? null : 'the ptxdbg runtime is not built (dist/cudart)');

/** The 1-based line of samples/apps/timeline/`file` holding `text`; throws unless exactly one does. */
export function lineIn(file: string, text: string): number {
  const lines = readFileSync(join(TIMELINE_DIR, file), 'utf8').split('\n');
  const at = lines.flatMap((l, i) => (l.includes(text) ? [i + 1] : []));
  if (at.length !== 1) throw new Error(`${file}: ${at.length} lines hold ${text}`);
  return at[0]!;
}

/**
 * Builds samples/apps/timeline/NAME.cu (`-g -G`: host lines for call sites, device lines for
 * stops) into a temp dir removed after the test file; resolves to that dir, or '' where
 * `whyNoTimeline` says the tests cannot run.
 */
export async function buildTimeline(prefix: string, name: string): Promise<string> {
  if (whyNoTimeline) return '';
  return nvccBuildInto(prefix, [{ name, source: join(TIMELINE_DIR, `${name}.cu`), flags: ['-g', '-G'] }]);
}

/** `ptxdbg ./APP --batch --ex C…` in `dir` (a buildTimeline dir): what the user reads, and the exit status. */
export function batchIn(dir: string, app: string, commands: readonly string[]): { out: string; err: string; status: number | null } {
  const r = spawnSync(process.execPath, [CLI, `./${app}`, '--batch', ...commands.flatMap((c) => ['--ex', c])], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { out: r.stdout, err: r.stderr, status: r.status };
}

/** `out` holds `wants` in this order (a failure shows the first one missing and what followed). */
export function inOrder(out: string, wants: readonly string[]): void {
  let at = 0;
  for (const x of wants) {
    const i = out.indexOf(x, at);
    expect(i >= 0 ? x : `${x}   (not found after offset ${at} of:\n${out.slice(at)})`).toBe(x);
    at = i + x.length;
  }
}
