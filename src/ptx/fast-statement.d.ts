/**
 * The fast path of function bodies: the statements that make up nearly all of a -G module
 * (`op.mods %r1, [%rd2+8];`, `@%p1 bra $L__BB0_3;`, `$L__tmp12:`, `.loc 1 20 5`) read straight
 * from the text, with no token objects. It accepts only plain, valid forms and builds exactly the
 * nodes the token parser would; anything else (comments, expressions, vectors, errors) gives
 * undefined and the token parser takes the statement from its start.
 */
import type { Statement } from './ast.js';
/** What the parser knows about an opcode spelling (`ld.global.u32`), or undefined if it is not valid. */
export type OpcodeLookup = (text: string) => {
    readonly opcode: string;
    readonly mods: readonly string[];
} | undefined;
export interface FastResult {
    readonly statement: Statement;
    /** Offset just after the statement's last character. */
    readonly end: number;
}
export declare class FastStatements {
    private readonly source;
    private readonly word;
    private readonly opcode;
    private readonly isType;
    /** End of the last word, integer or statement read (the parse position of the fast path). */
    private j;
    private value;
    constructor(source: string, word: (start: number, end: number) => string, opcode: OpcodeLookup, isType: (word: string) => boolean);
    /** The statement starting at `i` (after whitespace), or undefined when it is not a plain one. */
    statement(i: number): FastResult | undefined;
    /** `.loc file line column` with no attributes after it. */
    private loc;
    /**
     * `.reg|.param|.local [.align N] .type name[<N>][[N]]...;`: one name, no initializer, attributes
     * written apart (as nvcc writes a body's declarations).
     */
    private decl;
    /** One operand at `i`: reg, plain symbol, decimal or hex integer, `[reg|sym (+|-) int]`. */
    private operand;
    /** A decimal (not octal) or `0x` literal at `k` that the scanner would take whole: sets value and j. */
    private integer;
    private decimal;
    /** End of the word at `i`: identifier characters, then glued `.mod` and `::` parts (as the scanner). */
    private wordEnd;
    /**
     * Whether the token at `k` is one the scanner reads as it stands and is no `,` (which would
     * continue a `.loc`): the scanner skips characters no token starts with, so what follows them
     * could be anything.
     */
    private plainNext;
    /** Past blanks, line breaks and `//` comments (what the scanner skips between tokens). */
    private skipSpace;
}
