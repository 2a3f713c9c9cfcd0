export class LineMap {
    source;
    starts;
    constructor(source) {
        this.source = source;
        const starts = [0];
        for (let i = 0; i < source.length; i++)
            if (source.charCodeAt(i) === 10)
                starts.push(i + 1);
        this.starts = Int32Array.from(starts);
    }
    /** 1-based line and column of a byte offset. */
    position(offset) {
        const s = this.starts;
        let lo = 0;
        let hi = s.length - 1;
        while (lo < hi) {
            const mid = (lo + hi + 1) >> 1;
            if (s[mid] <= offset)
                lo = mid;
            else
                hi = mid - 1;
        }
        return { line: lo + 1, column: offset - s[lo] + 1 };
    }
    lineText(line) {
        const start = this.starts[line - 1] ?? this.source.length;
        const next = this.starts[line];
        let end = next === undefined ? this.source.length : next - 1;
        if (end > start && this.source.charCodeAt(end - 1) === 13)
            end--;
        return this.source.slice(start, end);
    }
}
/** gcc/clang style rendering with the offending line and a caret under the span. */
export function formatDiagnostic(fileName, map, d) {
    const { line, column } = map.position(d.span.start);
    const text = map.lineText(line).replace(/\t/g, ' ');
    const width = Math.max(1, Math.min(d.span.end - d.span.start, text.length - column + 1));
    const caret = ' '.repeat(Math.max(0, column - 1)) + '^' + (width > 1 ? '~'.repeat(width - 1) : '');
    return `${fileName}:${line}:${column}: ${d.severity}: ${d.message}\n  ${text}\n  ${caret}`;
}
export function formatDiagnostics(fileName, source, ds) {
    const map = new LineMap(source);
    return ds.map((d) => formatDiagnostic(fileName, map, d)).join('\n');
}
//# sourceMappingURL=diagnostics.js.map