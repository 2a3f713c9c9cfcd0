/**
 * Mutations of fuzz inputs. fast-check draws the mutation plans (which operation, where, with
 * what); applying a plan to a base input is deterministic, so a seed names every input exactly.
 */
import fc from 'fast-check';
import { OPCODES } from '../../src/ptx/opcodes.js';

export type TextOp =
  | { k: 'truncate'; at: number }
  | { k: 'deleteLine'; at: number }
  | { k: 'duplicateLine'; at: number }
  | { k: 'swapLines'; at: number; with: number }
  | { k: 'deleteToken'; at: number }
  | { k: 'duplicateToken'; at: number }
  | { k: 'swapTokens'; at: number; with: number }
  | { k: 'opcode'; at: number; pick: number }
  | { k: 'modifier'; at: number; pick: number }
  | { k: 'number'; at: number; pick: number }
  | { k: 'byte'; at: number; value: number };

export interface TextPlan {
  readonly base: number;
  readonly ops: readonly TextOp[];
}

const pos = fc.nat({ max: 1 << 30 });

export const textOp: fc.Arbitrary<TextOp> = fc.oneof(
  fc.record({ k: fc.constant('truncate' as const), at: pos }),
  fc.record({ k: fc.constant('deleteLine' as const), at: pos }),
  fc.record({ k: fc.constant('duplicateLine' as const), at: pos }),
  fc.record({ k: fc.constant('swapLines' as const), at: pos, with: pos }),
  fc.record({ k: fc.constant('deleteToken' as const), at: pos }),
  fc.record({ k: fc.constant('duplicateToken' as const), at: pos }),
  fc.record({ k: fc.constant('swapTokens' as const), at: pos, with: pos }),
  fc.record({ k: fc.constant('opcode' as const), at: pos, pick: pos }),
  fc.record({ k: fc.constant('modifier' as const), at: pos, pick: pos }),
  fc.record({ k: fc.constant('number' as const), at: pos, pick: pos }),
  fc.record({ k: fc.constant('byte' as const), at: pos, value: fc.nat({ max: 255 }) }),
);

export const textPlan = (bases: number): fc.Arbitrary<TextPlan> =>
  fc.record({ base: fc.nat({ max: bases - 1 }), ops: fc.array(textOp, { minLength: 1, maxLength: 3 }) });

const OPCODE_LIST = [...OPCODES];
const MODIFIER_LIST = [
  'u8', 's8', 'u16', 's16', 'u32', 's32', 'u64', 's64', 'b8', 'b16', 'b32', 'b64', 'f16', 'f16x2', 'bf16',
  'f32', 'f64', 'pred', 'v2', 'v4', 'global', 'shared', 'local', 'const', 'param', 'lo', 'hi', 'wide',
  'rn', 'rz', 'ftz', 'sat', 'approx', 'full', 'cc', 'uni', 'sync', 'aligned', 'volatile', 'relaxed',
  'acquire', 'release', 'gpu', 'sys', 'cta', 'add', 'min', 'max', 'cas', 'exch', 'and', 'or', 'xor',
  'eq', 'ne', 'lt', 'ge', 'up', 'down', 'bfly', 'idx', 'any', 'all', 'ballot', 'to', 'e4m3x2', 'tf32',
];
const NUMBERS = [
  '0', '1', '-1', '2147483647', '-2147483648', '4294967295', '4294967296', '9223372036854775807',
  '18446744073709551615', '18446744073709551616', '0x7fffffff', '0xffffffffffffffff', '0d7FF0000000000000',
  '0f7FC00000', '0f00000001', '1e308', '65536', '1024', '33', '-33', '999999999999',
];

const lines = (s: string): string[] => s.split('\n');
const tokens = (s: string): string[] => s.split(/(\s+|[,;{}()[\]])/);
const at = <T>(xs: readonly T[], i: number): number => (xs.length ? i % xs.length : 0);

/** Index of the `n`-th (mod count) token matching `re`, or -1. */
function nth(toks: readonly string[], re: RegExp, n: number): number {
  const hits: number[] = [];
  toks.forEach((t, i) => { if (re.test(t)) hits.push(i); });
  return hits.length ? hits[n % hits.length]! : -1;
}

export function applyTextOp(src: string, op: TextOp): string {
  switch (op.k) {
    case 'truncate': return src.slice(0, at([...src], op.at));
    case 'deleteLine': { const l = lines(src); l.splice(at(l, op.at), 1); return l.join('\n'); }
    case 'duplicateLine': { const l = lines(src); const i = at(l, op.at); l.splice(i, 0, l[i] ?? ''); return l.join('\n'); }
    case 'swapLines': {
      const l = lines(src); const i = at(l, op.at); const j = at(l, op.with);
      [l[i], l[j]] = [l[j] ?? '', l[i] ?? ''];
      return l.join('\n');
    }
    case 'deleteToken': { const t = tokens(src); t.splice(at(t, op.at), 1); return t.join(''); }
    case 'duplicateToken': { const t = tokens(src); const i = at(t, op.at); t.splice(i, 0, t[i] ?? ''); return t.join(''); }
    case 'swapTokens': {
      const t = tokens(src); const i = at(t, op.at); const j = at(t, op.with);
      [t[i], t[j]] = [t[j] ?? '', t[i] ?? ''];
      return t.join('');
    }
    case 'opcode': {
      // the word that starts an instruction: its base opcode becomes another one, modifiers stay
      const t = tokens(src);
      const i = nth(t, /^[a-z][a-z0-9_]*(\.[A-Za-z0-9_:]+)+$/, op.at);
      if (i < 0) return src;
      const parts = t[i]!.split('.');
      parts[0] = OPCODE_LIST[op.pick % OPCODE_LIST.length]!;
      t[i] = parts.join('.');
      return t.join('');
    }
    case 'modifier': {
      const t = tokens(src);
      const i = nth(t, /\.[a-z0-9]+/, op.at);
      if (i < 0) return src;
      const parts = t[i]!.split('.');
      if (parts.length < 2) return src;
      parts[1 + (op.pick % (parts.length - 1))] = MODIFIER_LIST[op.pick % MODIFIER_LIST.length]!;
      t[i] = parts.join('.');
      return t.join('');
    }
    case 'number': {
      const t = tokens(src);
      const i = nth(t, /^-?(0[xXfFdD][0-9a-fA-F]+|\d+)$/, op.at);
      if (i < 0) return src;
      t[i] = NUMBERS[op.pick % NUMBERS.length]!;
      return t.join('');
    }
    case 'byte': {
      const i = at([...src], op.at);
      return src.slice(0, i) + String.fromCharCode(op.value) + src.slice(i + 1);
    }
  }
}

