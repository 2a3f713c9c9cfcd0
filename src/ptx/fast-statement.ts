/**
 * The fast path of function bodies: the statements that make up nearly all of a -G module
 * (`op.mods %r1, [%rd2+8];`, `@%p1 bra $L__BB0_3;`, `$L__tmp12:`, `.loc 1 20 5`) read straight
 * from the text, with no token objects. It accepts only plain, valid forms and builds exactly the
 * nodes the token parser would; anything else (comments, expressions, vectors, errors) gives
 * undefined and the token parser takes the statement from its start.
 */
import type { Guard, Operand, Statement, VarDecl } from './ast.js';
import { AddrOperand, bigOf, GuardNode, InstructionNode, IntOperand, LabelNode, LocNode, RegOperand, SymOperand } from './nodes.js';
import { hexDigit } from './scanner.js';
import { VECTOR_ALU } from './opcodes.js';

/**
 * What the parser knows about an opcode spelling (`ld.global.u32`), or undefined if it is not
 * valid; `plain` (plainOpcode) when the fast path may take it.
 */
export type OpcodeLookup = (text: string) => { readonly opcode: string; readonly mods: readonly string[]; readonly plain: boolean } | undefined;

/** Whether the fast path may take an instruction of this opcode: not one the token parser reports on. */
export function plainOpcode(opcode: string, mods: readonly string[]): boolean {
  if ((opcode === 'div' || opcode === 'rem') && mods.includes('wide')) return false;
  // a vector modifier on arithmetic: the token parser reports it
  return !(VECTOR_ALU.has(opcode) && mods.some((m) => m === 'v2' || m === 'v3' || m === 'v4'));
}

export interface FastResult {
  readonly statement: Statement;
  /** Offset just after the statement's last character. */
  readonly end: number;
}

function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c === 37;
}
function isIdentPart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 36;
}

export class FastStatements {
  /** End of the last word, integer or statement read (the parse position of the fast path). */
  private j = 0;
  private value = 0n;
  /** The last decimal()'s value as a number. */
  private num = 0;

  constructor(
    private readonly source: string,
    private readonly word: (start: number, end: number) => string,
    private readonly opcode: OpcodeLookup,
    private readonly isType: (word: string) => boolean,
  ) {}

  /** The statement starting at `i` (after whitespace), or undefined when it is not a plain one. */
  statement(i: number): FastResult | undefined {
    const s = this.source;
    i = this.skipSpace(i);
    const c = s.charCodeAt(i);
    if (c === 46) return s.startsWith('.loc', i) && (s.charCodeAt(i + 4) === 32 || s.charCodeAt(i + 4) === 9) ? this.loc(i) : this.decl(i);
    let guard: Guard | undefined;
    const start = i;
    if (c === 64) {
      // @%p or @!%p
      let g = i + 1;
      const negate = s.charCodeAt(g) === 33;
      if (negate) g++;
      if (s.charCodeAt(g) !== 37) return undefined;
      const end = this.wordEnd(g);
      guard = new GuardNode(this.word(g, end), negate, i + 1, end);
      i = this.skipSpace(end);
    }
    if (!isIdentStart(s.charCodeAt(i)) || s.charCodeAt(i) === 37) return undefined;
    const opStart = i;
    const opEnd = this.wordEnd(i);
    i = this.skipSpace(opEnd);
    const next = s.charCodeAt(i);
    if (guard === undefined && next === 58) {
      // a label, unless it names a .callprototype
      const after = this.skipSpace(i + 1);
      if (s.startsWith('.callprototype', after) || !this.plainNext(after)) return undefined;
      return { statement: new LabelNode(this.word(opStart, opEnd), opStart, opEnd), end: i + 1 };
    }
    if (next === 46) return undefined; // modifiers written apart
    const known = this.opcode(this.word(opStart, opEnd));
    if (known === undefined || !known.plain) return undefined;
    const operands: Operand[] = [];
    if (next !== 59) {
      for (;;) {
        const o = this.operand(i);
        if (o === undefined) return undefined;
        operands.push(o);
        i = this.skipSpace(this.j);
        const d = s.charCodeAt(i);
        if (d === 44) {
          i = this.skipSpace(i + 1);
          continue;
        }
        if (d !== 59) return undefined;
        break;
      }
    }
    const end = i + 1;
    return { statement: new InstructionNode(known.opcode, known.mods, guard, operands, start, end, opStart, opEnd), end };
  }

