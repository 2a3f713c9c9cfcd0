/**
 * Parser for the expression language of `print`: C operators with C precedence, casts with
 * cuda-gdb's state-space qualifiers (`(@shared int *) 0x10`), `sizeof`, gdb's artificial arrays
 * (`a[0]@4`, precedence between `+` and `<<` as in gdb's c-exp.y), registers (`$r1`, `%r1`),
 * special registers (`$tid.x`, `%ctaid.y`) and value history (`$`, `$$`, `$3`, `$$2`); gdb's
 * `{TYPE} ADDR` (the object of TYPE at ADDR), `alignof` and `decltype(EXPR)` as a type.
 *
 * Whether `(name)` starts a cast depends on `name` being a type in scope, which only the caller
 * knows: it passes `isTypeName`.
 */
import { PrintError } from './errors.js';
import { tokenize, type Token } from './lexer.js';

/** An abstract declarator: `*` levels, then an inner parenthesised declarator, then `[N]`s. */
export interface Declarator {
  readonly pointers: number;
  readonly inner: Declarator | undefined;
  readonly arrays: readonly number[];
}

export interface TypeSpec {
  /** Specifier words: ['unsigned', 'int'], ['struct', 'Particle'], ['u32']. */
  readonly words: readonly string[];
  /** cuda-gdb state space written as `@shared` etc. (applies to the innermost pointer). */
  readonly space: string | undefined;
  readonly declarator: Declarator;
  readonly text: string;
  /** `decltype(EXPR)`: the base type is EXPR's (words is then ['decltype']). */
  readonly decltype?: Expr;
}

export type Expr =
  | { readonly k: 'int'; readonly value: bigint; readonly suffix: string; readonly radix: number }
  | { readonly k: 'float'; readonly value: number; readonly single: boolean }
  | { readonly k: 'char'; readonly value: number }
  | { readonly k: 'ident'; readonly name: string }
  /** A register or special register: `$r1`, `%tid` (name without the sigil). */
  | { readonly k: 'reg'; readonly name: string; readonly sigil: '$' | '%' }
  /** Value history: absolute `$N`, or relative `$` (back 0), `$$` (back 1), `$$N` (back N). */
  | { readonly k: 'history'; readonly absolute: number | undefined; readonly back: number }
  | { readonly k: 'unary'; readonly op: string; readonly e: Expr }
  | { readonly k: 'binary'; readonly op: string; readonly l: Expr; readonly r: Expr }
  | { readonly k: 'cond'; readonly c: Expr; readonly a: Expr; readonly b: Expr }
  | { readonly k: 'cast'; readonly type: TypeSpec; readonly e: Expr }
  | { readonly k: 'sizeofType'; readonly type: TypeSpec }
  | { readonly k: 'sizeof'; readonly e: Expr }
  | { readonly k: 'alignofType'; readonly type: TypeSpec }
  | { readonly k: 'alignof'; readonly e: Expr }
  /** gdb's `{TYPE} ADDR`: the object of TYPE at address ADDR, `*(TYPE *) ADDR`. */
  | { readonly k: 'at'; readonly type: TypeSpec; readonly e: Expr }
  | { readonly k: 'index'; readonly e: Expr; readonly i: Expr }
  | { readonly k: 'member'; readonly e: Expr; readonly name: string; readonly arrow: boolean };

const TYPE_WORDS: ReadonlySet<string> = new Set([
  'unsigned', 'signed', 'short', 'long', 'int', 'char', 'float', 'double', 'bool', '_Bool', 'void',
  'struct', 'union', 'enum', 'class', 'const', 'volatile',
]);

const BINARY: readonly (readonly string[])[] = [
  ['||'], ['&&'], ['|'], ['^'], ['&'], ['==', '!='], ['<', '>', '<=', '>='], ['<<', '>>'], ['@'], ['+', '-'], ['*', '/', '%'],
];

export function parseExpression(src: string, isTypeName: (name: string) => boolean): Expr {
  return new Parser(src, tokenize(src), isTypeName).parseAll();
}

/** `src` as a type name alone (`whatis Particle`, `ptype struct Vec2 *`), or undefined when it is not one. */
export function parseTypeName(src: string, isTypeName: (name: string) => boolean): TypeSpec | undefined {
  return new Parser(src, tokenize(src), isTypeName).typeOnly();
}

/** gdb's spellings of C11's alignof. */
const ALIGNOF: ReadonlySet<string> = new Set(['alignof', '_Alignof', '__alignof__', '__alignof']);

/**
 * How deep an expression may nest (parentheses, unary operators, operator chains). The parser and
 * the evaluator recurse on the tree, so without a bound a pasted 10,000-parenthesis expression would
 * exhaust the stack; gdb users never write more than a few levels.
 */
export const MAX_NESTING = 256;

