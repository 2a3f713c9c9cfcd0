/** Front-end facade: parse and resolve a PTX file in one call. */
import type { PtxModule } from './ast.js';
import { type Diagnostic, formatDiagnostics } from './diagnostics.js';
import { KnownKeys } from './known-keys.js';
import { parsePtx } from './parser.js';
import { type KernelProblems, type ProgFunction, type Program, resolveModule } from './resolve.js';

export interface LoadedPtx {
  readonly module: PtxModule;
  /** Present when the parse had no errors (resolution needs a whole tree). */
  readonly program: Program | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

export interface LoadOptions {
  /**
   * Load to run kernels: function bodies are parsed and resolved when a kernel that reaches them
   * is about to run (`entryOf`), so problems in code no launched kernel reaches go unreported
   * (`ptxdbg check` loads everything).
   */
  readonly lazy?: boolean;
}

export function loadPtx(source: string, fileName: string, opts: LoadOptions = {}): LoadedPtx {
  const lazy = opts.lazy === true;
  const { module, diagnostics } = parsePtx(source, fileName, { deferBodies: lazy });
  if (diagnostics.some((d) => d.severity === 'error')) return { module, program: undefined, diagnostics };
  const r = resolveModule(module, { lazy });
  return { module, program: r.diagnostics.length ? undefined : r.program, diagnostics: [...diagnostics, ...r.diagnostics] };
}

/**
 * Whether the module is clean, found the fast way: a body whose statements are all of kinds that
 * passed is clean unparsed (SweepOptions.byKinds); every other body is parsed, resolved and handed
 * to `problems` (the caller's own count for that function, e.g. instructions the interpreter cannot
 * run) one at a time and then dropped, so the heap never holds the whole module's code. It proves
 * a module clean only: on anything found (or a module it does not sweep, with `.struct` types a
 * body could name before their declaration) it says false, and the caller reports through
 * loadPtx, whose diagnostics and their order are the reference.
 */
export function sweepClean(
  source: string, fileName: string, problems: (program: Program, fn: ProgFunction) => number, share: Share = { index: 0, of: 1 }, opts: SweepOptions = {},
): boolean {
  const { module, diagnostics } = parsePtx(source, fileName, { deferBodies: true });
  if (diagnostics.length > 0 || module.items.some((i) => i.kind === 'struct')) return false;
  const { program, diagnostics: resolveDiags } = resolveModule(module, { lazy: true });
  if (resolveDiags.length > 0 || program.deferred === undefined) return false;
  let found = 0;
  const mine = shareOf(program.bodies.map((d) => d.span.start), source.length, share);
  // bodies clean by the kinds of their statements are not parsed (known-keys.ts)
  const known = opts.byKinds === false ? undefined : new KnownKeys(module, program, problems);
  known?.prepare(program.bodies, mine);
  const bodyDiags = program.deferred.sweep((fn) => {
    found += problems(program, fn);
  }, (i) => mine[i] === 1 && known?.clean(i) !== true);
  return bodyDiags.length === 0 && found === 0;
}

export interface SweepOptions {
  /**
   * Call bodies clean by the kinds of their statements (known-keys.ts; default): `problems` then
   * sees a stand-in function per batch of kinds and the bodies the shortcut cannot read, so it must
   * count what depends on the instructions' kinds alone (instruction selection does).
   */
  readonly byKinds?: boolean;
}

/** One of `of` shares of a module's bodies (sweepClean on several threads: each sweeps its own). */
export interface Share {
  readonly index: number;
  readonly of: number;
}

/**
 * Which bodies (1) fall in `share`: consecutive runs of about equal text, each body measured from
 * its start to the next one's. Every body falls in exactly one share.
 */
export function shareOf(starts: readonly number[], length: number, share: Share): Uint8Array {
  const mine = new Uint8Array(starts.length);
  const first = starts[0] ?? 0;
  const total = Math.max(1, length - first);
  for (let i = 0; i < starts.length; i++) {
    const end = starts[i + 1] ?? length;
    const middle = (starts[i]! + end) / 2 - first;
    if (Math.min(share.of - 1, Math.floor((middle / total) * share.of)) === share.index) mine[i] = 1;
  }
  return mine;
}

export function renderDiagnostics(loaded: Pick<LoadedPtx, 'module' | 'diagnostics'>): string {
  return formatDiagnostics(loaded.module.fileName, loaded.module.source, loaded.diagnostics);
}

/** A kernel's problems (KernelProblems), located in the module's text. */
export function renderKernelProblems(program: Program, e: KernelProblems): string {
  return formatDiagnostics(program.module.fileName, program.module.source, e.diagnostics);
}
