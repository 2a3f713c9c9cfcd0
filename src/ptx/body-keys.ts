/**
 * `check`'s shortcut past parsing, resolving and selecting a function body (ptx/index.ts
 * sweepClean). A big module repeats a few thousand kinds of statement hundreds of thousands of
 * times, in bodies that differ in the names of their registers and variables. One pass over a
 * body's characters checks its declarations, labels and scopes itself and writes each instruction
 * as a key: its text with every name the body declares replaced by all the full path reads of it
 * (a register's type, a variable's storage and shape, "a label of this body"), comments and runs
 * of white space as one space. Nothing else of the body can change how a statement parses,
 * resolves or selects, so a key met in a body that passed the full way passes wherever it is met
 * again, and a body whose keys are all known is clean. Whatever the pass does not read exactly as
 * the parser and resolver would (other directives, vector or initialized registers, strings, a name
 * declared after a use it would capture, the same name twice in a scope) sends the body the full
 * way, as does any key not known yet.
 */
import type { FunctionDecl, PtxModule, StateSpace, StructDecl, VarDecl } from './ast.js';
import { MAX_REGISTERS, withinLimits } from './limits.js';
import { makeVar } from './resolve-function.js';
import { isIdentPart, isIdentStart, scanModifiers } from './scanner.js';

/** Types of the registers and variables the pass declares itself (fundamental types the parser takes). */
const TYPES: ReadonlySet<string> = new Set([
  'pred', 'b8', 'b16', 'b32', 'b64', 'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64', 'f16', 'f16x2', 'bf16', 'f32', 'f64',
]);
/** Characters of an instruction's text taken as written: the scanner's one-character punctuation (scanner.ts) and white space. */
const PLAIN = new Uint8Array(128);
for (const ch of '{}()[];,:<>+-=@!|*/~&^%? \t\n\r\f\v') PLAIN[ch.charCodeAt(0)] = 1;
/** operandName: the name stays as written. */
const RAW = '';
/** Opcodes after which control does not fall off a body's end (resolve-function.ts needsImpliedEnd). */
const TERMINAL: ReadonlySet<string> = new Set(['ret', 'exit', 'bra', 'brx', 'trap']);
const NO_STRUCTS: Map<string, StructDecl> = new Map();
/** Marks in keys, outside anything the scanner takes as text: a register (then its type), a variable (its shape, then END), a label of the body. */
export const REG = '\x01';
export const VAR = '\x02';
export const END = '\x00';
export const LABEL = '\x03';
/** The key of the `exit`/`ret` the resolver adds where control can fall off the end (then which). */
export const IMPLIED = '\x05';

interface Range {
  readonly prefix: string;
  readonly count: number;
  readonly marker: string;
}

class Scope {
  readonly names = new Map<string, string>();
  readonly ranges: Range[] = [];
  constructor(readonly parent: Scope | undefined, readonly open: number) {}
}

/** Keys of bodies of one module (a worker of `check` has its own). */
export class BodyKeys {
  private readonly moduleNames = new Set<string>();
  private readonly usable: boolean;
  /** Where the last body that must go the full way stopped the pass (its tests, and finding what it does not read). */
  stoppedAt = -1;

  constructor(private readonly module: PtxModule) {
    let usable = module.version !== undefined && !module.version.startsWith('1.');
    for (const item of module.items) {
      if (item.kind === 'var') {
        // module-scope registers are every function's (ISA 1.x): the full way only
        if (item.space === 'reg') usable = false;
        this.moduleNames.add(item.name);
      } else if (item.kind === 'struct') usable = false;
    }
    this.usable = usable;
  }

  /** The keys of `decl`'s statements, or undefined where the body must go the full way. */
  keys(decl: FunctionDecl): string[] | undefined {
    if (!this.usable || decl.deferred === undefined) return undefined;
    const scan = new BodyScan(this.module.source, decl, this.moduleNames);
    if (scan.run()) return scan.keys;
    this.stoppedAt = scan.at;
    return undefined;
  }
}

/** One body's pass; `run` says whether it read the whole body. */
class BodyScan {
  readonly keys: string[] = [];
  private i = 0;
  private end = 0;
  private scope: Scope;
  /** Labels the body defines (a quick look for `name:` first; the pass then finds exactly these). */
  private readonly labels = new Set<string>();
  private readonly defined = new Set<string>();
  /** Where the last operand name was: a declaration in a scope open since then may capture a use. */
  private lastUse = -1;
  /** Where the declaration being read starts. */
  private statement = 0;
  private registers = 0;
  private instrs = 0;
  private lastOpcode = '';
  private lastGuarded = false;
  private labelAfterLast = false;