  /** `.loc file line column` with no attributes after it. */
  private loc(i: number): FastResult | undefined {
    const s = this.source;
    let k = this.skipSpace(i + 4);
    if (!this.decimal(k)) return undefined;
    const file = this.num;
    k = this.skipSpace(this.j);
    if (!this.decimal(k)) return undefined;
    const line = this.num;
    k = this.skipSpace(this.j);
    if (!this.decimal(k)) return undefined;
    const column = this.num;
    k = this.j;
    const end = k;
    // `, function_name ...` / `, inlined_at ...` (even on the next line): the token parser's
    if (!this.plainNext(this.skipSpace(k))) return undefined;
    return { statement: new LocNode(file, line, column, i, end), end };
  }

  /**
   * `.reg|.param|.local [.align N] .type name[<N>][[N]]...;`: one name, no initializer, attributes
   * written apart (as nvcc writes a body's declarations).
   */
  private decl(i: number): FastResult | undefined {
    const s = this.source;
    let end = this.wordEnd(i);
    const spaceWord = s.slice(i + 1, end);
    if (spaceWord !== 'reg' && spaceWord !== 'param' && spaceWord !== 'local') return undefined;
    let k = this.skipSpace(end);
    let align: number | undefined;
    let type: string | undefined;
    let vector = 1;
    while (s.charCodeAt(k) === 46) {
      end = this.wordEnd(k);
      const w = s.slice(k + 1, end);
      k = this.skipSpace(end);
      if (w === 'align') {
        if (!this.decimal(k)) return undefined;
        align = this.num;
        k = this.skipSpace(this.j);
      } else if (w.length === 2 && w.charCodeAt(0) === 118 && w.charCodeAt(1) >= 48 && w.charCodeAt(1) <= 57) {
        vector = w.charCodeAt(1) - 48;
      } else if (this.isType(w)) type = w;
      else return undefined;
    }
    if (type === undefined || !isIdentStart(s.charCodeAt(k))) return undefined;
    const nameEnd = this.wordEnd(k);
    const name = this.word(k, nameEnd);
    let last = nameEnd; // the span ends at the last token before `;`
    k = this.skipSpace(nameEnd);
    let rangeCount: number | undefined;
    if (s.charCodeAt(k) === 60) {
      if (!this.decimal(this.skipSpace(k + 1))) return undefined;
      rangeCount = this.num;
      k = this.skipSpace(this.j);
      if (s.charCodeAt(k) !== 62) return undefined;
      last = k + 1;
      k = this.skipSpace(k + 1);
    }
    const dims: (number | null)[] = [];
    while (s.charCodeAt(k) === 91) {
      if (!this.decimal(this.skipSpace(k + 1))) return undefined;
      dims.push(this.num);
      k = this.skipSpace(this.j);
      if (s.charCodeAt(k) !== 93) return undefined;
      last = k + 1;
      k = this.skipSpace(k + 1);
    }
    if (s.charCodeAt(k) !== 59) return undefined;
    const decl: VarDecl = {
      kind: 'var', space: spaceWord, name, type, vector, dims, align, linkage: undefined, rangeCount, init: undefined,
      ptrSpace: undefined, span: { start: i, end: last },
    };
    return { statement: decl, end: k + 1 };
  }

