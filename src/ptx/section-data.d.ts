/**
 * The data of a `.section` (the DWARF of a `-G` build is millions of `.b8` literals), packed into
 * typed arrays instead of one object per datum: parsing a 20 MB module otherwise spends most of
 * its time in the garbage collector. Data are read back as SectionDatum values on demand.
 */
import type { SectionDatum, Span } from './ast.js';
type Width = 1 | 2 | 4 | 8;
export declare class SectionDataList implements Iterable<SectionDatum> {
    private widths;
    /** Numeric data that fit a double exactly; larger ones live in `big`. */
    private nums;
    private starts;
    private ends;
    private readonly big;
    /**
     * Symbol references (`.b64 $L__tmp12`, `.b32 .debug_abbrev+4`): marked by SYM in the width, with
     * `nums` holding their index here (a -G module has hundreds of thousands).
     */
    private readonly symNames;
    private readonly symAddends;
    /** The datum index of each symbol reference. */
    private readonly symData;
    length: number;
    private grow;
    pushNum(width: Width, value: bigint, span: Span): void;
    /** A literal that fits a double exactly, at source offsets start..end (the scanner's fast path). */
    pushPlain(width: Width, value: number, start: number, end: number): void;
    /** Drop the data from index `length` on (a line the fast path could not finish). */
    truncate(length: number): void;
    pushSym(width: Width, name: string, addend: bigint, span: Span): void;
    /** A symbol reference at source offsets start..end (the scanner's fast path). */
    pushSymAt(width: Width, name: string, addend: bigint, start: number, end: number): void;
    push(d: SectionDatum): void;
    width(i: number): Width;
    at(i: number): SectionDatum;
    /** The value of numeric datum i (undefined for a symbol reference), without building a datum. */
    numAt(i: number): bigint | number | undefined;
    forEach(f: (d: SectionDatum, i: number) => void): void;
    map<T>(f: (d: SectionDatum, i: number) => T): T[];
    [Symbol.iterator](): Iterator<SectionDatum>;
}
export {};
