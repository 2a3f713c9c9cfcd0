/**
 * The Source pane's files: the session's source lookup (src/engine/sources.ts, one cache per
 * session shared with the gdb language) with each line made safe to draw (tabs expanded,
 * control characters removed), kept per file.
 */
import { candidates, type SourceCache, type SourceFile } from '#engine';
import { sanitize } from './text.js';

export { candidates, type SourceFile };

export class DrawnSources {
  private readonly cache = new Map<string, SourceFile | null>();

  /** `engine` gives the session's current lookup (it is replaced when a source dir is set). */
  constructor(private readonly engine: () => SourceCache) {}

  get(name: string): SourceFile | undefined {
    const hit = this.cache.get(name);
    if (hit !== undefined) return hit ?? undefined;
    const f = this.engine().get(name);
    const drawn = f ? { ...f, lines: f.lines.map((l) => sanitize(l)) } : null;
    this.cache.set(name, drawn);
    return drawn ?? undefined;
  }
}
