/**
 * Located diagnostics: `file:line:col: error: message`, the source line and a caret.
 * Line/column come from a line-start table built once per source (binary search per lookup).
 */
import type { Span } from './ast.js';

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  readonly severity: Severity;
  readonly message: string;
  readonly span: Span;
}

export class LineMap {
  private readonly starts: Int32Array;

  constructor(readonly source: string) {
    const starts: number[] = [0];
    for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 10) starts.push(i + 1);
    this.starts = Int32Array.from(starts);
  }

  /** 1-based line and column of a byte offset. */
  position(offset: number): { line: number; column: number } {
    const s = this.starts;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - s[lo]! + 1 };
  }

  lineText(line: number): string {
    const start = this.starts[line - 1] ?? this.source.length;
    const next = this.starts[line];
    let end = next === undefined ? this.source.length : next - 1;
    if (end > start && this.source.charCodeAt(end - 1) === 13) end--;
    return this.source.slice(start, end);
  }
}

/** gcc/clang style rendering with the offending line and a caret under the span. */
export function formatDiagnostic(fileName: string, map: LineMap, d: Diagnostic): string {
  const { line, column } = map.position(d.span.start);
  const full = map.lineText(line).replace(/\t/g, ' ');
  // a line longer than a terminal's (generated or hostile PTX: 100,000 characters) is shown as
  // the part around the column, each cut marked with '...'
  const from = full.length > EXCERPT ? Math.max(0, Math.min(column - 1 - EXCERPT / 2, full.length - EXCERPT)) : 0;
  const text = (from > 0 ? '...' : '') + full.slice(from, from + EXCERPT) + (from + EXCERPT < full.length ? '...' : '');
  const at = column - from + (from > 0 ? 3 : 0);
  const width = Math.max(1, Math.min(d.span.end - d.span.start, text.length - at + 1));
  const caret = ' '.repeat(Math.max(0, at - 1)) + '^' + (width > 1 ? '~'.repeat(width - 1) : '');
  return `${fileName}:${line}:${column}: ${d.severity}: ${d.message}\n  ${text}\n  ${caret}`;
}
/** The most characters of a source line a diagnostic shows. */
const EXCERPT = 160;

export function formatDiagnostics(fileName: string, source: string, ds: readonly Diagnostic[]): string {
  const map = new LineMap(source);
  return ds.map((d) => formatDiagnostic(fileName, map, d)).join('\n');
}
