/**
 * Recursive-descent PTX parser. Produces a whole module even after errors: a bad statement is
 * reported and skipped up to its `;` (or the enclosing `}`), and parsing resumes, so one run
 * reports several independent errors. Never throws on bad input.
 *
 * Over 600 lines on purpose: it is one recursive-descent class over one token cursor, one method
 * per production of the grammar (directives, declarations, statements, operands, initializers);
 * the productions call each other and share the cursor and the error recovery, so splitting it
 * would scatter one grammar over modules that import each other. The scanner, the fast path for
 * common statements, AST nodes and section data are modules of their own already.
 */
import type {
  Block, CallPrototype, DeferredBody, FunctionDecl, Guard, Initializer, Instruction, OpaqueField, Linkage, LocDirective,
  Operand, PtxModule, Section, Span, Statement, StateSpace, StructDecl, TopLevel, VarDecl,
} from './ast.js';
import type { Diagnostic } from './diagnostics.js';
import { isKnownModifier, OPCODES, TYPE_NAMES, VECTOR_ALU } from './opcodes.js';
import { Scanner, scanSectionData, Tok, type Token } from './scanner.js';
import { FastStatements, plainOpcode } from './fast-statement.js';
import { AddrOperand, InstructionNode, RegOperand, SymOperand } from './nodes.js';
import { SectionDataList } from './section-data.js';
import { MISSING_VERSION, unknownVersion } from './versions.js';

export interface ParseResult {
  readonly module: PtxModule;
  readonly diagnostics: readonly Diagnostic[];
}

export interface ParseOptions {
  /**
   * Leave function bodies as text until something reads them (FunctionDecl.deferred): loading a
   * module to run one kernel then reads only the bodies that kernel can reach. A body's own
   * syntax errors are reported when it is read (resolve.ts), not by this parse.
   */
  readonly deferBodies?: boolean;
}

const MAX_DIAGNOSTICS = 100;
/**
 * How deep blocks, initializer lists, operand lists and constant expressions may nest: the parser
 * recurses on each, and a hostile file (100,000 `{` or `(`) would otherwise overflow the stack.
 * nvcc's output nests a few levels.
 */
export const MAX_NESTING = 256;

const SPACES: ReadonlySet<string> = new Set([
  'reg', 'sreg', 'const', 'global', 'local', 'param', 'shared', 'tex', 'surf', 'sampler',
  'texref', 'surfref', 'samplerref',
]);
const LINKAGES: ReadonlySet<string> = new Set(['extern', 'visible', 'weak', 'common']);
const PERF_DIRECTIVES: ReadonlySet<string> = new Set([
  'maxntid', 'reqntid', 'minnctapersm', 'maxnctapersm', 'maxnreg', 'maxclusterrank',
  'reqnctapercluster', 'explicitcluster', 'blocksareclusters', 'abi_preserve', 'abi_preserve_control',
]);

class ParseError extends Error {}

export function parsePtx(source: string, fileName = '<input>', opts: ParseOptions = {}): ParseResult {
  return new Parser(source, fileName, opts.deferBodies === true).parseModule();
}

class Parser {
  /** A window of tokens from `base` (earlier ones are dropped: the parser never goes back). */
  private toks: Token[] = [];
  private base = 0;
  private readonly scanner: Scanner;
  private readonly fast: FastStatements;
  /** End of the last statement the fast path took (it consumed no token to measure spans by). */
  private fastEnd = 0;
  private eof: Token | undefined;
  private pos = 0;
  private diags: Diagnostic[] = [];
  /** The module's .version is 1.x (set when .version is read). */
  private isa1x = false;
  /** Bodies may be deferred: asked for, and the module's version is 2.0 or later (ISA 1.x bodies carry module state). */
  private deferring = false;
  private readonly structs = new Set<string>();
  /** ISA 1.1 index-less `.file`/`.loc`: highest index seen, the latest .file, .file found in bodies. */
  private implicitFile = 0;
  private lastFile = 1;
  private readonly bodyFiles: TopLevel[] = [];
  private readonly operandScratch: Operand[] = [];
  private readonly opcodeCache = new Map<string, { readonly opcode: string; readonly mods: readonly string[]; readonly plain: boolean }>();

  constructor(private readonly source: string, private readonly fileName: string, private readonly defer = false) {
    this.scanner = new Scanner(source, (message, span) => this.error(message, span));
    this.fast = new FastStatements(source, (start, end) => this.scanner.word(start, end), (text) => this.lookupOpcode(text), (w) => TYPE_NAMES.has(w));
  }

  /**
   * An opcode spelling split into opcode and modifiers, or undefined when a part is unknown. A
   * module repeats a few hundred spellings: each is split and checked once, and instructions
   * share its (read-only) modifier list.
   */
  private lookupOpcode(text: string): { readonly opcode: string; readonly mods: readonly string[]; readonly plain: boolean } | undefined {
    let known = this.opcodeCache.get(text);
    if (known !== undefined) return known;
    const parts = text.split('.');
    const opcode = parts[0]!;
    const mods = parts.slice(1);
    if (!OPCODES.has(opcode) || !mods.every(isKnownModifier)) return undefined;
    known = { opcode, mods, plain: plainOpcode(opcode, mods) };
    this.opcodeCache.set(text, known);
    return known;
  }

  /**
   * Plain statements straight from the text (fast-statement.ts), while no token beyond the
   * position is scanned yet; stops at the first statement that needs the token parser.
   */
  private fastStatements(body: Statement[]): void {
    // ISA 1.x modules are small and have rules of their own (div.u64 unimplemented): tokens only
    if (this.eof || this.isa1x) return;
    for (;;) {
      let from = this.scanner.offset;
      const ahead = this.base + this.toks.length - this.pos;
      let peeked: Token | undefined;
      if (ahead === 1) {
        peeked = this.toks[this.toks.length - 1]!;
        from = peeked.start;
      } else if (ahead !== 0) return;
      const r = this.fast.statement(from);
      if (r === undefined) return;
      if (peeked !== undefined) this.toks.pop();
      body.push(r.statement);
      this.scanner.seek(r.end);
      this.fastEnd = r.end;
    }
  }

  // ---- token helpers -------------------------------------------------------------------------

