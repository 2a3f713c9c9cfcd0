/**
 * gdb's `set width N` for printed values. gdb's value printer marks a wrap point after each
 * `, ` between struct members and array elements (`wrap_here (2 + 2 * recurse)`), and its pager
 * breaks a line that would pass N characters at the last such point, going on indented by that
 * point's depth; a line with no wrap point left is cut at N characters (no indent). The same is
 * done here on the finished text: the depth of a wrap point is how many `{` are open there
 * (outside string and char literals).
 */

/** One line of printed text wrapped to `width` columns; unlimited (undefined or 0) leaves it as is. */
export function wrapText(text: string, width: number | undefined): string {
  if (!width || !Number.isFinite(width)) return text;
  return text.split('\n').map((line) => wrapLine(line, width)).join('\n');
}

interface Piece { readonly text: string; readonly indent: number }

/** The line cut after each `, ` outside literals, each piece with the indent gdb gives it. */
function pieces(line: string): Piece[] {
  const out: Piece[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  let indent = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ',' && line[i + 1] === ' ' && depth > 0) {
      out.push({ text: line.slice(start, i + 2), indent });
      start = i + 2;
      indent = 2 * depth;
    }
  }
  out.push({ text: line.slice(start), indent });
  return out;
}

function wrapLine(line: string, width: number): string {
  if (line.length <= width) return line;
  const lines: string[] = [];
  let cur = '';
  for (const p of pieces(line)) {
    if (cur.length + p.text.length > width && cur.trim() !== '') {
      lines.push(cur);
      cur = ' '.repeat(p.indent) + p.text;
    } else {
      cur += p.text;
    }
    // no wrap point left in this piece: gdb's pager breaks at the width itself
    while (cur.length > width) {
      lines.push(cur.slice(0, width));
      cur = cur.slice(width);
    }
  }
  lines.push(cur);
  return lines.join('\n');
}
