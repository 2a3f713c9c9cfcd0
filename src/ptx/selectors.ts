/**
 * Video instructions name sub-word parts of a register with a suffix: `%r1.b2`, `%r1.h0`
 * (scalar forms), `%r1.h10`, `%r1.b3210` (SIMD selectors and destination masks). The scanner
 * reads `%r1.b2` as one word; this module splits it back into the register and its selector so
 * that resolution sees a plain register, and the selector travels on the instruction
 * (RInstruction.selectors, one entry per operand).
 */
import type { Operand } from './ast.js';

const VIDEO = /^v(add|sub|absdiff|min|max|shl|shr|mad|set|avrg)[24]?$/;

export function isVideoOpcode(opcode: string): boolean {
  return VIDEO.test(opcode);
}

const SUFFIX = /^(.+)\.([bh][0-7]{1,4})$/;

export interface SplitOperands {
  readonly operands: Operand[];
  /** The selector written on operand i (`b0`, `h10`, ...), or undefined. */
  readonly selectors: (string | undefined)[];
}

/**
 * Strips selector suffixes from register operands (also under a `-` negation) whose base name
 * is a register in scope; a name that is itself a register (a vector component) is left alone.
 */
export function splitSelectors(operands: readonly Operand[], isReg: (name: string) => boolean): SplitOperands {
  const selectors: (string | undefined)[] = [];
  const split = (o: Operand): Operand => {
    if (o.kind === 'neg') {
      const inner = split(o.inner);
      return inner === o.inner ? o : { ...o, inner };
    }
    if (o.kind !== 'reg' && o.kind !== 'sym') return o;
    if (isReg(o.name)) return o;
    const m = SUFFIX.exec(o.name);
    if (!m || !isReg(m[1]!)) return o;
    selectors[selectors.length - 1] = m[2]!;
    return { kind: 'reg', name: m[1]!, span: o.span };
  };
  const out = operands.map((o) => {
    selectors.push(undefined);
    return split(o);
  });
  return { operands: out, selectors };
}