  /** Token i of the stream, scanning on demand; tokens far behind the position are dropped. */
  private at(i: number): Token {
    if (this.pos - this.base > 4096) {
      const drop = this.pos - this.base - 16;
      this.toks = this.toks.slice(drop);
      this.base += drop;
    }
    const idx = i - this.base;
    while (idx >= this.toks.length) {
      if (this.eof) return this.eof;
      const t = this.scanner.next();
      this.toks.push(t);
      if (t.kind === Tok.Eof) this.eof = t;
    }
    return this.toks[Math.max(0, idx)]!;
  }

  private get tok(): Token {
    return this.at(this.pos);
  }
  private peek(k = 1): Token {
    return this.at(this.pos + k);
  }
  private next(): Token {
    const t = this.tok;
    if (t.kind !== Tok.Eof) this.pos++;
    return t;
  }
  private isPunct(ch: string, t: Token = this.tok): boolean {
    return t.kind === Tok.Punct && t.text === ch;
  }
  private eatPunct(ch: string): boolean {
    if (this.isPunct(ch)) {
      this.pos++;
      return true;
    }
    return false;
  }
  private expectPunct(ch: string, what?: string): Token {
    if (this.isPunct(ch)) return this.next();
    this.fail(`expected '${ch}'${what ? ' ' + what : ''} but found ${describe(this.tok)}`);
  }
  private isDir(name: string, t: Token = this.tok): boolean {
    return t.kind === Tok.Dir && t.text === '.' + name;
  }
  private error(message: string, span: Span): void {
    if (this.diags.length >= MAX_DIAGNOSTICS) return;
    // one diagnostic per position
    const last = this.diags[this.diags.length - 1];
    if (last && last.span.start === span.start) return;
    this.diags.push({ severity: 'error', message, span });
  }
  /** Nesting depth of the recursive rules (MAX_NESTING). */
  private nesting = 0;
  /** Enter one more level of a recursive rule at `t`; a located error past MAX_NESTING. Pair with `this.nesting--`. */
  private deeper(t: Token, what: string): void {
    if (this.nesting >= MAX_NESTING) this.fail(`${what} nested more than ${MAX_NESTING} levels deep`, t);
    this.nesting++;
  }

  private fail(message: string, span: Span = this.tok): never {
    this.error(message, { start: span.start, end: span.end });
    throw new ParseError(message);
  }
  private spanFrom(start: number): Span {
    return { start, end: this.endFrom(start) };
  }
  /** Where the node that began at `start` ends: after the last token taken. */
  private endFrom(start: number): number {
    return Math.max(start, this.at(Math.max(0, this.pos - 1)).end, this.fastEnd);
  }

  /** Skip to just after the next `;` at this nesting level, or stop before a closing `}`. */
  private recover(): void {
    let depth = 0;
    while (this.tok.kind !== Tok.Eof) {
      if (this.isPunct('{')) depth++;
      else if (this.isPunct('}')) {
        if (depth === 0) return;
        depth--; // a balanced `{...}` (vector operand or block) is skipped whole
      } else if (this.isPunct(';') && depth === 0) {
        this.pos++;
        return;
      }
      this.pos++;
    }
  }

  // ---- module ----------------------------------------------------------------------------------

  parseModule(): ParseResult {
    let version: string | undefined;
    const target: string[] = [];
    let addressSize: 32 | 64 = 64;
    let sawAddressSize = false;
    const items: TopLevel[] = [];
    // ptxas: "Missing .version directive at start of file" (an empty file included)
    if (!this.isDir('version')) this.error(MISSING_VERSION, this.tok.kind === Tok.Eof ? { start: 0, end: 0 } : this.tok);
    while (this.tok.kind !== Tok.Eof) {
      const before = this.pos;
      try {
        const t = this.tok;
        if (this.isDir('version')) {
          this.next();
          const v = this.next();
          if (v.kind !== Tok.Float && v.kind !== Tok.Int) this.fail('expected a version number after .version', v);
          const unknown = unknownVersion(v.text);
          if (unknown !== undefined) this.error(unknown, v);
          version = v.text;
          this.isa1x = versionBefore(version, 2, 0);
          this.deferring = this.defer && !versionBefore(version, 2, 0);
        } else if (this.isDir('target')) {
          this.next();
          do {
            const w = this.next();
            if (w.kind !== Tok.Word) this.fail('expected a target name', w);
            target.push(w.text);
          } while (this.eatPunct(','));
        } else if (this.isDir('address_size')) {
          this.next();
          const v = this.next();
          if (v.kind !== Tok.Int || (v.int !== 32n && v.int !== 64n)) this.fail('.address_size must be 32 or 64', v);
          addressSize = v.int === 32n ? 32 : 64;
          sawAddressSize = true;
        } else if (this.isDir('file')) {
          items.push(this.parseFile());
        } else if (this.isDir('section')) {
          items.push(this.parseSection());
        } else if (this.isDir('struct') || this.isDir('union')) {
          items.push(this.parseStruct());
        } else if (this.isDir('pragma')) {
          items.push(this.parsePragma());
        } else if (this.isDir('loc')) {
          this.parseLoc(); // stray top-level .loc: accepted, carries no instruction
        } else if (t.kind === Tok.Dir) {
          items.push(...this.parseTopDecl());
        } else if (this.isPunct(';')) {
          this.next();
        } else {
          this.fail(`expected a directive at module level but found ${describe(t)}`);
        }
      } catch (e) {
        if (!(e instanceof ParseError)) throw e;
        this.recover();
      }
      if (this.pos === before) this.pos++; // guarantee progress
    }
    items.push(...this.bodyFiles);
    // before PTX 2.3 there is no .address_size and addressing is 32-bit (ISA 1.1 pointers are .u32)
    if (!sawAddressSize && version !== undefined && versionBefore(version, 2, 3)) addressSize = 32;
    const module: PtxModule = { fileName: this.fileName, source: this.source, version, target, addressSize, items };
    return { module, diagnostics: this.diags };
  }

  private parseFile(): TopLevel {
    const start = this.next().start;
    // ISA 1.1 writes `.file name` with no index: it gets the next free one, and an index-less
    // `.loc line` refers to the most recent .file
    const idx = this.tok.kind === Tok.Str ? undefined : this.next();
    if (idx !== undefined && idx.kind !== Tok.Int) this.fail('expected a file index after .file', idx);
    const index = idx === undefined ? this.implicitFile + 1 : Number(idx.int);
    this.implicitFile = Math.max(this.implicitFile, index);
    this.lastFile = index;
    const path = this.next();
    if (path.kind !== Tok.Str) this.fail('expected a quoted file name', path);
    // optional timestamp and size
    while (this.eatPunct(',')) this.parseConstExpr();
    return { kind: 'file', index, path: unquote(path.text), span: this.spanFrom(start) };
  }

