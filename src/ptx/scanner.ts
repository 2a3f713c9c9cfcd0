/**
 * PTX scanner: turns source text into tokens over char codes, without regular expressions in the
 * hot path. Errors go through a callback and scanning continues (one diagnostic per position).
 *
 * Token kinds:
 *  - `word`: identifiers, opcodes and registers, with their dotted modifiers glued on
 *    (`ld.global.nc.v4.f32`, `%tid.x`, `%r12`, `$L__BB0_3`, `_Z3fooi`).
 *  - `dir`: a directive or type name starting with a dot (`.reg`, `.b32`, `.v4`); also glued
 *    (`.v4.f32`) — the parser splits on dots where it needs parts.
 *  - `int`/`float`: numeric literals (including `0f`/`0d` hex floats, `0x`, `0b`, octal, `U` suffix).
 *  - `string`, `punct` (single characters), `eof`.
 */
import type { Span } from './ast.js';
import type { SectionDataList } from './section-data.js';

export const enum Tok {
  Word,
  Dir,
  Int,
  Float,
  Str,
  Punct,
  Eof,
}

export interface Token {
  kind: Tok;
  start: number;
  end: number;
  /** Source text (for punct: the character). */
  text: string;
  /** For Int tokens. */
  int: bigint;
  /** For Float tokens. */
  num: number;
  /** For `0f` literals: the binary32 bit pattern. */
  f32Bits: number | undefined;
}

export type ScanError = (message: string, span: Span) => void;

const CH_0 = 48;
const CH_9 = 57;