  constructor(private readonly src: string, private readonly decl: FunctionDecl, private readonly moduleNames: ReadonlySet<string>) {
    this.scope = new Scope(undefined, decl.deferred!.open);
  }

  get at(): number {
    return this.i;
  }

  run(): boolean {
    const src = this.src;
    const open = this.decl.deferred!.open;
    const close = this.decl.span.end - 1;
    if (src.charCodeAt(open) !== 123 || src.charCodeAt(close) !== 125) return false;
    this.end = close;
    this.collectLabels(open + 1, close);
    if (!this.bindParams()) return false;
    this.i = open + 1;
    let depth = 0;
    for (;;) {
      if (!this.skipSpace()) return false;
      const i = this.i;
      if (i >= close) break;
      const c = src.charCodeAt(i);
      let ok: boolean;
      if (c === 125) {
        if (depth === 0) return false;
        depth--;
        this.scope = this.scope.parent!;
        this.i++;
        ok = true;
      } else if (c === 123) {
        if (++depth > 64) return false;
        this.scope = new Scope(this.scope, i);
        this.i++;
        ok = true;
      } else if (c === 59) {
        this.i++;
        ok = true;
      } else if (c === 46) ok = this.directive();
      else if (c === 64) ok = this.instruction();
      else if (isIdentStart(c)) ok = this.labelOrInstruction();
      else ok = false;
      if (!ok) return false;
    }
    if (depth !== 0 || this.defined.size !== this.labels.size) return false;
    if (this.instrs === 0 || this.labelAfterLast || this.lastGuarded || !TERMINAL.has(this.lastOpcode)) {
      this.keys.push(IMPLIED + (this.decl.isEntry ? 'exit' : 'ret'));
    }
    return true;
  }

  /** Every `name:` in the body's text (not `::`): what the label definitions can be. */
  private collectLabels(from: number, to: number): void {
    const src = this.src;
    for (let k = src.indexOf(':', from); k >= 0 && k < to; k = src.indexOf(':', k + 1)) {
      if (src.charCodeAt(k + 1) === 58) {
        k++;
        continue;
      }
      let e = k;
      while (e > from && isSpace(src.charCodeAt(e - 1))) e--;
      let s = e;
      while (s > from && isIdentPart(src.charCodeAt(s - 1))) s--;
      if (s > from && src.charCodeAt(s - 1) === 37) s--;
      if (s < e && isIdentStart(src.charCodeAt(s))) this.labels.add(src.slice(s, e));
    }
  }

  /** Parameters and return values, in the function's scope as the resolver binds them. */
  private bindParams(): boolean {
    const storage = this.decl.isEntry ? 'kernelParam' : 'frame';
    for (const p of [...this.decl.rets, ...this.decl.params]) {
      if (p.rangeCount !== undefined || p.init !== undefined || p.fields !== undefined) return false;
      if (p.space === 'reg') {
        if (p.vector > 1 || !this.declare(p.name, regMarker(p.name, p.type))) return false;
        continue;
      }
      const v = makeVar(p, NO_STRUCTS, storage);
      if (!withinLimits(p, v.size)) return false;
      const shape = `${storage}:${p.space}:${p.type}:${p.vector}:${v.size}:${v.align}:${p.dims.join(',')}:${p.ptrSpace ?? ''}`;
      if (!this.declare(p.name, VAR + shape + END)) return false;
    }
    return true;
  }

  /** A single name in the current scope; false where the resolver could read it otherwise. */
  private declare(name: string, marker: string): boolean {
    const s = this.scope;
    if (name.includes('.') || name.includes(':') || s.names.has(name)) return false;
    // named already in this scope (`st.param [p]` then `.param .b32 p`): the resolver would take this one
    if (this.lastUse > s.open && occurs(this.src, name, s.open, this.statement)) return false;
    for (const r of s.ranges) if (name.startsWith(r.prefix) && decimalAt(name, r.prefix.length) >= 0) return false;
    s.names.set(name, marker);
    return true;
  }

  /** `%r<N>`: %r0 .. %r(N-1) in the current scope. */
  private declareRange(prefix: string, count: number, marker: string): boolean {
    const s = this.scope;
    if (prefix.includes('.') || prefix.includes(':') || this.lastUse > s.open) return false;
    // %r<N> beside %rd<M> names no register twice; beside %r1<M> it may
    for (const name of s.names.keys()) if (name.startsWith(prefix) && decimalAt(name, prefix.length) >= 0) return false;
    for (const r of s.ranges) if (overlaps(r.prefix, prefix) || overlaps(prefix, r.prefix)) return false;
    this.registers += count;
    if (count > MAX_REGISTERS || this.registers > MAX_REGISTERS) return false;
    s.ranges.push({ prefix, count, marker });
    return true;
  }