class Parser {
  private i = 0;
  private depth = 0;

  constructor(private readonly src: string, private readonly toks: readonly Token[], private readonly isTypeName: (name: string) => boolean) {}

  parseAll(): Expr {
    if (this.peek().kind === 'eof') throw new PrintError('Argument required (expression to compute).');
    const e = this.conditional();
    const t = this.peek();
    if (t.kind !== 'eof') {
      if (t.kind === 'op' && t.text === '=') throw new PrintError('Assignment is not supported here: print x = v or set var x = v writes, in a what-if timeline.');
      throw new PrintError(`A syntax error in expression, near \`${this.src.slice(t.pos)}'.`);
    }
    return e;
  }

  typeOnly(): TypeSpec | undefined {
    if (!this.startsType(0)) return undefined;
    const t = this.typeSpec();
    return this.peek().kind === 'eof' ? t : undefined;
  }

  private peek(k = 0): Token {
    return this.toks[Math.min(this.i + k, this.toks.length - 1)]!;
  }

  private next(): Token {
    const t = this.peek();
    if (this.i < this.toks.length - 1) this.i++;
    return t;
  }

  private isOp(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'op' && t.text === text;
  }

  private expectOp(text: string): void {
    if (!this.isOp(text)) this.syntax();
    this.next();
  }

  private syntax(): never {
    const t = this.peek();
    throw new PrintError(t.kind === 'eof' ? 'A syntax error in expression, near `\'.' : `A syntax error in expression, near \`${this.src.slice(t.pos)}'.`);
  }

  private nest<T>(f: () => T): T {
    if (++this.depth > MAX_NESTING) throw new PrintError(`Expression too deeply nested (more than ${MAX_NESTING} levels).`);
    try {
      return f();
    } finally {
      this.depth--;
    }
  }

  private conditional(): Expr {
    return this.nest(() => this.conditionalInner());
  }

  private conditionalInner(): Expr {
    const c = this.binary(0);
    if (!this.isOp('?')) return c;
    this.next();
    const a = this.conditional();
    this.expectOp(':');
    const b = this.conditional();
    return { k: 'cond', c, a, b };
  }

  private binary(level: number): Expr {
    if (level >= BINARY.length) return this.unary();
    let l = this.binary(level + 1);
    // a chain `a + b + c ...` builds a left-deep tree: each link is one level of the evaluator's recursion
    for (let chain = 1; ; chain++) {
      const t = this.peek();
      if (t.kind !== 'op' || !BINARY[level]!.includes(t.text)) return l;
      if (this.depth + chain > MAX_NESTING) throw new PrintError(`Expression too deeply nested (more than ${MAX_NESTING} levels).`);
      this.next();
      const r = this.binary(level + 1);
      l = { k: 'binary', op: t.text, l, r };
    }
  }

  private unary(): Expr {
    return this.nest(() => this.unaryInner());
  }

  private unaryInner(): Expr {
    const t = this.peek();
    if (t.kind === 'op') {
      if (t.text === '%' && this.peek(1).kind === 'ident' && this.peek(1).pos === t.end) {
        this.next();
        const name = this.next() as Token & { kind: 'ident' };
        return this.postfix({ k: 'reg', name: name.text, sigil: '%' });
      }
      if (['-', '+', '!', '~', '*', '&'].includes(t.text)) {
        this.next();
        if ((t.text === '-' || t.text === '+') && this.isOp(t.text, 0) && this.peek().pos === t.end) {
          throw new PrintError('Increment and decrement are not supported: the debugger only reads program state.');
        }
        return { k: 'unary', op: t.text, e: this.unary() };
      }
      if (t.text === '(' && this.startsType(1)) {
        this.next();
        const type = this.typeSpec();
        this.expectOp(')');
        return { k: 'cast', type, e: this.unary() };
      }
      if (t.text === '{') {
        this.next();
        if (!this.startsType(0)) this.syntax();
        const type = this.typeSpec();
        this.expectOp('}');
        return { k: 'at', type, e: this.unary() };
      }
    }
    if (t.kind === 'ident' && (t.text === 'sizeof' || ALIGNOF.has(t.text))) {
      this.next();
      const size = t.text === 'sizeof';
      if (this.isOp('(') && this.startsType(1)) {
        this.next();
        const type = this.typeSpec();
        this.expectOp(')');
        return size ? { k: 'sizeofType', type } : { k: 'alignofType', type };
      }
      const e = this.unary();
      return size ? { k: 'sizeof', e } : { k: 'alignof', e };
    }
    return this.postfix(this.primary());
  }