export function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c === 37;
}
export function isIdentPart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= CH_0 && c <= CH_9) || c === 95 || c === 36;
}
function isDigit(c: number): boolean {
  return c >= CH_0 && c <= CH_9;
}
function isHex(c: number): boolean {
  return isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

const WORD_CACHE = 1 << 14;

const f32Scratch = new DataView(new ArrayBuffer(8));

export function scan(source: string, onError: ScanError): Token[] {
  const sc = new Scanner(source, onError);
  const tokens: Token[] = [];
  for (;;) {
    const t = sc.next();
    tokens.push(t);
    if (t.kind === Tok.Eof) return tokens;
  }
}

/**
 * Tokens on demand, so that a parser holding a small window lets the rest be collected young:
 * a 20 MB -G file is millions of tokens, and keeping them all alive made the GC most of parsing.
 */
export class Scanner {
  private i = 0;
  private out: Token | undefined;
  private readonly push = (kind: Tok, start: number, end: number, int = 0n, num = 0, f32Bits?: number): void => {
    this.out = { kind, start, end, text: kind === Tok.Word || kind === Tok.Dir ? this.word(start, end) : this.source.slice(start, end), int, num, f32Bits };
  };
  /**
   * Words and directives by spelling, direct-mapped: a body repeats its opcodes and registers,
   * and a hit costs no new string (so AST nodes share one copy, and the collector has less to move).
   */
  private readonly words: (string | undefined)[] = new Array<string | undefined>(WORD_CACHE).fill(undefined);

  word(start: number, end: number): string {
    const source = this.source;
    let h = end - start;
    for (let k = start; k < end; k++) h = (Math.imul(h, 31) + source.charCodeAt(k)) | 0;
    const slot = (h ^ (h >>> 13)) & (WORD_CACHE - 1);
    const cached = this.words[slot];
    if (cached !== undefined && cached.length === end - start && source.startsWith(cached, start)) return cached;
    const text = source.slice(start, end);
    this.words[slot] = text;
    return text;
  }

  constructor(private readonly source: string, private readonly onError: ScanError) {}

  /** Where the next token starts scanning (before its whitespace). */
  get offset(): number {
    return this.i;
  }

  /** Continue scanning at `i` (after a fast path consumed text itself). */
  seek(i: number): void {
    this.i = i;
  }

  next(): Token {
    const source = this.source;
    const onError = this.onError;
    const push = this.push;
    const n = source.length;
    let i = this.i;
    this.out = undefined;
    while (i < n && this.out === undefined) {
      const c = source.charCodeAt(i);
      // whitespace
      if (c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11) {
        i++;
        continue;
      }
      // comments
      if (c === 47 && source.charCodeAt(i + 1) === 47) {
        while (i < n && source.charCodeAt(i) !== 10) i++;
        continue;
      }
      if (c === 47 && source.charCodeAt(i + 1) === 42) {
        const close = source.indexOf('*/', i + 2);
        if (close < 0) {
          onError('unterminated block comment', { start: i, end: i + 2 });
          i = n;
        } else i = close + 2;
        continue;
      }
      const start = i;
      if (isIdentStart(c)) {
        i++;
        while (i < n && isIdentPart(source.charCodeAt(i))) i++;
        // glued modifiers: .global.nc.v4, %tid.x and cache hints like .L2::128B
        i = scanModifiers(source, i);
        push(Tok.Word, start, i);
        continue;
      }
      if (c === 46 && i + 1 < n && isIdentPart(source.charCodeAt(i + 1)) && !isDigit(source.charCodeAt(i + 1))) {
        i++;
        while (i < n && isIdentPart(source.charCodeAt(i))) i++;
        i = scanModifiers(source, i);
        push(Tok.Dir, start, i);
        continue;
      }
      if (isDigit(c) || (c === 46 && isDigit(source.charCodeAt(i + 1)))) {
        i = scanNumber(source, i, push, onError);
        continue;
      }
      if (c === 34) {
        i++;
        while (i < n && source.charCodeAt(i) !== 34 && source.charCodeAt(i) !== 10) {
          if (source.charCodeAt(i) === 92) i++;
          i++;
        }
        if (i >= n || source.charCodeAt(i) !== 34) {
          onError('unterminated string literal', { start, end: Math.min(i, n) });
        } else i++;
        push(Tok.Str, start, i);
        continue;
      }
      // single-character punctuation
      if ('{}()[];,:<>+-=@!|*/~&^%?'.indexOf(source[i]!) >= 0) {
        i++;
        push(Tok.Punct, start, i);
        continue;
      }
      onError(`unexpected character '${printable(source[i]!)}'`, { start: i, end: i + 1 });
      i++;
    }
    this.i = i;
    if (this.out === undefined) push(Tok.Eof, n, n);
    return this.out!;
  }
}

/**
 * The fast path of `.section` bodies (a -G build's DWARF is millions of `.b8 N` lines): consume
 * whole lines `.b8|.b16|.b32|.b64 lit, lit, ...[;]` of plain decimal or 0x literals straight from
 * the text into `data`, without tokens. At the first line that is anything else (a label, a
 * symbol, an expression, `}`) it stops at that line's start, so the token parser takes it.
 */
export function scanSectionData(source: string, from: number, data: SectionDataList): number {
  const n = source.length;
  let i = from;
  for (;;) {
    for (;;) {
      const c = source.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else if (c === 47 && source.charCodeAt(i + 1) === 47) { while (i < n && source.charCodeAt(i) !== 10) i++; }
      else break;
    }
    const lineStart = i;
    if (source.charCodeAt(i) !== 46 || source.charCodeAt(i + 1) !== 98) return lineStart;
    const d0 = source.charCodeAt(i + 2), d1 = source.charCodeAt(i + 3);
    let width: 1 | 2 | 4 | 8;
    let j: number;
    if (d0 === 56) { width = 1; j = i + 3; }
    else if (d0 === 49 && d1 === 54) { width = 2; j = i + 4; }
    else if (d0 === 51 && d1 === 50) { width = 4; j = i + 4; }
    else if (d0 === 54 && d1 === 52) { width = 8; j = i + 4; }
    else return lineStart;
    const sep = source.charCodeAt(j);
    if (sep !== 32 && sep !== 9) return lineStart;
    const mark = data.length;
    while (source.charCodeAt(j) === 32 || source.charCodeAt(j) === 9) j++;
    const c0 = source.charCodeAt(j);
    if (isIdentStart(c0) || (c0 === 46 && isIdentPart(source.charCodeAt(j + 1)) && !isDigit(source.charCodeAt(j + 1)))) {
      // one symbol reference, `name` or `name+N` (DWARF's label and section offsets)
      const start = j;
      j = scanModifiers(source, j + 1 + skipIdent(source, j + 1));
      const nameEnd = j;
      let addend = 0;
      let end = nameEnd;
      if (source.charCodeAt(j) === 43) {
        const ds = ++j;
        while (source.charCodeAt(j) >= 48 && source.charCodeAt(j) <= 57) { addend = addend * 10 + source.charCodeAt(j) - 48; j++; }
        if (j === ds || (j - ds > 1 && source.charCodeAt(ds) === 48) || j - ds > 15 || isIdentPart(source.charCodeAt(j)) || source.charCodeAt(j) === 46) return lineStart;
        end = j;
      }
      // the token parser reads an addend or operator on the next line too (and skips bad characters
      // before it): unless a plain line or `}` follows, leave the line to it
      let k = j;
      for (;;) {
        const c = source.charCodeAt(k);
        if (c === 32 || c === 9 || c === 10 || c === 13) k++;
        else if (c === 47 && source.charCodeAt(k + 1) === 47) { while (k < n && source.charCodeAt(k) !== 10) k++; }
        else break;
      }
      const nc = source.charCodeAt(k);
      const plainNext = k >= n || nc === 59 || nc === 125 || (isIdentStart(nc) && nc !== 37) || (nc === 46 && isIdentPart(source.charCodeAt(k + 1)) && !isDigit(source.charCodeAt(k + 1)));
      if (!plainNext) return lineStart;
      while (source.charCodeAt(j) === 32 || source.charCodeAt(j) === 9) j++;
      const c = source.charCodeAt(j);
      if (c === 59) j++;
      else if (c !== 10 && c !== 13 && j < n) return lineStart;
      data.pushSymAt(width, source.slice(start, nameEnd), BigInt(addend), start, end);
      i = j;
      continue;
    }
    for (;;) {
      while (source.charCodeAt(j) === 32 || source.charCodeAt(j) === 9) j++;
      const start = j;
      let value = 0;
      if (source.charCodeAt(j) === 48 && (source.charCodeAt(j + 1) | 0x20) === 120) {
        j += 2;
        const ds = j;
        for (;;) {
          const c = source.charCodeAt(j);
          const h = hexDigit(c);
          if (h < 0) break;
          value = value * 16 + h;
          j++;
        }
        if (j === ds || j - ds > 13) { data.truncate(mark); return lineStart; }
      } else {
        const ds = j;
        while (source.charCodeAt(j) >= 48 && source.charCodeAt(j) <= 57) { value = value * 10 + source.charCodeAt(j) - 48; j++; }
        // no digits, a C octal literal, or past 2^53: the token parser's business
        if (j === ds || (j - ds > 1 && source.charCodeAt(ds) === 48) || j - ds > 15) { data.truncate(mark); return lineStart; }
      }
      data.pushPlain(width, value, start, j);
      while (source.charCodeAt(j) === 32 || source.charCodeAt(j) === 9) j++;
      const c = source.charCodeAt(j);
      if (c === 44) { j++; continue; }
      if (c === 59) { j++; break; }
      if (c === 10 || c === 13 || j >= n) break;
      // a suffix, an operator, a comment or `}` on the same line: let the token parser see it all
      data.truncate(mark);
      return lineStart;
    }
    i = j;
  }
}

/** The number of identifier characters at `i`. */
function skipIdent(source: string, i: number): number {
  let k = i;
  while (k < source.length && isIdentPart(source.charCodeAt(k))) k++;
  return k - i;
}

/** Consumes `.mod` parts glued to a word, and `::` qualifiers inside them (`.L2::128B`). */
export function scanModifiers(source: string, i: number): number {
  const n = source.length;
  for (;;) {
    const c = source.charCodeAt(i);
    if (c === 46 && i + 1 < n && isIdentPart(source.charCodeAt(i + 1))) {
      i++;
    } else if (c === 58 && source.charCodeAt(i + 1) === 58 && isIdentPart(source.charCodeAt(i + 2) || 0)) {
      i += 2;
    } else return i;
    while (i < n && isIdentPart(source.charCodeAt(i))) i++;
  }
}

function printable(ch: string): string {
  const code = ch.charCodeAt(0);
  return code < 32 || code > 126 ? `\\x${code.toString(16).padStart(2, '0')}` : ch;
}

function scanNumber(
  source: string,
  start: number,
  push: (kind: Tok, s: number, e: number, int?: bigint, num?: number, f32?: number) => void,
  onError: ScanError,
): number {
  const n = source.length;
  let i = start;
  const c0 = source.charCodeAt(i);
  const c1 = source.charCodeAt(i + 1) | 0x20; // lower-case
  if (c0 === CH_0 && (c1 === 102 || c1 === 100) && isHex(source.charCodeAt(i + 2))) {
    // 0fXXXXXXXX (binary32) or 0dXXXXXXXXXXXXXXXX (binary64)
    const isF32 = c1 === 102;
    i += 2;
    const ds = i;
    while (i < n && isHex(source.charCodeAt(i))) i++;
    const hex = source.slice(ds, i);
    if (hex.length !== (isF32 ? 8 : 16)) {
      onError(`hex float literal needs exactly ${isF32 ? 8 : 16} hex digits`, { start, end: i });
    }
    if (isF32) {
      const bits = Number.parseInt(hex.slice(-8) || '0', 16) >>> 0;
      f32Scratch.setUint32(0, bits);
      push(Tok.Float, start, i, 0n, f32Scratch.getFloat32(0), bits);
    } else {
      const big = BigInt('0x' + (hex.slice(-16) || '0'));
      f32Scratch.setBigUint64(0, big);
      push(Tok.Float, start, i, 0n, f32Scratch.getFloat64(0));
    }
    return i;
  }
  if (c0 === CH_0 && (c1 === 120 || c1 === 98) && (c1 === 120 ? isHex(source.charCodeAt(i + 2)) : true)) {
    const isHexLit = c1 === 120;
    i += 2;
    const ds = i;
    while (i < n && (isHexLit ? isHex(source.charCodeAt(i)) : source.charCodeAt(i) === 48 || source.charCodeAt(i) === 49)) i++;
    if (i === ds) {
      onError('malformed number', { start, end: i });
      push(Tok.Int, start, i, 0n);
      return i;
    }
    // most literals (debug-section bytes) are small: Number parsing then BigInt is several times
    // cheaper than BigInt of a string
    const digits = i - ds;
    let value = digits <= (isHexLit ? 13 : 52) ? BigInt(Number.parseInt(source.slice(ds, i), isHexLit ? 16 : 2)) : BigInt((isHexLit ? '0x' : '0b') + source.slice(ds, i));
    value = wrap64(value, source.slice(ds, i), isHexLit ? 16n : 2n, { start, end: i }, onError);
    if ((source.charCodeAt(i) | 0x20) === 117) i++; // U suffix
    push(Tok.Int, start, i, value);
    return i;
  }
  while (i < n && isDigit(source.charCodeAt(i))) i++;
  let isFloat = false;
  if (source.charCodeAt(i) === 46 && isDigit(source.charCodeAt(i + 1) || 0)) {
    isFloat = true;
    i++;
    while (i < n && isDigit(source.charCodeAt(i))) i++;
  } else if (source.charCodeAt(i) === 46 && !isIdentPart(source.charCodeAt(i + 1) || 0)) {
    isFloat = true; // "1." form
    i++;
  }
  if ((source.charCodeAt(i) | 0x20) === 101) {
    let j = i + 1;
    if (source.charCodeAt(j) === 43 || source.charCodeAt(j) === 45) j++;
    if (isDigit(source.charCodeAt(j))) {
      isFloat = true;
      i = j;
      while (i < n && isDigit(source.charCodeAt(i))) i++;
    }
  }
  const text = source.slice(start, i);
  if (isFloat) {
    push(Tok.Float, start, i, 0n, Number(text));
    return i;
  }
  let value: bigint;
  if (text.length > 1 && text.charCodeAt(0) === CH_0) {
    // C-style octal
    if (/[89]/.test(text)) {
      onError('invalid digit in octal literal', { start, end: i });
      value = 0n;
    } else value = wrap64(BigInt('0o' + text.slice(1)), text.slice(1), 8n, { start, end: i }, onError);
  } else value = text.length <= 15 ? BigInt(Number(text)) : wrap64(BigInt(text), text, 10n, { start, end: i }, onError);
  if ((source.charCodeAt(i) | 0x20) === 117) i++;
  if (isIdentPart(source.charCodeAt(i) || 0)) {
    const bad = i;
    while (i < n && isIdentPart(source.charCodeAt(i))) i++;
    onError(`invalid suffix on number '${source.slice(start, i)}'`, { start: bad, end: i });
  }
  push(Tok.Int, start, i, value);
  return i;
}

/**
 * An integer literal's value as ptxas takes it: modulo 2^64, refused ("Constant overflow") when,
 * reading its digits left to right in 64 bits, the value so far is 2^63 or more before the next
 * digit. That is ptxas 13.0's own test, found on literals around 2^64 in every base: it accepts
 * 18446744073709551616 (2^64, taken as 0) and 0x7ffffffffffffffff, refuses 99999999999999999999
 * and 0x8ffffffffffffffff. Below 2^63 no prefix can reach 2^63, so only large literals are walked.
 */
function wrap64(value: bigint, digits: string, base: bigint, span: { start: number; end: number }, onError: ScanError): bigint {
  if (value < 1n << 63n) return value;
  let v = 0n;
  for (let k = 0; k < digits.length; k++) {
    if (v >= 1n << 63n) {
      onError('constant overflow: this integer does not fit in 64 bits (ptxas refuses it too)', span);
      return 0n;
    }
    v = BigInt.asUintN(64, v * base + BigInt(hexDigit(digits.charCodeAt(k))));
  }
  return v;
}

/** The value of hex digit character `c`, or -1. */
export function hexDigit(c: number): number {
  return c >= 48 && c <= 57 ? c - 48 : (c | 0x20) >= 97 && (c | 0x20) <= 102 ? (c | 0x20) - 87 : -1;
}