  /** What a local name stands for in the key, or undefined when the body declares no such name. */
  private lookup(word: string): string | undefined {
    for (let s: Scope | undefined = this.scope; s !== undefined; s = s.parent) {
      const m = s.names.get(word);
      if (m !== undefined) return m;
      for (const r of s.ranges) {
        if (word.startsWith(r.prefix)) {
          const n = decimalAt(word, r.prefix.length);
          if (n >= 0 && n < r.count) return r.marker;
        }
      }
    }
    return undefined;
  }

  /**
   * The operand name at s..e (its identifier part ending at identEnd) as the key has it: a mark,
   * RAW where the text stays (a name of the module: a variable, a function, a special register,
   * the same in every body), or undefined when the pass cannot tell what the resolver makes of it.
   */
  private operandName(s: number, identEnd: number, e: number): string | undefined {
    const src = this.src;
    this.lastUse = s;
    let word: string | undefined;
    for (let sc: Scope | undefined = this.scope; sc !== undefined; sc = sc.parent) {
      for (const r of sc.ranges) {
        if (src.startsWith(r.prefix, s) && decimalBelow(src, s + r.prefix.length, e, r.count)) return r.marker;
      }
      if (sc.names.size > 0) {
        word ??= src.slice(s, e);
        const m = sc.names.get(word);
        if (m !== undefined) return m;
      }
    }
    word ??= src.slice(s, e);
    if (identEnd < e) {
      // `%v.x`, `p.field`, `%r1.b0`: parts of a local name are the body's own
      const base = src.slice(s, identEnd);
      if (this.lookup(base) !== undefined || this.labels.has(base)) return undefined;
    }
    if (this.labels.has(word)) {
      if (word.charCodeAt(0) === 37 || this.moduleNames.has(word)) return undefined;
      return LABEL;
    }
    return RAW;
  }

  private directive(): boolean {
    const src = this.src;
    this.statement = this.i;
    let j = this.i + 1;
    while (isIdentPart(src.charCodeAt(j))) j++;
    if (src.charCodeAt(j) === 46) return false;
    const name = src.slice(this.i + 1, j);
    this.i = j;
    if (name === 'loc') return this.loc();
    if (name === 'reg') return this.regDecl();
    if (name === 'param' || name === 'local' || name === 'shared') return this.varDecl(name);
    return false;
  }

  /** `.loc file line column` alone on its line. */
  private loc(): boolean {
    for (let k = 0; k < 3; k++) {
      if (!this.blanks()) return false;
      if (this.digits() < 0) return false;
    }
    this.skipBlanks();
    const j = this.i;
    const c = this.src.charCodeAt(j);
    return c === 10 || c === 13 || (c === 47 && this.src.charCodeAt(j + 1) === 47);
  }

  /** `.reg .type name;` or `.reg .type %r<N>;`. */
  private regDecl(): boolean {
    if (!this.blanks()) return false;
    const type = this.typeDir();
    if (type === undefined) return false;
    const name = this.name();
    if (name === undefined) return false;
    const marker = regMarker(name, type);
    this.skipBlanks();
    let ok: boolean;
    if (this.src.charCodeAt(this.i) === 60) {
      this.i++;
      const n = this.digits();
      if (n < 0 || this.src.charCodeAt(this.i) !== 62) return false;
      this.i++;
      ok = this.declareRange(name, n, marker);
    } else ok = this.declare(name, marker);
    return ok && this.semicolon();
  }

  /** `.param|.local [.align N] .type name[N]...;`, a variable of the frame. */
  private varDecl(space: StateSpace): boolean {
    const start = this.i;
    let align: number | undefined;
    if (!this.blanks()) return false;
    if (this.src.startsWith('.align', this.i) && !isIdentPart(this.src.charCodeAt(this.i + 6))) {
      this.i += 6;
      if (!this.blanks()) return false;
      align = this.digits();
      if (align < 0 || !this.blanks()) return false;
    }
    const type = this.typeDir();
    if (type === undefined || type === 'pred') return false;
    const name = this.name();
    if (name === undefined) return false;
    const dims: number[] = [];
    while (this.src.charCodeAt(this.i) === 91) {
      this.i++;
      const n = this.digits();
      if (n < 0 || this.src.charCodeAt(this.i) !== 93) return false;
      this.i++;
      dims.push(n);
    }
    const d: VarDecl = {
      kind: 'var', space, name, type, vector: 1, dims, align, linkage: undefined, rangeCount: undefined, init: undefined, ptrSpace: undefined,
      span: { start, end: this.i },
    };
    // a body's .shared variable is the CTA's, known by name (as SelectionKeys has it)
    const storage = space === 'shared' ? 'cta' : 'frame';
    const v = makeVar(d, NO_STRUCTS, storage);
    if (!withinLimits(d, v.size)) return false;
    const shape = `${VAR}${storage}:${space}:${type}:1:${v.size}:${v.align}:${dims.join(',')}:${storage === 'cta' ? name : ''}${END}`;
    return this.declare(name, shape) && this.semicolon();
  }

