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
export declare class LineMap {
    readonly source: string;
    private readonly starts;
    constructor(source: string);
    /** 1-based line and column of a byte offset. */
    position(offset: number): {
        line: number;
        column: number;
    };
    lineText(line: number): string;
}
/** gcc/clang style rendering with the offending line and a caret under the span. */
export declare function formatDiagnostic(fileName: string, map: LineMap, d: Diagnostic): string;
export declare function formatDiagnostics(fileName: string, source: string, ds: readonly Diagnostic[]): string;
