/**
 * Facts about PTX opcodes, in one table: how an instruction transfers control, whether its
 * first operand is a destination, what it does to memory, and whether it ends a basic block.
 * Every consumer reads them here: the interpreter's compile step (src/exec/compile.ts, control
 * kind and clock reads), the post-dominator pass (src/exec/ipdom.ts, terminators and successors),
 * the race checker (src/races/instr.ts, fences and async copies), register-write history and
 * the "may have been written" analysis (writtenRegisters).
 *
 * Sources: PTX ISA 9.x, "Instruction Set" chapter: the operand lists of each instruction
 * (`st [a], b`, `red.op [a], b`, `bar.sync a{, b}`, `bra tgt`, `call (ret), f, (args)`).
 */
import { OPCODES } from './opcodes.js';
import type { RInstruction, ROperand } from './resolve.js';

export type ControlKind = 'none' | 'branch' | 'indirect-branch' | 'call' | 'return' | 'exit' | 'trap';
export type MemoryEffect = 'none' | 'load' | 'store' | 'atomic' | 'reduction' | 'fence' | 'barrier' | 'async-copy' | 'prefetch';

export interface OpcodeFacts {
  readonly control: ControlKind;
  /** The first operand is written (a register, vector, pair or sink). */
  readonly writesDestination: boolean;
  readonly memory: MemoryEffect;
  /** Ends a basic block when unguarded (control leaves or never comes back). */
  readonly terminator: boolean;
}

const PLAIN: OpcodeFacts = { control: 'none', writesDestination: true, memory: 'none', terminator: false };

const OVERRIDES: Readonly<Record<string, Partial<OpcodeFacts>>> = {
  bra: { control: 'branch', writesDestination: false, terminator: true },
  brx: { control: 'indirect-branch', writesDestination: false, terminator: true },
  call: { control: 'call', writesDestination: false },
  ret: { control: 'return', writesDestination: false, terminator: true },
  exit: { control: 'exit', writesDestination: false, terminator: true },
  trap: { control: 'trap', writesDestination: false, terminator: true },
  brkpt: { writesDestination: false },
  ld: { memory: 'load' }, ldu: { memory: 'load' }, ldmatrix: { memory: 'load' }, tex: { memory: 'load' }, tld4: { memory: 'load' }, suld: { memory: 'load' },
  st: { memory: 'store', writesDestination: false }, stmatrix: { memory: 'store', writesDestination: false }, sust: { memory: 'store', writesDestination: false },
  atom: { memory: 'atomic' },
  red: { memory: 'reduction', writesDestination: false }, sured: { memory: 'reduction', writesDestination: false },
  membar: { memory: 'fence', writesDestination: false }, fence: { memory: 'fence', writesDestination: false },
  bar: { memory: 'barrier', writesDestination: false }, barrier: { memory: 'barrier', writesDestination: false },
  cp: { memory: 'async-copy', writesDestination: false },
  prefetch: { memory: 'prefetch', writesDestination: false }, prefetchu: { memory: 'prefetch', writesDestination: false },
  applypriority: { writesDestination: false }, discard: { writesDestination: false },
  nanosleep: { writesDestination: false }, pmevent: { writesDestination: false },
  griddepcontrol: { writesDestination: false }, setmaxnreg: { writesDestination: false },
};

/** The table: every opcode the parser accepts. */
export const INSTRUCTIONS: ReadonlyMap<string, OpcodeFacts> = new Map([...OPCODES].map((op) => [op, { ...PLAIN, ...OVERRIDES[op] }]));

export function factsOf(opcode: string): OpcodeFacts {
  return INSTRUCTIONS.get(opcode) ?? PLAIN;
}

function registersOf(o: ROperand | undefined, out: string[]): void {
  if (!o) return;
  switch (o.kind) {
    case 'reg': out.push(o.reg.name); break;
    case 'vec': case 'list': for (const x of o.items) registersOf(x, out); break;
    case 'pair': registersOf(o.a, out); registersOf(o.b, out); break;
    default: break;
  }
}

/**
 * The registers an instruction writes (when it executes): its destination operand's registers,
 * and for a call the registers of its return list. One rule for every consumer.
 */
export function writtenRegisters(ins: Pick<RInstruction, 'opcode' | 'operands'>): string[] {
  const out: string[] = [];
  if (ins.opcode === 'call') {
    const first = ins.operands[0];
    if (first?.kind === 'list') registersOf(first, out);
    return out;
  }
  if (factsOf(ins.opcode).writesDestination) registersOf(ins.operands[0], out);
  return out;
}

/** The special registers that read a clock (PTX ISA "Special Registers": %clock, %clock_hi, %clock64, %globaltimer{,_lo,_hi}). */
const CLOCK_SPECIALS: ReadonlySet<string> = new Set(['clock', 'clock_hi', 'clock64', 'globaltimer', 'globaltimer_lo', 'globaltimer_hi']);

/** `name` (with or without its `%`) is a clock special register. */
export function isClockSpecial(name: string): boolean {
  return CLOCK_SPECIALS.has(name.replace(/^%/, ''));
}

/** Reads the clock (`%clock`, `%clock64`, `%globaltimer`, ...): results differ between runs on hardware. */
export function readsClock(ins: Pick<RInstruction, 'operands'>): boolean {
  return ins.operands.some((o) => o.kind === 'special' && isClockSpecial(o.name));
}
