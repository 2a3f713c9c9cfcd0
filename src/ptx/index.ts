/** Front-end facade: parse and resolve a PTX file in one call. */
import type { PtxModule } from './ast.js';
import { type Diagnostic, formatDiagnostics } from './diagnostics.js';
import { parsePtx } from './parser.js';
import { type Program, resolveModule } from './resolve.js';

export interface LoadedPtx {
  readonly module: PtxModule;
  /** Present when the parse had no errors (resolution needs a whole tree). */
  readonly program: Program | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

export function loadPtx(source: string, fileName: string): LoadedPtx {
  const { module, diagnostics } = parsePtx(source, fileName);
  if (diagnostics.some((d) => d.severity === 'error')) return { module, program: undefined, diagnostics };
  const r = resolveModule(module);
  return { module, program: r.diagnostics.length ? undefined : r.program, diagnostics: [...diagnostics, ...r.diagnostics] };
}

export function renderDiagnostics(loaded: LoadedPtx): string {
  return formatDiagnostics(loaded.module.fileName, loaded.module.source, loaded.diagnostics);
}