  /** One operand at `i`: reg, plain symbol, decimal or hex integer, `[reg|sym (+|-) int]`. */
  private operand(i: number): Operand | undefined {
    const s = this.source;
    const c = s.charCodeAt(i);
    if (isIdentStart(c)) {
      const end = this.wordEnd(i);
      const after = this.skipSpace(end);
      const d = s.charCodeAt(after);
      if (d !== 44 && d !== 59) return undefined; // sym+imm, sym[imm], %p|%q: the token parser's
      this.j = end;
      if (c === 37) return new RegOperand(this.word(i, end), i, end);
      if (end === i + 1 && c === 95) return undefined; // `_` sink
      return new SymOperand(this.word(i, end), 0n, i, end);
    }
    if (c === 91) {
      let k = this.skipSpace(i + 1);
      const b = s.charCodeAt(k);
      if (!isIdentStart(b)) return undefined;
      const end = this.wordEnd(k);
      const base = b === 37 ? new RegOperand(this.word(k, end), k, end) : new SymOperand(this.word(k, end), 0n, k, end);
      k = this.skipSpace(end);
      let offset = 0n;
      const op = s.charCodeAt(k);
      if (op === 43 || op === 45) {
        k = this.skipSpace(k + 1);
        if (!this.integer(k)) return undefined;
        offset = op === 45 ? -this.value : this.value;
        k = this.skipSpace(this.j);
      }
      if (s.charCodeAt(k) !== 93) return undefined;
      this.j = k + 1;
      return new AddrOperand(base, offset, i, k + 1);
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      const neg = c === 45;
      const k = neg ? i + 1 : i;
      if (!this.integer(k)) return undefined;
      return new IntOperand(neg ? -this.value : this.value, i, this.j);
    }
    return undefined;
  }

  /** A decimal (not octal) or `0x` literal at `k` that the scanner would take whole: sets value and j. */
  private integer(k: number): boolean {
    const s = this.source;
    if (s.charCodeAt(k) === 48 && (s.charCodeAt(k + 1) | 0x20) === 120) {
      let e = k + 2;
      let v = 0;
      for (;;) {
        const c = s.charCodeAt(e);
        const h = hexDigit(c);
        if (h < 0) break;
        v = v * 16 + h;
        e++;
      }
      if (e === k + 2 || e - k - 2 > 13 || isIdentPart(s.charCodeAt(e)) || s.charCodeAt(e) === 46) return false;
      this.value = bigOf(v);
      this.j = e;
      return true;
    }
    if (!this.decimal(k)) return false;
    this.value = bigOf(this.num);
    return true;
  }

  private decimal(k: number): boolean {
    const s = this.source;
    let e = k;
    let v = 0;
    while (s.charCodeAt(e) >= 48 && s.charCodeAt(e) <= 57) {
      v = v * 10 + s.charCodeAt(e) - 48;
      e++;
    }
    // no digits, C octal, past 2^53, a suffix, a float or an exponent: the token parser's
    if (e === k || e - k > 15 || (e - k > 1 && s.charCodeAt(k) === 48)) return false;
    const c = s.charCodeAt(e);
    if (isIdentPart(c) || c === 46) return false;
    this.num = v;
    this.j = e;
    return true;
  }

  /** End of the word at `i`: identifier characters, then glued `.mod` and `::` parts (as the scanner). */
  private wordEnd(i: number): number {
    const s = this.source;
    const n = s.length;
    i++;
    while (i < n && isIdentPart(s.charCodeAt(i))) i++;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 46 && i + 1 < n && isIdentPart(s.charCodeAt(i + 1))) i++;
      else if (c === 58 && s.charCodeAt(i + 1) === 58 && isIdentPart(s.charCodeAt(i + 2) || 0)) i += 2;
      else return i;
      while (i < n && isIdentPart(s.charCodeAt(i))) i++;
    }
  }

  /**
   * Whether the token at `k` is one the scanner reads as it stands and is no `,` (which would
   * continue a `.loc`): the scanner skips characters no token starts with, so what follows them
   * could be anything.
   */
  private plainNext(k: number): boolean {
    const s = this.source;
    if (k >= s.length) return true;
    const c = s.charCodeAt(k);
    if (isIdentStart(c) || (c >= 48 && c <= 57) || c === 34) return true;
    if (c === 46) return isIdentPart(s.charCodeAt(k + 1));
    return '{}()[];:<>+-=@!|*~&^%?'.includes(s[k]!);
  }

  /** Past blanks, line breaks and `//` comments (what the scanner skips between tokens). */
  private skipSpace(i: number): number {
    const s = this.source;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else if (c === 47 && s.charCodeAt(i + 1) === 47) {
        const nl = s.indexOf('\n', i + 2);
        i = nl < 0 ? s.length : nl;
      } else return i;
    }
  }
}
