/**
 * Tokens of gdb/cuda-gdb C expressions: numbers with C suffixes, char literals, identifiers,
 * `$`-names (registers, special registers, value history), and C punctuators. `%r1` is not a
 * token of its own: `%` directly followed by a name is a register only where an operand is
 * expected, which the parser decides (`a % b` stays a remainder).
 */
import { PrintError } from './errors.js';

export type Token =
  | { readonly kind: 'int'; readonly value: bigint; readonly suffix: string; readonly radix: number; readonly pos: number; readonly end: number }
  | { readonly kind: 'float'; readonly value: number; readonly single: boolean; readonly pos: number; readonly end: number }
  | { readonly kind: 'char'; readonly value: number; readonly pos: number; readonly end: number }
  | { readonly kind: 'ident'; readonly text: string; readonly pos: number; readonly end: number }
  /** `$name` (register/special), `$N` / `$$N` / `$` / `$$` (history). */
  | { readonly kind: 'dollar'; readonly text: string; readonly pos: number; readonly end: number }
  | { readonly kind: 'op'; readonly text: string; readonly pos: number; readonly end: number }
  | { readonly kind: 'eof'; readonly pos: number; readonly end: number };

const PUNCT = [
  '->', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '::',
  '+', '-', '*', '/', '%', '&', '|', '^', '~', '!', '?', ':', '(', ')', '[', ']', '{', '}', '.', ',', '<', '>', '@', '=',
];

const ESCAPES: Readonly<Record<string, number>> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, e: 27, '\\': 92, "'": 39, '"': 34, '?': 63 };

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = src.length;
  const isIdStart = (c: string): boolean => /[A-Za-z_]/.test(c);
  const isId = (c: string): boolean => /[A-Za-z0-9_]/.test(c);
  while (i < n) {
    const c = src[i]!;
    if (/\s/.test(c)) { i++; continue; }
    const pos = i;
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      out.push(number(src, pos));
      i = out[out.length - 1]!.end;
      continue;
    }
    if (isIdStart(c)) {
      while (i < n && isId(src[i]!)) i++;
      out.push({ kind: 'ident', text: src.slice(pos, i), pos, end: i });
      continue;
    }
    if (c === '$') {
      i++;
      if (src[i] === '$') i++;
      while (i < n && isId(src[i]!)) i++;
      out.push({ kind: 'dollar', text: src.slice(pos, i), pos, end: i });
      continue;
    }
    if (c === "'") {
      const { value, end } = charLiteral(src, pos);
      out.push({ kind: 'char', value, pos, end });
      i = end;
      continue;
    }
    if (c === '"') throw new PrintError('String literals are not supported in expressions.');
    const p = PUNCT.find((x) => src.startsWith(x, i));
    if (!p) throw new PrintError(`Invalid character '${c}' in expression.`);
    out.push({ kind: 'op', text: p, pos, end: i + p.length });
    i += p.length;
  }
  out.push({ kind: 'eof', pos: n, end: n });
  return out;
}

function number(src: string, pos: number): Token {
  const hex = /^0[xX][0-9a-fA-F]+/.exec(src.slice(pos));
  if (hex) {
    const end = pos + hex[0].length;
    return intToken(src, pos, end, BigInt(hex[0]), 16);
  }
  const fl = /^(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|^[0-9]+[eE][+-]?[0-9]+/.exec(src.slice(pos));
  if (fl) {
    let end = pos + fl[0].length;
    let single = false;
    if (/[fF]/.test(src[end] ?? '')) { single = true; end++; }
    else if (/[lL]/.test(src[end] ?? '')) end++;
    if (/[A-Za-z0-9_]/.test(src[end] ?? '')) throw new PrintError(`Invalid number "${src.slice(pos, end + 1)}".`);
    return { kind: 'float', value: Number(fl[0]), single, pos, end };
  }
  const dec = /^[0-9]+/.exec(src.slice(pos))![0];
  const octal = dec.length > 1 && dec.startsWith('0');
  if (octal && /[89]/.test(dec)) throw new PrintError(`Invalid number "${dec}".`);
  return intToken(src, pos, pos + dec.length, octal ? BigInt('0o' + dec.slice(1)) : BigInt(dec), octal ? 8 : 10);
}

function intToken(src: string, pos: number, end: number, value: bigint, radix: number): Token {
  const m = /^(?:[uU](?:ll|LL|[lL])?|(?:ll|LL|[lL])[uU]?)/.exec(src.slice(end));
  const suffix = m ? m[0].toLowerCase() : '';
  const e = end + suffix.length;
  if (/[A-Za-z0-9_.]/.test(src[e] ?? '')) throw new PrintError(`Invalid number "${src.slice(pos, e + 1)}".`);
  return { kind: 'int', value, suffix, radix, pos, end: e };
}

function charLiteral(src: string, pos: number): { value: number; end: number } {
  let i = pos + 1;
  let value: number;
  const c = src[i];
  if (c === undefined || c === "'") throw new PrintError('Empty character constant.');
  if (c === '\\') {
    const d = src[i + 1] ?? '';
    if (/[0-7]/.test(d)) {
      const m = /^[0-7]{1,3}/.exec(src.slice(i + 1))![0];
      value = parseInt(m, 8);
      i += 1 + m.length;
    } else if (d === 'x') {
      const m = /^[0-9a-fA-F]+/.exec(src.slice(i + 2));
      if (!m) throw new PrintError('\\x used with no following hex digits.');
      value = parseInt(m[0], 16);
      i += 2 + m[0].length;
    } else if (d in ESCAPES) {
      value = ESCAPES[d]!;
      i += 2;
    } else throw new PrintError(`Unmatched single quote.`);
  } else {
    value = c.charCodeAt(0);
    i++;
  }
  if (src[i] !== "'") throw new PrintError('Unmatched single quote.');
  return { value: value & 0xff, end: i + 1 };
}
