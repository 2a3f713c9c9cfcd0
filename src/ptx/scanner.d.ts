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
export declare const enum Tok {
    Word = 0,
    Dir = 1,
    Int = 2,
    Float = 3,
    Str = 4,
    Punct = 5,
    Eof = 6
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
export declare function scan(source: string, onError: ScanError): Token[];
/**
 * Tokens on demand, so that a parser holding a small window lets the rest be collected young:
 * a 20 MB -G file is millions of tokens, and keeping them all alive made the GC most of parsing.
 */
export declare class Scanner {
    private readonly source;
    private readonly onError;
    private i;
    private out;
    private readonly push;
    /**
     * Words and directives by spelling, direct-mapped: a body repeats its opcodes and registers,
     * and a hit costs no new string (so AST nodes share one copy, and the collector has less to move).
     */
    private readonly words;
    word(start: number, end: number): string;
    constructor(source: string, onError: ScanError);
    /** Where the next token starts scanning (before its whitespace). */
    get offset(): number;
    /** Continue scanning at `i` (after a fast path consumed text itself). */
    seek(i: number): void;
    next(): Token;
}
/**
 * The fast path of `.section` bodies (a -G build's DWARF is millions of `.b8 N` lines): consume
 * whole lines `.b8|.b16|.b32|.b64 lit, lit, ...[;]` of plain decimal or 0x literals straight from
 * the text into `data`, without tokens. At the first line that is anything else (a label, a
 * symbol, an expression, `}`) it stops at that line's start, so the token parser takes it.
 */
export declare function scanSectionData(source: string, from: number, data: SectionDataList): number;
/** The value of hex digit character `c`, or -1. */
export declare function hexDigit(c: number): number;