  private postfix(e: Expr): Expr {
    for (let chain = 0; ; chain++) {
      if (this.depth + chain > MAX_NESTING) throw new PrintError(`Expression too deeply nested (more than ${MAX_NESTING} levels).`);
      if (this.isOp('[')) {
        this.next();
        const i = this.conditional();
        this.expectOp(']');
        e = { k: 'index', e, i };
      } else if (this.isOp('.') || this.isOp('->')) {
        const arrow = this.isOp('->');
        this.next();
        const name = this.next();
        if (name.kind !== 'ident') this.syntax();
        e = { k: 'member', e, name: name.text, arrow };
      } else if (this.isOp('(')) {
        throw new PrintError('Calling functions is not supported: the debugger only reads program state.');
      } else return e;
    }
  }

  private primary(): Expr {
    const t = this.next();
    switch (t.kind) {
      case 'int': return { k: 'int', value: t.value, suffix: t.suffix, radix: t.radix };
      case 'float': return { k: 'float', value: t.value, single: t.single };
      case 'char': return { k: 'char', value: t.value };
      case 'ident': {
        // `kernel::name`: a static of another function (as `info variables` lists them).
        let name = t.text;
        while (this.isOp('::') && this.peek(1).kind === 'ident') {
          this.next();
          name += '::' + (this.next() as Token & { kind: 'ident' }).text;
        }
        return { k: 'ident', name };
      }
      case 'dollar': return dollar(t.text);
      case 'op':
        if (t.text === '(') {
          const e = this.conditional();
          this.expectOp(')');
          return e;
        }
        this.i--;
        return this.syntax();
      case 'eof':
        return this.syntax();
    }
  }

  // ---- types ----------------------------------------------------------------------------------

  private startsType(k: number): boolean {
    const t = this.peek(k);
    if (t.kind === 'op') return t.text === '@';
    if (t.kind !== 'ident') return false;
    if (t.text === 'decltype') return this.isOp('(', k + 1);
    return TYPE_WORDS.has(t.text) || this.isTypeName(t.text);
  }

  private typeSpec(): TypeSpec {
    const start = this.peek().pos;
    const words: string[] = [];
    let space: string | undefined;
    let named = false;
    let decltype: Expr | undefined;
    for (;;) {
      const t = this.peek();
      if (t.kind === 'op' && t.text === '@') {
        this.next();
        const s = this.next();
        if (s.kind !== 'ident') this.syntax();
        space = s.text;
        continue;
      }
      if (t.kind !== 'ident') break;
      if (t.text === 'const' || t.text === 'volatile') { this.next(); continue; }
      if (t.text === 'struct' || t.text === 'union' || t.text === 'enum' || t.text === 'class') {
        this.next();
        const n = this.next();
        if (n.kind !== 'ident') this.syntax();
        words.push(t.text, n.text);
        named = true;
        continue;
      }
      if (TYPE_WORDS.has(t.text)) { this.next(); words.push(t.text); continue; }
      if (!named && words.length === 0 && t.text === 'decltype' && this.isOp('(', 1)) {
        this.next();
        this.next();
        decltype = this.conditional();
        this.expectOp(')');
        words.push('decltype');
        named = true;
        continue;
      }
      if (!named && words.length === 0 && this.isTypeName(t.text)) { this.next(); words.push(t.text); named = true; continue; }
      break;
    }
    if (words.length === 0) this.syntax();
    const declarator = this.declarator();
    const end = this.toks[this.i - 1]!.end;
    return { words, space, declarator, text: this.src.slice(start, end).trim(), ...(decltype ? { decltype } : {}) };
  }

  private declarator(): Declarator {
    let pointers = 0;
    for (;;) {
      if (this.isOp('*')) { this.next(); pointers++; continue; }
      const t = this.peek();
      if (t.kind === 'ident' && (t.text === 'const' || t.text === 'volatile')) { this.next(); continue; }
      break;
    }
    let inner: Declarator | undefined;
    if (this.isOp('(') && (this.isOp('*', 1) || this.isOp('(', 1))) {
      this.next();
      inner = this.declarator();
      this.expectOp(')');
    }
    const arrays: number[] = [];
    while (this.isOp('[')) {
      this.next();
      const n = this.next();
      if (n.kind !== 'int') this.syntax();
      arrays.push(Number(n.value));
      this.expectOp(']');
    }
    return { pointers, inner, arrays };
  }
}

function dollar(text: string): Expr {
  if (text === '$') return { k: 'history', absolute: undefined, back: 0 };
  if (text === '$$') return { k: 'history', absolute: undefined, back: 1 };
  const rel = /^\$\$(\d+)$/.exec(text);
  if (rel) return { k: 'history', absolute: undefined, back: Number(rel[1]) };
  const abs = /^\$(\d+)$/.exec(text);
  if (abs) return { k: 'history', absolute: Number(abs[1]), back: 0 };
  if (text.startsWith('$$')) throw new PrintError(`A syntax error in expression, near \`${text}'.`);
  return { k: 'reg', name: text.slice(1), sigil: '$' };
}
