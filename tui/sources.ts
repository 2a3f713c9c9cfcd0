/**
 * The Source pane's files: the engine's source lookup (Engine.sourceFile, one cache per
 * session shared with the gdb language) with each line made safe to draw (tabs expanded,
 * control characters removed), kept per file.
 */
import { sanitize } from './text.js';

/** A source file as drawn: where it was found, and its lines. */
export interface SourceFile {
  readonly path: string;
  readonly lines: readonly string[];
}

export class DrawnSources {
  private readonly cache = new Map<string, SourceFile | null>();

  /** `lookup` is the engine's (it looks in the source dir too once one is set). */
  constructor(private readonly lookup: (name: string) => SourceFile | undefined) {}

  get(name: string): SourceFile | undefined {
    const hit = this.cache.get(name);
    if (hit !== undefined) return hit ?? undefined;
    const f = this.lookup(name);
    const drawn = f ? { ...f, lines: f.lines.map((l) => sanitize(l)) } : null;
    this.cache.set(name, drawn);
    return drawn ?? undefined;
  }
}
