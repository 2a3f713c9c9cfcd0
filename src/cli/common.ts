/** Shared CLI plumbing: reading a PTX file with located diagnostics, exit codes. */
import type { PtxSource } from '../exec/parallel/protocol.js';
import { type LoadedPtx, type LoadOptions, loadPtx, renderDiagnostics, renderKernelProblems } from '../ptx/index.js';
import type { KernelProblems, Program } from '../ptx/resolve.js';
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

/** Prints a kernel's located problems as a load failure prints the module's. */
export function reportKernelProblems(path: string, program: Program, e: KernelProblems): void {
  process.stderr.write(renderKernelProblems(program, e) + '\n');
  const n = e.diagnostics.length;
  process.stderr.write(`${n} error${n === 1 ? '' : 's'} in ${path} (in the code of kernel ${e.kernel})\n`);
}

/**
 * Load a PTX file (linked with `more`, if any) or print its diagnostics and return undefined.
 * `opts` is required: a command that runs a kernel loads lazily (only that kernel's code is read,
 * when it launches), a command that describes the whole module (`info`) must not, or it sees
 * no function bodies at all.
 */
export function requireProgram(path: string, more: readonly string[], opts: LoadOptions): Program | undefined {
  return requireProgramSource(path, more, opts)?.program;
}

/** requireProgram, with the text and name the Program was loaded from (worker threads load it again). */
export function requireProgramSource(path: string, more: readonly string[], opts: LoadOptions): { program: Program; source: PtxSource } | undefined {
  let source: PtxSource;
  if (more.length === 0) source = { text: readPtxText(path), label: path };
  else {
    const text = linkedText(path, more);
    if (text === undefined) return undefined;
    source = { text, label: `${path} (linked with ${more.join(', ')})` };
  }
  const loaded: LoadedPtx = loadPtx(source.text, source.label, opts);
  if (!loaded.program) {
    process.stderr.write(renderDiagnostics(loaded) + '\n');
    const n = loaded.diagnostics.length;
    process.stderr.write(`${n} error${n === 1 ? '' : 's'} in ${path}\n`);
    return undefined;
  }
  return { program: loaded.program, source };
}