  private parsePragma(): { kind: 'pragma'; text: string; span: Span } {
    const start = this.next().start;
    const parts: string[] = [];
    do {
      const s = this.next();
      if (s.kind !== Tok.Str) this.fail('expected a string after .pragma', s);
      parts.push(unquote(s.text));
    } while (this.eatPunct(','));
    this.expectPunct(';');
    return { kind: 'pragma', text: parts.join(', '), span: this.spanFrom(start) };
  }

  private parseLoc(): LocDirective {
    const start = this.next().start;
    const first = this.expectInt('line number');
    // ISA 1.1 `.loc line`: a single number is the line in the most recent .file
    const indexless = this.tok.kind !== Tok.Int;
    const f = indexless ? this.lastFile : first;
    const line = indexless ? first : this.expectInt('line number');
    const col = this.tok.kind === Tok.Int ? this.expectInt('column') : 0;
    let inlinedAt: LocDirective['inlinedAt'];
    let functionName: string | undefined;
    while (this.eatPunct(',')) {
      const w = this.next();
      if (w.kind === Tok.Word && w.text === 'function_name') {
        const n = this.next();
        if (n.kind !== Tok.Word) this.fail('expected a label after function_name', n);
        functionName = n.text;
        if (this.eatPunct('+')) this.parseConstExpr();
      } else if (w.kind === Tok.Word && w.text === 'inlined_at') {
        inlinedAt = { file: this.expectInt('file index'), line: this.expectInt('line'), column: this.expectInt('column') };
      } else this.fail(`unknown .loc attribute ${describe(w)}`, w);
    }
    return { kind: 'loc', file: f, line, column: col, inlinedAt, functionName, span: this.spanFrom(start) };
  }

  private expectInt(what: string): number {
    const t = this.next();
    if (t.kind !== Tok.Int) this.fail(`expected ${what} but found ${describe(t)}`, t);
    return Number(t.int);
  }

  private parseSection(): Section {
    const start = this.next().start;
    const nameTok = this.next();
    if (nameTok.kind !== Tok.Dir && nameTok.kind !== Tok.Word) this.fail('expected a section name', nameTok);
    // ISA 1.1 form: .section .debug_info, "", @progbits
    if (this.eatPunct(',')) {
      while (!this.isPunct('{') && this.tok.kind !== Tok.Eof && !this.isDir('b8') && !this.isDir('byte')) {
        if (this.tok.kind === Tok.Dir && this.tok.text !== nameTok.text && this.peek().kind !== Tok.Punct) break;
        this.next();
      }
    }
    const data = new SectionDataList();
    const labels: { name: string; datum: number; span: Span }[] = [];
    const braced = this.eatPunct('{');
    for (;;) {
      this.fastSectionData(data);
      const t = this.tok;
      if (braced && this.isPunct('}')) {
        this.next();
        break;
      }
      if (t.kind === Tok.Eof) {
        if (braced) this.error('unterminated .section: missing }', t);
        break;
      }
      if (t.kind === Tok.Word && this.isPunct(':', this.peek())) {
        this.next();
        this.next();
        labels.push({ name: t.text, datum: data.length, span: spanOf(t) });
        continue;
      }
      if (t.kind === Tok.Dir) {
        const width = dataWidth(t.text);
        if (width === 0) {
          if (!braced) break; // next top-level directive ends an unbraced section
          this.fail(`unexpected ${t.text} in .section (expected .b8/.b16/.b32/.b64)`, t);
        }
        this.next();
        do this.parseSectionDatum(width as 1 | 2 | 4 | 8, data);
        while (this.eatPunct(','));
        this.eatPunct(';');
        continue;
      }
      if (this.isPunct(';')) {
        this.next();
        continue;
      }
      this.fail(`unexpected ${describe(t)} in .section`, t);
    }
    return { kind: 'section', name: nameTok.text, data, labels, span: this.spanFrom(start) };
  }

  /** Plain `.bN` literal lines straight from the text, when no token beyond the position is scanned yet. */
  private fastSectionData(data: SectionDataList): void {
    if (this.eof) return;
    let from = this.scanner.offset;
    const ahead = this.base + this.toks.length - this.pos;
    if (ahead === 1) {
      // the current token was looked at (after a `,` test) but not taken: scan it again from text
      const t = this.toks[this.toks.length - 1]!;
      if (t.kind !== Tok.Dir) return;
      from = t.start;
      this.toks.pop();
    } else if (ahead !== 0) return;
    this.scanner.seek(scanSectionData(this.source, from, data));
  }

  private parseSectionDatum(width: 1 | 2 | 4 | 8, data: SectionDataList): void {
    const t = this.tok;
    // the common datum is one literal (`.b8 0x12, 0x34`): no expression parse
    if (t.kind === Tok.Int) {
      const after = this.peek();
      if (after.kind === Tok.Punct && (after.text === ',' || after.text === ';' || after.text === '}')) {
        this.next();
        data.pushNum(width, t.int, t);
        return;
      }
    }
    if (t.kind === Tok.Word || t.kind === Tok.Dir) {
      this.next();
      let addend = 0n;
      if (this.isPunct('+') || this.isPunct('-')) {
        const neg = this.next().text === '-';
        addend = this.parseConstExpr();
        if (neg) addend = -addend;
      }
      data.pushSym(width, t.text, addend, this.spanFrom(t.start));
      return;
    }
    const value = this.parseConstExpr();
    data.pushNum(width, value, this.spanFrom(t.start));
  }

  private parseStruct(): StructDecl {
    const start = this.tok.start;
    const isUnion = this.next().text === '.union';
    const name = this.next();
    if (name.kind !== Tok.Word) this.fail('expected a struct name', name);
    this.expectPunct('{');
    const fields: VarDecl[] = [];
    while (!this.isPunct('}') && this.tok.kind !== Tok.Eof) {
      fields.push(...this.parseVarDeclRest('reg', undefined, this.tok.start, true));
    }
    this.expectPunct('}');
    this.eatPunct(';');
    this.structs.add(name.text);
    return { kind: 'struct', isUnion, name: name.text, fields, span: this.spanFrom(start) };
  }