export function applyTextPlan(bases: readonly string[], p: TextPlan): string {
  let s = bases[p.base % bases.length]!;
  for (const op of p.ops) s = applyTextOp(s, op);
  return s;
}

/**
 * DWARF mutations: only numbers inside `.section .debug_*` blocks change (a byte, a word, a
 * deleted or duplicated data line), so that the PTX still parses and the decoder sees the damage.
 */
export interface DwarfPlan {
  readonly base: number;
  readonly edits: readonly { readonly at: number; readonly value: number; readonly how: 'set' | 'delete' | 'duplicate' }[];
}

export const dwarfPlan = (bases: number): fc.Arbitrary<DwarfPlan> =>
  fc.record({
    base: fc.nat({ max: bases - 1 }),
    edits: fc.array(
      fc.record({ at: pos, value: fc.oneof(fc.nat({ max: 255 }), fc.integer(), fc.constantFrom(0, 0xff, 0xffffffff, 0x80)), how: fc.constantFrom('set' as const, 'set' as const, 'set' as const, 'delete' as const, 'duplicate' as const) }),
      { minLength: 1, maxLength: 6 },
    ),
  });

export function applyDwarfPlan(bases: readonly string[], p: DwarfPlan): string {
  const l = lines(bases[p.base % bases.length]!);
  const data: number[] = [];
  let inDebug = false;
  l.forEach((line, i) => {
    if (/^\s*\.section\s+\.debug_/.test(line)) inDebug = true;
    else if (inDebug && /^\s*\}/.test(line)) inDebug = false;
    else if (inDebug && /^\s*\.b(8|16|32|64)\s/.test(line)) data.push(i);
  });
  if (!data.length) return l.join('\n');
  for (const e of p.edits) {
    const i = data[e.at % data.length]!;
    if (e.how === 'delete') l[i] = '';
    else if (e.how === 'duplicate') l[i] = `${l[i]}\n${l[i]}`;
    else {
      // replace one number of the line (`.b8 1, 17, 0` or `.b32 info_string0`)
      const parts = l[i]!.split(/(,\s*|\s+)/);
      const nums = parts.map((x, k) => (/^-?\d+$/.test(x) ? k : -1)).filter((k) => k >= 0);
      if (!nums.length) continue;
      const k = nums[e.at % nums.length]!;
      parts[k] = String(/\.b8\s/.test(l[i]!) ? e.value & 0xff : e.value >>> 0);
      l[i] = parts.join('');
    }
  }
  return l.join('\n');
}

/** Byte-level mutations of a binary file (trace files). */
export type ByteOp =
  | { k: 'truncate'; at: number }
  | { k: 'flip'; at: number; bit: number }
  | { k: 'append'; bytes: number[] }
  | { k: 'zero'; at: number; len: number };

export interface BytePlan {
  readonly ops: readonly ByteOp[];
  /** Recompute the trailing SHA-256 after mutating, so the checks behind the checksum are reached. */
  readonly reseal: boolean;
}

export const bytePlan: fc.Arbitrary<BytePlan> = fc.record({
  ops: fc.array(
    fc.oneof(
      fc.record({ k: fc.constant('truncate' as const), at: pos }),
      fc.record({ k: fc.constant('flip' as const), at: pos, bit: fc.nat({ max: 7 }) }),
      fc.record({ k: fc.constant('append' as const), bytes: fc.array(fc.nat({ max: 255 }), { minLength: 1, maxLength: 64 }) }),
      fc.record({ k: fc.constant('zero' as const), at: pos, len: fc.nat({ max: 64 }) }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
  reseal: fc.boolean(),
});

export function applyByteOps(b: Uint8Array, ops: readonly ByteOp[]): Uint8Array {
  let out = Uint8Array.from(b);
  for (const op of ops) {
    switch (op.k) {
      case 'truncate': out = out.slice(0, out.length ? op.at % out.length : 0); break;
      case 'flip': if (out.length) out[op.at % out.length]! ^= 1 << op.bit; break;
      case 'append': { const n = new Uint8Array(out.length + op.bytes.length); n.set(out); n.set(op.bytes, out.length); out = n; break; }
      case 'zero': if (out.length) out.fill(0, op.at % out.length, (op.at % out.length) + op.len); break;
    }
  }
  return out;
}