  /** `.type` (one of TYPES) then white space. */
  private typeDir(): string | undefined {
    if (this.src.charCodeAt(this.i) !== 46) return undefined;
    let j = this.i + 1;
    while (isIdentPart(this.src.charCodeAt(j))) j++;
    const type = this.src.slice(this.i + 1, j);
    this.i = j;
    return TYPES.has(type) && this.blanks() ? type : undefined;
  }

  /** A declared name: a word without dots or `::` parts. */
  private name(): string | undefined {
    const src = this.src;
    const s = this.i;
    if (!isIdentStart(src.charCodeAt(s))) return undefined;
    let j = s + 1;
    while (isIdentPart(src.charCodeAt(j))) j++;
    if (scanModifiers(src, j) !== j) return undefined;
    this.i = j;
    return src.slice(s, j);
  }

  private semicolon(): boolean {
    this.skipBlanks();
    if (this.src.charCodeAt(this.i) !== 59) return false;
    this.i++;
    return true;
  }

  /** A decimal number (what the parser reads the same whatever follows), or -1. */
  private digits(): number {
    const src = this.src;
    const s = this.i;
    let j = s;
    let n = 0;
    while (src.charCodeAt(j) >= 48 && src.charCodeAt(j) <= 57) n = n * 10 + src.charCodeAt(j++) - 48;
    // none, a C octal, too many for a number, or glued to more of a token
    if (j === s || (j - s > 1 && src.charCodeAt(s) === 48) || j - s > 9 || isIdentPart(src.charCodeAt(j)) || src.charCodeAt(j) === 46) return -1;
    this.i = j;
    return n;
  }

  /** At least one space or tab (and nothing else), skipped. */
  private blanks(): boolean {
    const s = this.i;
    this.skipBlanks();
    return this.i > s;
  }

  private skipBlanks(): void {
    while (this.src.charCodeAt(this.i) === 32 || this.src.charCodeAt(this.i) === 9) this.i++;
  }

  /** White space and comments; false on an unterminated block comment. */
  private skipSpace(): boolean {
    const src = this.src;
    let i = this.i;
    for (;;) {
      const c = src.charCodeAt(i);
      if (isSpace(c)) i++;
      else if (c === 47 && src.charCodeAt(i + 1) === 47) {
        while (i < this.end && src.charCodeAt(i) !== 10) i++;
      } else if (c === 47 && src.charCodeAt(i + 1) === 42) {
        const close = src.indexOf('*/', i + 2);
        if (close < 0 || close >= this.end) return false;
        i = close + 2;
      } else break;
    }
    this.i = i;
    return true;
  }

  /** A word at a statement's start: a label definition, else an instruction's opcode. */
  private labelOrInstruction(): boolean {
    const src = this.src;
    const s = this.i;
    const e = scanModifiers(src, wordEnd(src, s + 1));
    this.i = e;
    if (!this.skipSpace()) return false;
    if (src.charCodeAt(this.i) !== 58 || src.charCodeAt(this.i + 1) === 58) {
      this.i = s;
      return this.instruction();
    }
    const name = src.slice(s, e);
    if (!this.labels.has(name) || this.defined.has(name) || name.includes('.') || name.includes(':')) return false;
    this.defined.add(name);
    this.labelAfterLast = true;
    this.i++;
    return true;
  }

