/**
 * The PTX module model produced by the parser.
 *
 * Nodes keep byte offsets into the source (`Span`); line/column are computed on demand from the
 * module's line table (see diagnostics.ts), as TypeScript's own parser does. Integer literals are
 * `bigint` so 64-bit immediates never pass through a double.
 */
/** Whether the function has a body, without reading a deferred one. */
export function hasBody(f) {
    return f.deferred !== undefined || f.body !== undefined;
}
//# sourceMappingURL=ast.js.map