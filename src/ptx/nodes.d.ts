/**
 * Compact forms of the AST nodes a module has hundreds of thousands of (instructions, register,
 * symbol and address operands). Each is its own span (it has `start` and `end`, and `span` is the
 * node itself) instead of holding a Span object: a 20 MB -G module otherwise spends about half its
 * parse, and much of its resolution (which copies operand spans), moving those objects through
 * the garbage collector. Structurally they are the ast.ts interfaces.
 */
import type { Guard, Instruction, Operand, Span } from './ast.js';
export declare class InstructionNode implements Instruction {
    readonly kind: 'instr';
    readonly opcode: string;
    readonly mods: readonly string[];
    readonly guard: Guard | undefined;
    readonly operands: readonly Operand[];
    readonly start: number;
    readonly end: number;
    private readonly opStart;
    private readonly opEnd;
    constructor(opcode: string, mods: readonly string[], guard: Guard | undefined, operands: readonly Operand[], start: number, end: number, opStart: number, opEnd: number);
    get span(): Span;
    get opSpan(): Span;
}
export declare class RegOperand {
    readonly kind: 'reg';
    readonly name: string;
    readonly start: number;
    readonly end: number;
    constructor(name: string, start: number, end: number);
    get span(): Span;
}
export declare class SymOperand {
    readonly kind: 'sym';
    readonly name: string;
    readonly addend: bigint;
    readonly start: number;
    readonly end: number;
    constructor(name: string, addend: bigint, start: number, end: number);
    get span(): Span;
}
export declare class AddrOperand {
    readonly kind: 'addr';
    readonly base: Operand | undefined;
    readonly offset: bigint;
    readonly start: number;
    readonly end: number;
    constructor(base: Operand | undefined, offset: bigint, start: number, end: number);
    get span(): Span;
}
