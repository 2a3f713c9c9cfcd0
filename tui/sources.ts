/**
 * Finding and caching the CUDA source files named by the PTX `.file` directives. nvcc records the
 * path on the machine that compiled it (often absolute and elsewhere), so we try, in order: the
 * path itself relative to the PTX directory, the base name next to the PTX, the base name in
 * `sourceDir`.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { baseName, lines, sanitize } from './text.js';

export interface SourceFile {
  /** As named in the PTX. */
  readonly name: string;
  /** Where we found it. */
  readonly path: string;
  readonly lines: readonly string[];
}

function isFile(p: string): boolean {
  try {
    return existsSync(p) && statSync(p).isFile();
  } catch {
    return false;
  }
}

export function candidates(name: string, ptxPath: string, sourceDir: string | undefined): string[] {
  const ptxDir = dirname(ptxPath);
  const out = [isAbsolute(name) ? name : resolve(ptxDir, name), join(ptxDir, baseName(name))];
  if (sourceDir) out.push(join(sourceDir, name), join(sourceDir, baseName(name)));
  return out;
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
        found = { name, path: p, lines: lines(readFileSync(p, 'utf8')).map((l) => sanitize(l)) };
        break;
      } catch { /* unreadable: try the next candidate */ }
    }
    this.cache.set(name, found);
    return found ?? undefined;
  }
}
