/** Front-end facade: parse and resolve a PTX file in one call. */
import type { PtxModule } from './ast.js';
import { type Diagnostic, formatDiagnostics } from './diagnostics.js';
import { parsePtx } from './parser.js';
import { type KernelProblems, type Program, resolveModule } from './resolve.js';

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

export function renderDiagnostics(loaded: Pick<LoadedPtx, 'module' | 'diagnostics'>): string {
  return formatDiagnostics(loaded.module.fileName, loaded.module.source, loaded.diagnostics);
}

/** A kernel's problems (KernelProblems), located in the module's text. */
export function renderKernelProblems(program: Program, e: KernelProblems): string {
  return formatDiagnostics(program.module.fileName, program.module.source, e.diagnostics);
}
