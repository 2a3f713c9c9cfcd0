/**
 * Finding and caching the CUDA source files named by the PTX `.file` directives. nvcc records the
 * path on the machine that compiled it (often absolute and elsewhere), so we try, in order: the
 * path itself (relative to the PTX directory), the base name next to the PTX, then `sourceDir`.
 * Shared by the command language (`list`, stop lines) and the TUI's Source pane.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** Base name of a path (either separator). */
export function baseName(p: string): string {
  const i = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return i < 0 ? p : p.slice(i + 1);
}

export interface SourceFile {
  /** As named in the PTX. */
  readonly name: string;
  /** Where we found it. */
  readonly path: string;
  /** Its lines, without a trailing empty line for a final newline. */
  readonly lines: readonly string[];
}

export function candidates(name: string, ptxPath: string, sourceDir: string | undefined): string[] {
  const ptxDir = dirname(ptxPath);
  const out = [isAbsolute(name) ? name : resolve(ptxDir, name), join(ptxDir, baseName(name))];
  if (sourceDir) out.push(join(sourceDir, name), join(sourceDir, baseName(name)));
  return out;
}

function isFile(p: string): boolean {
  try {
    return existsSync(p) && statSync(p).isFile();
  } catch {
    return false;
  }
}

export class SourceCache {
  private readonly cache = new Map<string, SourceFile | null>();

  constructor(private readonly ptxPath: string, private readonly sourceDir: string | undefined) {}

  /** The file named `name` in the PTX, or undefined when it cannot be found or read. */
  get(name: string): SourceFile | undefined {
    const hit = this.cache.get(name);
    if (hit !== undefined) return hit ?? undefined;
    let found: SourceFile | null = null;
    for (const p of candidates(name, this.ptxPath, this.sourceDir)) {
      if (!isFile(p)) continue;
      try {
        const lines = readFileSync(p, 'utf8').split('\n');
        if (lines[lines.length - 1] === '') lines.pop();
        found = { name, path: p, lines };
        break;
      } catch { /* unreadable: try the next candidate */ }
    }
    this.cache.set(name, found);
    return found ?? undefined;
  }
}