  /** A module-level declaration: linkage? then .entry/.func or a variable. */
  private parseTopDecl(): TopLevel[] {
    const start = this.tok.start;
    let linkage: Linkage | undefined;
    while (this.tok.kind === Tok.Dir && LINKAGES.has(this.tok.text.slice(1))) {
      linkage = this.next().text.slice(1) as Linkage;
    }
    if (this.isDir('entry') || this.isDir('func')) return [this.parseFunction(linkage, start)];
    const t = this.tok;
    if (t.kind === Tok.Dir && SPACES.has(spaceWord(t.text))) {
      this.next();
      this.constBank(t);
      return this.parseVarDeclRest(normSpace(spaceWord(t.text)), linkage, start, false, t.text);
    }
    this.fail(`unknown directive ${describe(t)}`, t);
  }

  // ---- declarations -----------------------------------------------------------------------------

  /**
   * ISA 1.1 `.const[bank]`: "The constant space is restricted to a single bank. This may be
   * written as .const or .const[0]" — bank 0 is the ordinary constant space, others are refused.
   */
  private constBank(space: Token): void {
    if (space.text !== '.const' || !this.isPunct('[')) return;
    const open = this.next();
    const bank = this.parseConstExpr();
    this.expectPunct(']');
    if (bank !== 0n) this.fail(`constant bank ${bank} is not supported: only .const[0] exists (PTX ISA 1.1 restricts .const to a single bank)`, { start: open.start, end: this.tok.start });
  }

  /**
   * After the state space: attributes (.align N, .vN, type, .ptr...), name(s), ranges, dims,
   * initializer, `;`. `inList` is for parameter lists (no `;`, one name).
   */
  private parseVarDeclRest(
    space: StateSpace, linkage: Linkage | undefined, start: number, inStruct = false, spaceText?: string,
    inList = false,
  ): VarDecl[] {
    let align: number | undefined;
    let vector = 1;
    let type: string | undefined;
    let ptrSpace: string | undefined;
    // glued forms like `.v4.f32` arrive as one token
    const glued = spaceText && spaceText.includes('.', 1) ? spaceText.split('.').slice(2) : [];
    const takeAttr = (word: string, t: Token): void => {
      if (word === 'align') {
        align = Number(this.parseConstExpr());
      } else if (/^v\d+$/.test(word)) {
        vector = Number(word.slice(1));
      } else if (TYPE_NAMES.has(word) || word === 'texref' || word === 'surfref' || word === 'samplerref') {
        type = word;
      } else if (word === 'ptr') {
        ptrSpace = 'generic';
      } else if (ptrSpace !== undefined && (SPACES.has(word) || word === 'generic')) {
        ptrSpace = word;
      } else if (word === 'ptr' || word === 'attribute' || word === 'managed' || word === 'unified') {
        if (this.isPunct('(')) this.skipParens();
      } else if (LINKAGES.has(word)) {
        // accepted in either order
      } else {
        this.fail(`unknown attribute .${word} in declaration`, t);
      }
    };
    for (const g of glued) takeAttr(g, this.tok);
    for (;;) {
      const t = this.tok;
      if (t.kind !== Tok.Dir) break;
      this.next();
      for (const part of t.text.slice(1).split('.')) takeAttr(part, t);
    }
    if (type === undefined && this.tok.kind === Tok.Word && this.structs.has(this.tok.text)) {
      type = this.next().text;
    }
    if (type === undefined) {
      // texture/surface refs and ISA 1.1 `.tex .u32 t` have a type; a missing one is an error
      if (space === 'tex' || space === 'surf' || space === 'sampler') type = space + 'ref';
      else this.fail(`expected a type in declaration but found ${describe(this.tok)}`);
    }
    // ISA 1.1 struct fields put the dimensions on the type: `.f32[4] v`
    const prefixDims: (number | null)[] = [];
    while (this.isPunct('[')) {
      this.next();
      prefixDims.push(this.isPunct(']') ? null : Number(this.parseConstExpr()));
      this.expectPunct(']');
    }
    const out: VarDecl[] = [];
    for (;;) {
      const nameTok = this.next();
      if (nameTok.kind !== Tok.Word) this.fail(`expected a name in declaration but found ${describe(nameTok)}`, nameTok);
      let rangeCount: number | undefined;
      if (this.isPunct('<')) {
        this.next();
        rangeCount = Number(this.parseConstExpr());
        this.expectPunct('>');
      }
      const dims: (number | null)[] = [...prefixDims];
      while (this.isPunct('[')) {
        this.next();
        if (this.isPunct(']')) dims.push(null);
        else dims.push(Number(this.parseConstExpr()));
        this.expectPunct(']');
      }
      let init: Initializer | undefined;
      let fields: OpaqueField[] | undefined;
      const opaque = type === 'texref' || type === 'samplerref' || type === 'surfref';
      if (this.eatPunct('=')) {
        if (opaque) fields = this.parseOpaqueFields();
        else init = this.parseInitializer();
      }
      out.push({
        kind: 'var', space, name: nameTok.text, type, vector, dims, align, linkage, rangeCount, init, ptrSpace,
        ...(fields ? { fields } : {}), span: this.spanFrom(start),
      });
      if (inList) return out;
      if (!this.eatPunct(',')) break;
    }
    if (!inStruct || !this.isPunct('}')) this.expectPunct(';', 'after declaration');
    return out;
  }

  private skipParens(): void {
    let depth = 0;
    do {
      if (this.isPunct('(')) depth++;
      else if (this.isPunct(')')) depth--;
      this.next();
    } while (depth > 0 && this.tok.kind !== Tok.Eof);
  }

  /** `{ filter_mode = nearest, addr_mode_0 = wrap }`: the settings of an opaque variable. */
  private parseOpaqueFields(): OpaqueField[] {
    const out: OpaqueField[] = [];
    this.expectPunct('{');
    if (!this.isPunct('}')) {
      do {
        const start = this.tok.start;
        const name = this.next();
        if (name.kind !== Tok.Word) this.fail('expected a field name (filter_mode, addr_mode_0, ...)', name);
        this.expectPunct('=');
        const value = this.next();
        if (value.kind !== Tok.Word && value.kind !== Tok.Int) this.fail('expected a field value (nearest, linear, wrap, clamp_to_border, 0, 1, ...)', value);
        out.push({ name: name.text, value: value.text, span: this.spanFrom(start) });
      } while (this.eatPunct(','));
    }
    this.expectPunct('}');
    return out;
  }

