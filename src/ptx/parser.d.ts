/**
 * Recursive-descent PTX parser. Produces a whole module even after errors: a bad statement is
 * reported and skipped up to its `;` (or the enclosing `}`), and parsing resumes, so one run
 * reports several independent errors. Never throws on bad input.
 */
import type { PtxModule } from './ast.js';
import type { Diagnostic } from './diagnostics.js';
export interface ParseResult {
    readonly module: PtxModule;
    readonly diagnostics: readonly Diagnostic[];
}
export interface ParseOptions {
    /**
     * Leave function bodies as text until something reads them (FunctionDecl.deferred): loading a
     * module to run one kernel then reads only the bodies that kernel can reach. A body's own
     * syntax errors are reported when it is read (resolve.ts), not by this parse.
     */
    readonly deferBodies?: boolean;
}
export declare function parsePtx(source: string, fileName?: string, opts?: ParseOptions): ParseResult;
export declare function bodyEnd(source: string, open: number): number;
