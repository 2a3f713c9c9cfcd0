/** Shared CLI plumbing: reading a PTX file with located diagnostics, exit codes. */
import { type LoadedPtx, loadPtx, renderDiagnostics } from '../ptx/index.js';
import type { Program } from '../ptx/resolve.js';
import { MAX_SOURCE_BYTES, readBoundedText, ReadError } from '../io/bounded.js';
import { linkPtx } from '../ptx/link.js';

export class UsageError extends Error {}

/** A source file's text, bounded; unreadable files are usage errors (exit 2, like everywhere). */
export function readPtxText(path: string): string {
  try {
    return readBoundedText(path, MAX_SOURCE_BYTES);
  } catch (e) {
    if (e instanceof ReadError) throw new UsageError(e.message);
    throw e;
  }
}

export function readPtx(path: string): LoadedPtx {
  return loadPtx(readPtxText(path), path);
}

function readText(path: string): string {
  try {
    return readBoundedText(path, MAX_SOURCE_BYTES);
  } catch (e) {
    if (e instanceof ReadError) throw new UsageError(e.message);
    throw e;
  }
}

/**
 * The PTX text of `path`, or of `path` linked with `more` (src/ptx/link.ts); link errors are
 * printed and give undefined.
 */
export function linkedText(path: string, more: readonly string[]): string | undefined {
  if (more.length === 0) return readText(path);
  const inputs = [path, ...more].map((p) => ({ path: p, text: readText(p) }));
  const r = linkPtx(inputs);
  for (const w of r.warnings) process.stderr.write(`ptxdbg: warning: ${w}\n`);
  if (r.text === undefined) {
    process.stderr.write(r.errors.join('\n') + '\n');
    process.stderr.write(`linking ${inputs.length} files failed\n`);
  }
  return r.text;
}

/** Load a PTX file (linked with `more`, if any) or print its diagnostics and return undefined. */
export function requireProgram(path: string, more: readonly string[] = []): Program | undefined {
  let loaded: LoadedPtx;
  if (more.length === 0) loaded = readPtx(path);
  else {
    const text = linkedText(path, more);
    if (text === undefined) return undefined;
    loaded = loadPtx(text, `${path} (linked with ${more.join(', ')})`);
  }
  if (!loaded.program) {
    process.stderr.write(renderDiagnostics(loaded) + '\n');
    const n = loaded.diagnostics.length;
    process.stderr.write(`${n} error${n === 1 ? '' : 's'} in ${path}\n`);
    return undefined;
  }
  return loaded.program;
}