  private parseInitializer(): Initializer {
    const start = this.tok.start;
    if (this.isPunct('{')) {
      if (this.nesting >= MAX_NESTING) {
        // the rest of the declaration is skipped, so its closing braces are not one error each
        const at = this.tok;
        while (!this.isPunct(';') && this.tok.kind !== Tok.Eof) this.next();
        this.fail(`initializer lists nested more than ${MAX_NESTING} levels deep`, at);
      }
      this.deeper(this.tok, 'initializer lists');
      try {
        this.next();
        const items: Initializer[] = [];
        if (!this.isPunct('}')) {
          do items.push(this.parseInitializer());
          while (this.eatPunct(','));
        }
        this.expectPunct('}');
        return { kind: 'list', items, span: this.spanFrom(start) };
      } finally {
        this.nesting--;
      }
    }
    const t = this.tok;
    if (t.kind === Tok.Float) {
      this.next();
      return { kind: 'float', value: t.num, ...(t.f32Bits !== undefined ? { f32Bits: t.f32Bits } : {}), span: spanOf(t) };
    }
    if (this.isPunct('-') && this.peek().kind === Tok.Float) {
      this.next();
      const f = this.next();
      return { kind: 'float', value: -f.num, span: this.spanFrom(start) };
    }
    if (t.kind === Tok.Word && (t.text === 'generic' || t.text === 'mask') && this.isPunct('(', this.peek())) {
      this.next();
      this.next();
      const s = this.next();
      if (s.kind !== Tok.Word) this.fail('expected a symbol in generic()', s);
      this.expectPunct(')');
      const addend = this.parseAddend();
      return { kind: 'sym', name: s.text, addend, generic: t.text === 'generic', span: this.spanFrom(start) };
    }
    if (t.kind === Tok.Word) {
      this.next();
      const addend = this.parseAddend();
      return { kind: 'sym', name: t.text, addend, generic: false, span: this.spanFrom(start) };
    }
    return { kind: 'int', value: this.parseConstExpr(), span: this.spanFrom(start) };
  }

  private parseAddend(): bigint {
    if (this.isPunct('+') || this.isPunct('-')) {
      const neg = this.next().text === '-';
      const v = this.parseConstExpr();
      return neg ? -v : v;
    }
    return 0n;
  }

  // ---- functions --------------------------------------------------------------------------------

  private parseFunction(linkage: Linkage | undefined, start: number): FunctionDecl {
    const isEntry = this.next().text === '.entry';
    let rets: VarDecl[] = [];
    if (!isEntry && this.isPunct('(')) rets = this.parseParamList();
    const nameTok = this.next();
    if (nameTok.kind !== Tok.Word) this.fail(`expected a function name but found ${describe(nameTok)}`, nameTok);
    const ctaDims: number[] = [];
    while (this.isPunct('[')) {
      this.next();
      ctaDims.push(this.isPunct(']') ? 0 : Number(this.parseConstExpr()));
      this.expectPunct(']');
    }
    let params: VarDecl[] = [];
    let noreturn = false;
    const perf = new Map<string, number[]>();
    const hasList = this.isPunct('(');
    if (hasList) params = this.parseParamList();
    for (;;) {
      const t = this.tok;
      if (this.isDir('noreturn')) {
        this.next();
        noreturn = true;
      } else if (t.kind === Tok.Dir && PERF_DIRECTIVES.has(t.text.slice(1))) {
        this.next();
        const vals: number[] = [];
        if (this.tok.kind === Tok.Int || this.isPunct('(')) {
          do vals.push(Number(this.parseConstExpr()));
          while (this.eatPunct(','));
        }
        perf.set(t.text.slice(1), vals);
      } else if (this.isDir('pragma')) {
        this.parsePragma();
      } else break;
    }
    let body: Statement[] | undefined;
    if (this.eatPunct(';')) body = undefined;
    else if (this.isPunct('{')) {
      // ISA 1.1 entries without a parameter list take their parameters from the body
      const close = this.deferring && (hasList || !isEntry) ? this.skipBody() : -1;
      if (close >= 0) {
        const open = this.at(this.pos - 1).start;
        return deferredFunction(this, open, {
          kind: 'function', isEntry, name: nameTok.text, linkage, rets, params, noreturn, perf, ctaDims,
          span: this.spanFrom(start), nameSpan: spanOf(nameTok),
        });
      }
      body = this.parseBlockBody();
    } else this.fail(`expected '{' or ';' after function header but found ${describe(this.tok)}`);
    if (isEntry && !hasList && body !== undefined) {
      // ISA 1.1 entries have no parameter list: the `.param` declarations of the body are the
      // kernel's parameters, in order
      const hoisted = body.filter((s): s is VarDecl => s.kind === 'var' && s.space === 'param');
      if (hoisted.length > 0) {
        params = hoisted;
        body = body.filter((s) => !(s.kind === 'var' && s.space === 'param'));
      }
    }
    return {
      kind: 'function', isEntry, name: nameTok.text, linkage, rets, params, body, noreturn, perf, ctaDims,
      span: this.spanFrom(start), nameSpan: spanOf(nameTok),
    };
  }

  private parseParamList(): VarDecl[] {
    this.expectPunct('(');
    const out: VarDecl[] = [];
    if (this.eatPunct(')')) return out;
    do {
      const start = this.tok.start;
      const sp = this.next();
      if (sp.kind !== Tok.Dir || !SPACES.has(spaceWord(sp.text))) this.fail(`expected .param or .reg in parameter list but found ${describe(sp)}`, sp);
      out.push(...this.parseVarDeclRest(normSpace(spaceWord(sp.text)), undefined, start, false, sp.text, true));
    } while (this.eatPunct(','));
    this.expectPunct(')', 'to close the parameter list');
    return out;
  }

  /**
   * At a body's `{`: moves past its matching `}` without parsing it and returns that brace's
   * offset, or -1 (nothing consumed) when the text needs the token parser to find the end.
   */
  private skipBody(): number {
    if (this.base + this.toks.length - this.pos !== 1) return -1; // tokens beyond `{` already scanned
    const close = bodyEnd(this.source, this.tok.start);
    if (close < 0) return -1;
    this.pos++;
    this.scanner.seek(close + 1);
    this.fastEnd = close + 1;
    return close;
  }

  /** A deferred body, parsed from its `{` with this (finished) parser; its own diagnostics. */
  parseDeferred(open: number): { body: Statement[]; diagnostics: Diagnostic[] } {
    const saved = this.diags;
    this.diags = [];
    this.toks = [];
    this.base = 0;
    this.pos = 0;
    this.eof = undefined;
    this.fastEnd = 0;
    this.scanner.seek(open);
    try {
      const body = this.parseBlockBody();
      return { body, diagnostics: this.diags };
    } finally {
      this.diags = saved;
    }
  }

