/** Shared CLI plumbing: reading a PTX file with located diagnostics, exit codes. */
import { type LoadedPtx, loadPtx, renderDiagnostics } from '../ptx/index.js';
import type { Program } from '../ptx/resolve.js';
import { MAX_SOURCE_BYTES, readBoundedText, ReadError } from '../io/bounded.js';

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

/** Load a PTX file or print its diagnostics and return undefined. */
export function requireProgram(path: string): Program | undefined {
  const loaded = readPtx(path);
  if (!loaded.program) {
    process.stderr.write(renderDiagnostics(loaded) + '\n');
    const n = loaded.diagnostics.length;
    process.stderr.write(`${n} error${n === 1 ? '' : 's'} in ${path}\n`);
    return undefined;
  }
  return loaded.program;
}
