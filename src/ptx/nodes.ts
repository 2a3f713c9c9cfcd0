/**
 * Compact forms of the AST nodes a module has hundreds of thousands of (instructions, register,
 * symbol and address operands). Each is its own span (it has `start` and `end`, and `span` is the
 * node itself) instead of holding a Span object: a 20 MB -G module otherwise spends about half its
 * parse, and much of its resolution (which copies operand spans), moving those objects through
 * the garbage collector. Structurally they are the ast.ts interfaces.
 */
import type { Guard, Instruction, Operand, Span } from './ast.js';

export class InstructionNode implements Instruction {
  readonly kind: 'instr';
  readonly opcode: string;
  readonly mods: readonly string[];
  readonly guard: Guard | undefined;
  readonly operands: readonly Operand[];
  readonly start: number;
  readonly end: number;
  private readonly opStart: number;
  private readonly opEnd: number;
  constructor(opcode: string, mods: readonly string[], guard: Guard | undefined, operands: readonly Operand[], start: number, end: number, opStart: number, opEnd: number) {
    this.kind = 'instr';
    this.opcode = opcode;
    this.mods = mods;
    this.guard = guard;
    this.operands = operands;
    this.start = start;
    this.end = end;
    this.opStart = opStart;
    this.opEnd = opEnd;
  }
  get span(): Span {
    return this;
  }
  get opSpan(): Span {
    return { start: this.opStart, end: this.opEnd };
  }
}

export class RegOperand {
  readonly kind: 'reg';
  readonly name: string;
  readonly start: number;
  readonly end: number;
  constructor(name: string, start: number, end: number) {
    this.kind = 'reg';
    this.name = name;
    this.start = start;
    this.end = end;
  }
  get span(): Span {
    return this;
  }
}

export class SymOperand {
  readonly kind: 'sym';
  readonly name: string;
  readonly addend: bigint;
  readonly start: number;
  readonly end: number;
  constructor(name: string, addend: bigint, start: number, end: number) {
    this.kind = 'sym';
    this.name = name;
    this.addend = addend;
    this.start = start;
    this.end = end;
  }
  get span(): Span {
    return this;
  }
}

export class AddrOperand {
  readonly kind: 'addr';
  readonly base: Operand | undefined;
  readonly offset: bigint;
  readonly start: number;
  readonly end: number;
  constructor(base: Operand | undefined, offset: bigint, start: number, end: number) {
    this.kind = 'addr';
    this.base = base;
    this.offset = offset;
    this.start = start;
    this.end = end;
  }
  get span(): Span {
    return this;
  }
}