  /** `{ statements }` — consumes both braces. */
  private parseBlockBody(): Statement[] {
    this.expectPunct('{');
    const body: Statement[] = [];
    for (;;) {
      this.fastStatements(body);
      if (this.isPunct('}')) {
        this.next();
        return body;
      }
      if (this.tok.kind === Tok.Eof) {
        this.error("unexpected end of file: missing '}'", this.tok);
        return body;
      }
      // A top-level directive inside a body means the closing brace was lost.
      if (this.isDir('entry') || this.isDir('func') || this.isDir('version') || this.isDir('visible') || this.isDir('section')) {
        this.error("missing '}' before this directive", this.tok);
        return body;
      }
      const before = this.pos;
      try {
        const s = this.parseStatement();
        if (s === undefined) continue;
        if (isStatement(s)) body.push(s);
        else body.push(...s);
      } catch (e) {
        if (!(e instanceof ParseError)) throw e;
        this.recover();
      }
      if (this.pos === before) this.pos++;
    }
  }

  private parseStatement(): Statement | readonly VarDecl[] | undefined {
    const t = this.tok;
    if (this.isPunct('{')) {
      const start = t.start;
      this.deeper(t, 'blocks');
      try {
        const body = this.parseBlockBody();
        const b: Block = { kind: 'block', body, span: this.spanFrom(start) };
        return b;
      } finally {
        this.nesting--;
      }
    }
    if (this.isPunct(';')) {
      this.next();
      return undefined;
    }
    if (t.kind === Tok.Word && this.isPunct(':', this.peek())) {
      if (this.isDir('callprototype', this.peek(2))) return this.parseCallPrototype();
      this.next();
      this.next();
      return { kind: 'label', name: t.text, span: spanOf(t) };
    }
    if (t.kind === Tok.Dir) {
      if (this.isDir('loc')) return this.parseLoc();
      if (this.isDir('pragma')) return this.parsePragma();
      if (this.isDir('file')) {
        // ISA 1.1 allows .file inside a body; it is module-wide information
        this.bodyFiles.push(this.parseFile());
        return undefined;
      }
      const start = t.start;
      let linkage: Linkage | undefined;
      while (this.tok.kind === Tok.Dir && LINKAGES.has(this.tok.text.slice(1))) linkage = this.next().text.slice(1) as Linkage;
      const sp = this.tok;
      if (sp.kind === Tok.Dir && SPACES.has(spaceWord(sp.text))) {
        this.next();
        this.constBank(sp);
        return this.parseVarDeclRest(normSpace(spaceWord(sp.text)), linkage, start, false, sp.text);
      }
      if (this.isDir('func') || this.isDir('entry')) this.fail('nested function definitions are not allowed', sp);
      this.fail(`unknown directive ${describe(sp)} in function body`, sp);
    }
    if (this.isPunct('@') || t.kind === Tok.Word) return this.parseInstruction();
    this.fail(`expected an instruction but found ${describe(t)}`);
  }

  private parseCallPrototype(): CallPrototype {
    const start = this.tok.start;
    const name = this.next().text;
    this.next(); // ':'
    this.next(); // .callprototype
    let rets: VarDecl[] = [];
    if (this.isPunct('(')) rets = this.parseParamList();
    const fname = this.next();
    if (fname.kind !== Tok.Word) this.fail('expected a placeholder name in .callprototype', fname);
    let params: VarDecl[] = [];
    if (this.isPunct('(')) params = this.parseParamList();
    while (this.isDir('noreturn')) this.next();
    this.expectPunct(';');
    return { kind: 'callprototype', name, rets, params, span: this.spanFrom(start) };
  }

  // ---- instructions ----------------------------------------------------------------------------

  private parseInstruction(): Instruction {
    const start = this.tok.start;
    let guard: Guard | undefined;
    if (this.eatPunct('@')) {
      const gs = this.tok.start;
      const negate = this.eatPunct('!');
      const g = this.next();
      if (g.kind !== Tok.Word) this.fail('expected a predicate register after @', g);
      guard = { reg: g.text, negate, span: this.spanFrom(gs) };
    }
    const opTok = this.next();
    if (opTok.kind !== Tok.Word) this.fail(`expected an opcode but found ${describe(opTok)}`, opTok);
    const known = this.lookupOpcode(opTok.text);
    if (known === undefined) {
      // report the first part that is wrong
      const parts = opTok.text.split('.');
      const op = parts[0]!;
      if (!OPCODES.has(op)) this.fail(`unknown instruction '${op}'`, { start: opTok.start, end: opTok.start + op.length });
      let off = opTok.start + op.length;
      for (const m of parts.slice(1)) {
        if (!isKnownModifier(m)) this.fail(`unknown modifier '.${m}' for '${op}'`, { start: off, end: off + 1 + m.length });
        off += 1 + m.length;
      }
      this.fail(`unknown instruction '${op}'`, opTok);
    }
    const opcode = known.opcode;
    let mods: readonly string[] = known.mods;
    // Modifiers may also be written as separate tokens (`.reg`-style spacing is legal PTX).
    if (this.tok.kind === Tok.Dir) {
      const more = mods.slice();
      while (this.tok.kind === Tok.Dir) {
        const d = this.next();
        for (const m of d.text.slice(1).split('.')) {
          if (!isKnownModifier(m)) this.fail(`unknown modifier '.${m}' for '${opcode}'`, d);
          more.push(m);
        }
      }
      mods = more;
    }
    if (VECTOR_ALU.has(opcode) && mods.some((m) => m === 'v2' || m === 'v3' || m === 'v4')) {
      // element-by-element vector arithmetic (ISA 1.1 6.4.3 `add.v4.s32 v3, v2, v1`)
      this.fail(this.isa1x
        ? `vector arithmetic ('${opcode}.${mods.join('.')}') is unimplemented: "Vector operands are not generally supported. The LD, ST, and TEX instructions do support limited use of vector operands written using the tuple notation." (PTX ISA 1.1, 10.5.3)`
        : `'${opcode}' takes no vector modifier (.v2/.v3/.v4 are for ld, st, tex and the like)`, opTok);
    }
    if ((opcode === 'div' || opcode === 'rem') && (mods.includes('wide') || (this.isa1x && (mods.includes('u64') || mods.includes('s64'))))) {
      // the ISA 1.1 release notes of div and rem; no later ISA has .wide (64-bit div/rem came with 2.0)
      const form = mods.includes('wide') ? `${opcode}.wide` : `${opcode}.${mods.includes('u64') ? 'u64' : 's64'}`;
      this.fail(`'${form}' is unimplemented: "${opcode}.wide and ${opcode}.{u64,s64} are unimplemented" (PTX ISA 1.1, ${opcode} release notes)${mods.includes('wide') ? '; no later ISA defines .wide' : ''}`, opTok);
    }
    // gathered in a scratch list and copied at their exact length: an array grown by push keeps
    // room for 16, which was the largest part of a big module's AST
    const scratch = this.operandScratch;
    scratch.length = 0;
    if (!this.isPunct(';')) {
      do scratch.push(this.parseOperand());
      while (this.eatPunct(','));
    }
    const operands = scratch.slice();
    this.expectPunct(';', `after '${opTok.text}' operands`);
    return new InstructionNode(opcode, mods, guard, operands, start, this.endFrom(start), opTok.start, opTok.end);
  }