  /** `[@[!]guard] opcode operands;` as its key: its text with local names replaced by their marks. */
  private instruction(): boolean {
    const src = this.src;
    const end = this.end;
    const start = this.i;
    let i = start;
    let key = '';
    let run = start;
    let opcode = '';
    /** What the next word is: 0 the opcode, 1 the guard's predicate, 2 an operand. */
    let need = src.charCodeAt(i) === 64 ? 1 : 0;
    for (;;) {
      if (i >= end) return false;
      const c = src.charCodeAt(i);
      if (c === 59) {
        i++;
        break;
      }
      if (isIdentStart(c)) {
        const identEnd = wordEnd(src, i + 1);
        const e = scanModifiers(src, identEnd);
        if (need === 0) {
          // the opcode, taken as written
          need = 2;
          opcode = src.slice(i, e);
          i = e;
          continue;
        }
        if (need === 1) need = 0;
        const m = this.operandName(i, identEnd, e);
        if (m === undefined) return false;
        if (m !== RAW) {
          key += src.slice(run, i) + m;
          run = e;
        }
        i = e;
        continue;
      }
      if ((c >= 48 && c <= 57) || (c === 46 && src.charCodeAt(i + 1) >= 48 && src.charCodeAt(i + 1) <= 57)) {
        let e = i + 1;
        let plain = c !== 46;
        for (;;) {
          const d = src.charCodeAt(e);
          if (d >= 48 && d <= 57) e++;
          else if (isIdentPart(d) || d === 46) {
            plain = false;
            e++;
          } else break;
        }
        if (!plain && !plainNumber(src.slice(i, e))) return false;
        i = e;
        continue;
      }
      if (c === 46 && isIdentPart(src.charCodeAt(i + 1))) {
        // a directive-like word (`.L2::evict_last` hints): not a name
        i = scanModifiers(src, wordEnd(src, i + 1));
        continue;
      }
      // a comment inside a statement: the full way (keys keep white space as written)
      if (c === 47 && (src.charCodeAt(i + 1) === 47 || src.charCodeAt(i + 1) === 42)) return false;
      if (c >= 128 || (PLAIN[c] ?? 0) === 0) return false;
      i++;
    }
    key = run === start ? src.slice(start, i) : key + src.slice(run, i);
    if (opcode === '') return false;
    this.i = i;
    this.keys.push(key);
    this.instrs++;
    const dot = opcode.indexOf('.');
    this.lastOpcode = dot < 0 ? opcode : opcode.slice(0, dot);
    this.lastGuarded = src.charCodeAt(start) === 64;
    this.labelAfterLast = false;
    return true;
  }
}

/** Whether `longer` extends `prefix` by digits, so that a name of one range could be one of the other's. */
function overlaps(prefix: string, longer: string): boolean {
  if (!longer.startsWith(prefix)) return false;
  const c = longer.charCodeAt(prefix.length);
  return longer.length === prefix.length || (c >= 48 && c <= 57);
}

function regMarker(name: string, type: string): string {
  return name.charCodeAt(0) === 37 ? `${REG}%${type}` : `${REG}${type}`;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11;
}

function wordEnd(s: string, j: number): number {
  while (isIdentPart(s.charCodeAt(j))) j++;
  return j;
}

/** Whether src[from, to) is a number without leading zeros below `count`. */
function decimalBelow(src: string, from: number, to: number, count: number): boolean {
  const len = to - from;
  if (len <= 0 || len > 6 || (len > 1 && src.charCodeAt(from) === 48)) return false;
  let n = 0;
  for (let k = from; k < to; k++) {
    const c = src.charCodeAt(k);
    if (c < 48 || c > 57) return false;
    n = n * 10 + c - 48;
  }
  return n < count;
}

/** Whether `name` occurs in src[from, to) as a whole word (or as a dotted word's first part). */
function occurs(src: string, name: string, from: number, to: number): boolean {
  for (let k = src.indexOf(name, from); k >= 0 && k < to; k = src.indexOf(name, k + 1)) {
    if (!isIdentPart(src.charCodeAt(k - 1)) && src.charCodeAt(k - 1) !== 37 && !isIdentPart(src.charCodeAt(k + name.length))) return true;
  }
  return false;
}

/** `word`'s digits from `at` to its end as a number without leading zeros, or -1. */
function decimalAt(word: string, at: number): number {
  const len = word.length - at;
  if (len <= 0 || len > 6 || (len > 1 && word.charCodeAt(at) === 48)) return -1;
  let n = 0;
  for (let k = at; k < word.length; k++) {
    const c = word.charCodeAt(k);
    if (c < 48 || c > 57) return -1;
    n = n * 10 + c - 48;
  }
  return n;
}

/** A numeric literal the scanner reads as one token, whatever the text around it. */
function plainNumber(text: string): boolean {
  let all = true;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) {
      all = false;
      break;
    }
  }
  return all || /^(?:0[xX][0-9a-fA-F]+|0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}|[0-9]+\.[0-9]+)U?$/.test(text);
}
