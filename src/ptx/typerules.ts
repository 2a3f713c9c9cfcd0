/**
 * Which operand types each instruction takes, from the PTX ISA's instruction descriptions. The
 * front end refuses an (opcode, type) pair the ISA does not define (`ex2.approx.s64`,
 * `testp.finite.s64`, `setp.ge.s32.f16`) with a located error, so that `check` and the
 * interpreter agree and no such pair reaches instruction selection. Opcodes not listed here are
 * checked by instruction selection itself.
 */
import { TYPE_NAMES } from './opcodes.js';

const INT = ['u16', 'u32', 'u64', 's16', 's32', 's64'];
const BITS = ['b16', 'b32', 'b64'];
const HALF = ['f16', 'f16x2', 'bf16', 'bf16x2'];

interface Rule {
  /** Types allowed in each type position, in written order. */
  readonly types: readonly (readonly string[])[];
}

const one = (...t: string[]): Rule => ({ types: [t] });

const RULES: ReadonlyMap<string, Rule> = new Map<string, Rule>([
  ['ex2', one('f32', ...HALF)],
  ['tanh', one('f32', ...HALF)],
  ['lg2', one('f32')],
  ['sin', one('f32')],
  ['cos', one('f32')],
  ['rsqrt', one('f32', 'f64')],
  ['rcp', one('f32', 'f64')],
  ['sqrt', one('f32', 'f64')],
  ['testp', one('f32', 'f64')],
  ['copysign', one('f32', 'f64')],
  ['setp', one(...BITS, ...INT, 'f32', 'f64', ...HALF)],
  // ISA 1.1 defines sad on .f32/.f64 too (current ptxas refuses them; we follow the ISA text)
  ['sad', one(...INT, 'f32', 'f64')],
  ['mul24', one('u32', 's32')],
  ['mad24', one('u32', 's32')],
  ['popc', one('b32', 'b64')],
  ['clz', one('b32', 'b64')],
  ['brev', one('b32', 'b64')],
  ['bfind', one('u32', 'u64', 's32', 's64')],
  ['bfe', one('u32', 'u64', 's32', 's64')],
  ['bfi', one('b32', 'b64')],
  ['cnot', one(...BITS)],
  ['not', one('pred', ...BITS)],
  ['and', one('pred', ...BITS)],
  ['or', one('pred', ...BITS)],
  ['xor', one('pred', ...BITS)],
  ['shl', one(...BITS)],
  ['shr', one(...BITS, ...INT)],
]);

/** Why `opcode` with modifiers `mods` is not a form the ISA defines, or undefined when it is. */
/** `.wide` doubles the width of a 16- or 32-bit integer product. */
const WIDE: Rule = one('u16', 'u32', 's16', 's32');

export function typeRuleError(opcode: string, mods: readonly string[]): string | undefined {
  const rule = (opcode === 'mul' || opcode === 'mad') && mods.includes('wide') ? WIDE : RULES.get(opcode);
  if (rule === undefined) return undefined;
  const types = mods.filter((m) => TYPE_NAMES.has(m));
  if (types.length !== rule.types.length) {
    return `${opcode} takes ${rule.types.length} type${rule.types.length === 1 ? '' : 's'}, found ${types.length ? types.map((t) => `.${t}`).join('') : 'none'}`;
  }
  for (let i = 0; i < types.length; i++) {
    const allowed = rule.types[i]!;
    if (!allowed.includes(types[i]!)) {
      return `${opcode}${rule === WIDE ? '.wide' : ''} does not take type .${types[i]} (expected one of ${allowed.map((t) => `.${t}`).join(' ')})`;
    }
  }
  return undefined;
}