  private parseOperand(): Operand {
    this.deeper(this.tok, 'operands');
    try {
      return this.parseOperandAt();
    } finally {
      this.nesting--;
    }
  }

  private parseOperandAt(): Operand {
    const t = this.tok;
    const start = t.start;
    if (this.isPunct('(')) {
      // call lists `(a, b)` vs constant expressions `(4*8)`
      const p1 = this.peek();
      if (p1.kind === Tok.Word || this.isPunct(')', p1)) {
        this.next();
        const items: Operand[] = [];
        if (!this.isPunct(')')) {
          do items.push(this.parseOperand());
          while (this.eatPunct(','));
        }
        this.expectPunct(')');
        return { kind: 'list', items, span: this.spanFrom(start) };
      }
    }
    if (this.eatPunct('{')) {
      const items: Operand[] = [];
      if (!this.isPunct('}')) {
        do items.push(this.parseOperand());
        while (this.eatPunct(','));
      }
      this.expectPunct('}');
      return { kind: 'vec', items, span: this.spanFrom(start) };
    }
    if (this.eatPunct('[')) {
      const first = this.parseAddressTerm();
      if (this.eatPunct(',')) {
        const items: Operand[] = [first];
        do items.push(this.parseOperand());
        while (this.eatPunct(','));
        this.expectPunct(']');
        return { kind: 'addrList', items, span: this.spanFrom(start) };
      }
      this.expectPunct(']');
      if (first.kind === 'addr') return new AddrOperand(first.base, first.offset, start, this.endFrom(start));
      return new AddrOperand(first, 0n, start, this.endFrom(start));
    }
    if (this.isPunct('!')) {
      this.next();
      const inner = this.parseOperand();
      return { kind: 'not', inner, span: this.spanFrom(start) };
    }
    if (this.isPunct('-') && this.peek().kind === Tok.Word) {
      this.next();
      const inner = this.parseOperand();
      return { kind: 'neg', inner, span: this.spanFrom(start) };
    }
    if (t.kind === Tok.Float || (this.isPunct('-') && this.peek().kind === Tok.Float)) {
      const neg = this.eatPunct('-');
      const f = this.next();
      const bits = f.f32Bits === undefined ? undefined : neg ? (f.f32Bits ^ 0x80000000) >>> 0 : f.f32Bits;
      return { kind: 'float', value: neg ? -f.num : f.num, f32Bits: bits, span: this.spanFrom(start) };
    }
    if (t.kind === Tok.Word) {
      this.next();
      if (t.text === '_') return { kind: 'sink', span: spanOf(t) };
      const isReg = t.text.charCodeAt(0) === 37; // '%'
      if (this.isPunct('|')) {
        this.next();
        const b = this.parseOperand();
        const a: Operand = new RegOperand(t.text, t.start, t.end);
        return { kind: 'pair', a, b, span: this.spanFrom(start) };
      }
      if (!isReg && this.isPunct('[')) {
        // array[imm], array[reg], array[reg+imm], array[reg-imm]: an element of the array
        this.next();
        let reg: string | undefined;
        let idx = 0n;
        if (this.tok.kind === Tok.Word) {
          reg = this.next().text;
          if (this.isPunct('+') || this.isPunct('-')) idx = this.parseAddend();
        } else idx = this.parseConstExpr();
        this.expectPunct(']');
        return { kind: 'index', name: t.text, reg, index: idx, span: this.spanFrom(start) };
      }
      if (!isReg && (this.isPunct('+') || (this.isPunct('-') && this.peek().kind === Tok.Int))) {
        const addend = this.parseAddend();
        return new SymOperand(t.text, addend, start, this.endFrom(start));
      }
      // `%r + 1` as a plain source operand (ptxas accepts `+ constant` after a register, not `-`):
      // a name with an addend, which resolution turns into a register plus a constant
      if (isReg && this.isPunct('+')) {
        const addend = this.parseAddend();
        return new SymOperand(t.text, addend, start, this.endFrom(start));
      }
      return isReg ? new RegOperand(t.text, t.start, t.end) : new SymOperand(t.text, 0n, t.start, t.end);
    }
    const value = this.parseConstExpr();
    return { kind: 'int', value, span: this.spanFrom(start) };
  }

  /** Inside `[...]`: reg, sym, reg+imm, sym+imm, imm, reg+-imm. */
  private parseAddressTerm(): Operand {
    const start = this.tok.start;
    const t = this.tok;
    if (t.kind === Tok.Word) {
      this.next();
      const base: Operand = t.text.charCodeAt(0) === 37 ? new RegOperand(t.text, t.start, t.end) : new SymOperand(t.text, 0n, t.start, t.end);
      let offset = 0n;
      while (this.isPunct('+') || this.isPunct('-')) {
        const neg = this.next().text === '-';
        const v = this.parseUnary();
        offset += neg ? -v : v;
      }
      return new AddrOperand(base, offset, start, this.endFrom(start));
    }
    if (this.isPunct('{')) return this.parseOperand();
    const v = this.parseConstExpr();
    return new AddrOperand(undefined, v, start, this.endFrom(start));
  }

  // ---- constant expressions (C precedence, 64-bit wrap) ------------------------------------------

  parseConstExpr(): bigint {
    return this.parseBinary(0);
  }

