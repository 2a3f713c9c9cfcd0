/**
 * The Source pane's files: the engine's source lookup (src/engine/sources.ts) with each line made
 * safe to draw (tabs expanded, control characters removed), cached per file.
 */
import { SourceCache as EngineSources, candidates, type SourceFile } from '../../engine/sources.js';
import { sanitize } from './text.js';

export { candidates, type SourceFile };

export class SourceCache {
  private readonly engine: EngineSources;
  private readonly cache = new Map<string, SourceFile | null>();

  constructor(ptxPath: string, sourceDir: string | undefined) {
    this.engine = new EngineSources(ptxPath, sourceDir);
  }

  get(name: string): SourceFile | undefined {
    const hit = this.cache.get(name);
    if (hit !== undefined) return hit ?? undefined;
    const f = this.engine.get(name);
    const drawn = f ? { ...f, lines: f.lines.map((l) => sanitize(l)) } : null;
    this.cache.set(name, drawn);
    return drawn ?? undefined;
  }
}
