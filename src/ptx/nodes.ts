/**
 * Compact forms of the AST nodes a module has hundreds of thousands of (instructions, register,
 * symbol and address operands). Each is its own span (it has `start` and `end`, and `span` is the
 * node itself) instead of holding a Span object: a 20 MB -G module otherwise spends about half its
 * parse, and much of its resolution (which copies operand spans), moving those objects through
 * the garbage collector. Structurally they are the ast.ts interfaces.
 */
import type { Guard, Instruction, Label, LocDirective, Operand, Span } from './ast.js';

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

export class IntOperand {
  readonly kind: 'int';
  readonly value: bigint;
  readonly start: number;
  readonly end: number;
  constructor(value: bigint, start: number, end: number) {
    this.kind = 'int';
    this.value = value;
    this.start = start;
    this.end = end;
  }
  get span(): Span {
    return this;
  }
}

export class GuardNode implements Guard {
  readonly reg: string;
  readonly negate: boolean;
  readonly start: number;
  readonly end: number;
  constructor(reg: string, negate: boolean, start: number, end: number) {
    this.reg = reg;
    this.negate = negate;
    this.start = start;
    this.end = end;
  }
  get span(): Span {
    return this;
  }
}

export class LabelNode implements Label {
  readonly kind: 'label';
  readonly name: string;
  readonly start: number;
  readonly end: number;
  constructor(name: string, start: number, end: number) {
    this.kind = 'label';
    this.name = name;
    this.start = start;
    this.end = end;
  }
  get span(): Span {
    return this;
  }
}

/** A plain `.loc file line column` (no inlined_at, no function_name). */
export class LocNode implements LocDirective {
  readonly kind: 'loc';
  readonly file: number;
  readonly line: number;
  readonly column: number;
  readonly inlinedAt: undefined;
  readonly functionName: undefined;
  readonly start: number;
  readonly end: number;
  constructor(file: number, line: number, column: number, start: number, end: number) {
    this.kind = 'loc';
    this.file = file;
    this.line = line;
    this.column = column;
    this.inlinedAt = undefined;
    this.functionName = undefined;
    this.start = start;
    this.end = end;
  }
  get span(): Span {
    return this;
  }
}

/** BigInts 0..1023, made once: the fast path's small immediates and offsets share them. */
const SMALL = Array.from({ length: 1024 }, (_, i) => BigInt(i));

/** `v` (a safe integer) as a bigint, shared when small. */
export function bigOf(v: number): bigint {
  return v >= 0 && v < 1024 ? SMALL[v]! : BigInt(v);
}