  private parseBinary(minPrec: number): bigint {
    let lhs = this.parseUnary();
    for (;;) {
      const t = this.tok;
      // a lone `%` scans as a word (it starts register names); between constants it is modulo
      if (t.kind !== Tok.Punct && !(t.kind === Tok.Word && t.text === '%')) return lhs;
      let op = t.text;
      if ((op === '<' || op === '>') && this.isPunct(op, this.peek())) op = op + op;
      const prec = BIN_PREC[op];
      if (prec === undefined || prec < minPrec) return lhs;
      this.next();
      if (op.length === 2) this.next();
      const rhs = this.parseBinary(prec + 1);
      lhs = applyBinary(op, lhs, rhs, () => this.fail('division by zero in constant expression', t));
    }
  }

  private parseUnary(): bigint {
    const t = this.tok;
    if (t.kind !== Tok.Punct) return this.parsePrimary(t);
    this.deeper(t, 'constant expressions');
    try {
      return this.parsePrimary(t);
    } finally {
      this.nesting--;
    }
  }

  private parsePrimary(t: Token): bigint {
    if (this.eatPunct('-')) return -this.parseUnary();
    if (this.eatPunct('+')) return this.parseUnary();
    if (this.eatPunct('~')) return ~this.parseUnary();
    if (this.eatPunct('!')) return this.parseUnary() === 0n ? 1n : 0n;
    if (this.eatPunct('(')) {
      const v = this.parseConstExpr();
      this.expectPunct(')');
      return v;
    }
    if (t.kind === Tok.Int) {
      this.next();
      return t.int;
    }
    this.fail(`expected a constant but found ${describe(t)}`, t);
  }
}

const BIN_PREC: Record<string, number> = {
  '|': 1, '^': 2, '&': 3, '<<': 5, '>>': 5, '+': 6, '-': 6, '*': 7, '/': 7, '%': 7,
};

function applyBinary(op: string, a: bigint, b: bigint, divZero: () => never): bigint {
  switch (op) {
    case '+': return BigInt.asIntN(64, a + b);
    case '-': return BigInt.asIntN(64, a - b);
    case '*': return BigInt.asIntN(64, a * b);
    case '/': if (b === 0n) divZero(); return a / b;
    case '%': if (b === 0n) divZero(); return a % b;
    case '<<': return BigInt.asIntN(64, a << (b & 63n));
    case '>>': return a >> (b & 63n);
    case '&': return a & b;
    case '|': return a | b;
    default: return a ^ b;
  }
}

/**
 * Where a body that opens at `open` closes, by braces outside comments and strings; -1 where that
 * is not plain: an unterminated string or comment, or a directive that ends a body or carries
 * module state (the token parser then reports or recovers as it always does).
 */
const BODY_TEXT = /[{}"]|\/[/*]|\.(?:entry|func|visible|version|section|file)(?![\w$])/g;
export function bodyEnd(source: string, open: number): number {
  const re = BODY_TEXT;
  re.lastIndex = open + 1;
  let depth = 1;
  for (let m = re.exec(source); m !== null; m = re.exec(source)) {
    const i = m.index;
    const c = source.charCodeAt(i);
    if (c === 123) depth++;
    else if (c === 125) {
      if (--depth === 0) return i;
    } else if (c === 34) {
      let k = i + 1;
      for (; k < source.length; k++) {
        const d = source.charCodeAt(k);
        if (d === 92) k++;
        else if (d === 34 || d === 10) break;
      }
      if (source.charCodeAt(k) !== 34) return -1;
      re.lastIndex = k + 1;
    } else if (c === 47) {
      if (source.charCodeAt(i + 1) === 47) {
        const nl = source.indexOf('\n', i);
        if (nl < 0) return -1;
        re.lastIndex = nl + 1;
      } else {
        const close = source.indexOf('*/', i + 2);
        if (close < 0) return -1;
        re.lastIndex = close + 2;
      }
    } else return -1;
  }
  return -1;
}

/** A function whose body stays text until read (ParseOptions.deferBodies). */
function deferredFunction(parser: Parser, open: number, header: Omit<FunctionDecl, 'body' | 'deferred'>): FunctionDecl {
  let parsed: Statement[] | undefined;
  const diagnostics: Diagnostic[] = [];
  const deferred: DeferredBody = {
    open, diagnostics,
    get read() { return parsed !== undefined; },
    forget() { parsed = undefined; diagnostics.length = 0; },
  };
  return {
    ...header,
    deferred,
    get body(): readonly Statement[] {
      if (parsed === undefined) {
        const r = parser.parseDeferred(open);
        parsed = r.body;
        diagnostics.push(...r.diagnostics);
      }
      return parsed;
    },
  };
}

/** A token's extent alone (a token kept as a span would keep its text and value alive too). */
function spanOf(t: Token): Span {
  return { start: t.start, end: t.end };
}

function isStatement(s: Statement | readonly VarDecl[]): s is Statement {
  return !Array.isArray(s);
}

function dataWidth(dir: string): 0 | 1 | 2 | 4 | 8 {
  switch (dir) {
    case '.b8': case '.byte': case '.u8': case '.s8': return 1;
    case '.b16': case '.u16': case '.s16': return 2;
    case '.b32': case '.u32': case '.s32': case '.word': return 4;
    case '.b64': case '.u64': case '.s64': case '.quad': return 8;
    default: return 0;
  }
}

function spaceWord(dirText: string): string {
  const dot = dirText.indexOf('.', 1);
  return dot < 0 ? dirText.slice(1) : dirText.slice(1, dot);
}

function normSpace(word: string): StateSpace {
  if (word === 'texref') return 'tex';
  if (word === 'surfref') return 'surf';
  if (word === 'samplerref') return 'sampler';
  return word as StateSpace;
}

function unquote(s: string): string {
  if (s.length < 2 || s[0] !== '"') return s;
  return s.slice(1, s.endsWith('"') ? -1 : undefined).replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
}

function describe(t: Token): string {
  switch (t.kind) {
    case Tok.Eof: return 'end of file';
    case Tok.Str: return `string ${t.text.length > 20 ? t.text.slice(0, 20) + '…' : t.text}`;
    case Tok.Punct: return `'${t.text}'`;
    default: return `'${t.text.length > 40 ? t.text.slice(0, 40) + '…' : t.text}'`;
  }
}

/** `major.minor` version text is older than `major.minor`. */
function versionBefore(text: string, major: number, minor: number): boolean {
  const [a, b] = text.split('.').map((x) => Number(x));
  if (a === undefined || !Number.isFinite(a)) return false;
  return a < major || (a === major && (b ?? 0) < minor);
}
