/**
 * A small Itanium C++ demangler, in two spellings: gdb's and c++filt's (libiberty:
 * `saxpy(int, float, float const*, float*)`, `void foo<float, 4>(float*, int)`,
 * `tile<8u, void>`), and compute-sanitizer's (`saxpy(int, float, const float *, float *)`).
 * It covers nested names, templates and their parameters, the builtin types, pointers,
 * references, cv-qualifiers, arrays, function pointers, operators, constructors and destructors,
 * and substitutions; anything else returns undefined, and callers print the mangled name (as
 * `--demangle no` would).
 */

/** `gnu`: c++filt's and gdb's spelling; `sanitizer`: compute-sanitizer's. */
export type DemangleStyle = 'gnu' | 'sanitizer';

/** gdb's suffixes of integer template arguments (`8u`, `32ul`); others are cast (`(char)65`). */
const LITERAL_SUFFIX: Record<string, string> = {
  int: '', 'unsigned int': 'u', long: 'l', 'unsigned long': 'ul', 'long long': 'll', 'unsigned long long': 'ull',
};

const BUILTIN: Record<string, string> = {
  v: 'void', w: 'wchar_t', b: 'bool', c: 'char', a: 'signed char', h: 'unsigned char', s: 'short', t: 'unsigned short',
  i: 'int', j: 'unsigned int', l: 'long', m: 'unsigned long', x: 'long long', y: 'unsigned long long', n: '__int128',
  o: 'unsigned __int128', f: 'float', d: 'double', e: 'long double', g: '__float128', z: '...',
};
const BUILTIN_D: Record<string, string> = { n: 'decltype(nullptr)', i: 'char32_t', s: 'char16_t', u: 'char8_t', h: '__half', a: 'auto' };
const OPERATORS: Record<string, string> = {
  nw: 'new', na: 'new[]', dl: 'delete', da: 'delete[]', ps: '+', ng: '-', ad: '&', de: '*', co: '~', pl: '+', mi: '-',
  ml: '*', dv: '/', rm: '%', an: '&', or: '|', eo: '^', aS: '=', pL: '+=', mI: '-=', mL: '*=', dV: '/=', rM: '%=',
  aN: '&=', oR: '|=', eO: '^=', ls: '<<', rs: '>>', lS: '<<=', rS: '>>=', eq: '==', ne: '!=', lt: '<', gt: '>', le: '<=',
  ge: '>=', ss: '<=>', nt: '!', aa: '&&', oo: '||', pp: '++', mm: '--', cm: ',', pm: '->*', pt: '->', cl: '()', ix: '[]',
};

class Fail extends Error {}

/** A type as text split around where a declarator goes: `int (*)(float)` is `int (*` + `)(float)`. */
interface Ty { left: string; right: string }
const plain = (s: string): Ty => ({ left: s, right: '' });
const show = (t: Ty): string => (t.left + t.right).trim();

class Parser {
  private i = 0;
  private readonly subs: Ty[] = [];
  private templateArgs: Ty[] = [];
  constructor(private readonly s: string, private readonly style: DemangleStyle = 'sanitizer') {}

  private peek(k = 0): string { return this.s[this.i + k] ?? ''; }
  private take(t: string): boolean {
    if (!this.s.startsWith(t, this.i)) return false;
    this.i += t.length;
    return true;
  }
  private need(t: string): void { if (!this.take(t)) throw new Fail(); }
  private number(): number {
    const m = /^\d+/.exec(this.s.slice(this.i));
    if (!m) throw new Fail();
    this.i += m[0].length;
    return Number(m[0]);
  }
  get done(): boolean { return this.i === this.s.length; }

  /** The name of the last encoding read (without return type and parameters): gdb's print name. */
  lastName = '';

  /** _Z encoding: a function's name and parameters, or a data name. */
  encoding(): string {
    const { name, cv, template } = this.name();
    this.lastName = name;
    if (this.done || this.peek() === 'E' || this.peek() === '.') return name;
    // a template function's return type comes first
    const ret = template ? show(this.type()) + ' ' : '';
    const params: string[] = [];
    while (!this.done && this.peek() !== 'E' && this.peek() !== '.') params.push(show(this.type()));
    const list = params.length === 1 && params[0] === 'void' ? '' : params.join(', ');
    return `${ret}${name}(${list})${cv}`;
  }

  private name(): { name: string; cv: string; template: boolean } {
    if (this.take('N')) return this.nested();
    if (this.take('Z')) {
      const outer = this.encoding();
      this.need('E');
      if (this.take('s')) return { name: `${outer}::string literal`, cv: '', template: false };
      const inner = this.name();
      return { ...inner, name: `${outer}::${inner.name}` };
    }
    let n = this.take('St') ? `std::${this.unqualified()}` : this.unqualified();
    if (this.peek() === 'I') {
      this.subs.push(plain(n));
      n += this.templateArgList();
      return { name: n, cv: '', template: true };
    }
    return { name: n, cv: '', template: false };
  }

  private nested(): { name: string; cv: string; template: boolean } {
    let cv = '';
    for (;;) {
      if (this.take('K')) cv += ' const';
      else if (this.take('V')) cv += ' volatile';
      else if (this.take('r')) cv += ' restrict';
      else break;
    }
    this.take('R') || this.take('O');
    let parts = '';
    let last = '';
    let template = false;
    // constructors, destructors and conversions have no return type, templates or not
    let ctor = false;
    while (!this.take('E')) {
      if (this.peek() === 'S' && (this.peek(1) === '_' || /[0-9A-Z]/.test(this.peek(1)) || this.peek(1) === 't')) {
        if (this.take('St')) { parts = parts ? `${parts}::std` : 'std'; last = 'std'; continue; }
        parts = show(this.substitution());
        last = parts.split('::').pop()!;
        template = false;
        continue;
      }
      if (this.peek() === 'I') {
        parts += this.templateArgList();
        template = true;
      } else {
        ctor = /^[CD]\d|^cv/.test(this.s.slice(this.i, this.i + 2));
        const u = this.unqualified(last);
        parts = parts ? `${parts}::${u}` : u;
        last = u;
        template = false;
      }
      if (this.peek() !== 'E') this.subs.push(plain(parts));
    }
    return { name: parts, cv, template: template && !ctor };
  }

  /** A source name, operator, constructor or destructor (`last`: the enclosing class). */
  private unqualified(last = ''): string {
    const c = this.peek();
    if (/\d/.test(c)) {
      const len = this.number();
      const id = this.s.slice(this.i, this.i + len);
      if (id.length !== len) throw new Fail();
      this.i += len;
      return id.startsWith('_GLOBAL__N') ? '(anonymous namespace)' : id;
    }
    if (c === 'C' && /[1-5]/.test(this.peek(1))) { this.i += 2; return last; }
    if (c === 'D' && /[0-5]/.test(this.peek(1))) { this.i += 2; return `~${last}`; }
    if (c === 'L') { this.i++; return this.unqualified(last); }
    if (c === 'c' && this.peek(1) === 'v') { this.i += 2; return `operator ${show(this.type())}`; }
    const op = OPERATORS[this.s.slice(this.i, this.i + 2)];
    if (op) { this.i += 2; return `operator${/^[a-z]/.test(op) ? ' ' : ''}${op}`; }
    throw new Fail();
  }

  private templateArgList(): string {
    this.need('I');
    const args: Ty[] = [];
    while (!this.take('E')) args.push(this.templateArg());
    this.templateArgs = args;
    const text = args.map(show).join(', ');
    return `<${text}${text.endsWith('>') ? ' ' : ''}>`;
  }

  private templateArg(): Ty {
    if (this.take('L')) {
      const t = this.type();
      const neg = this.take('n');
      const m = /^\d*/.exec(this.s.slice(this.i))!;
      this.i += m[0].length;
      this.need('E');
      const ty = show(t);
      const v = `${neg ? '-' : ''}${m[0]}`;
      if (ty === 'bool') return plain(v === '0' ? 'false' : 'true');
      const suffix = this.style === 'gnu' ? LITERAL_SUFFIX[ty] : ty === 'int' ? '' : undefined;
      return plain(suffix !== undefined ? v + suffix : `(${ty})${v}`);
    }
    // an expression argument: only a template parameter or a literal (`XT_E`, `XLi8EE`) is read
    if (this.take('X')) {
      const c = this.peek();
      const t = c === 'T' ? this.type() : c === 'L' ? this.templateArg() : undefined;
      if (!t) throw new Fail();
      this.need('E');
      return t;
    }
    if (this.take('J')) {
      const pack: Ty[] = [];
      while (!this.take('E')) pack.push(this.templateArg());
      return plain(pack.map(show).join(', '));
    }
    return this.type();
  }

  private substitution(): Ty {
    this.need('S');
    const abbrev: Record<string, string> = { a: 'std::allocator', b: 'std::basic_string', s: 'std::string', i: 'std::istream', o: 'std::ostream', d: 'std::iostream' };
    const c = this.peek();
    if (abbrev[c]) { this.i++; return plain(abbrev[c]!); }
    let k = 0;
    if (!this.take('_')) {
      const m = /^[0-9A-Z]+/.exec(this.s.slice(this.i));
      if (!m) throw new Fail();
      this.i += m[0].length;
      k = parseInt(m[0], 36) + 1;
      this.need('_');
    }
    const t = this.subs[k];
    if (!t) throw new Fail();
    return t;
  }

  type(): Ty {
    const c = this.peek();
    if (BUILTIN[c]) { this.i++; return plain(BUILTIN[c]!); }
    if (c === 'D' && BUILTIN_D[this.peek(1)]) { const t = plain(BUILTIN_D[this.peek(1)]!); this.i += 2; return t; }
    if (c === 'D' && this.peek(1) === 'F') {
      this.i += 2;
      const bits = this.number();
      this.take('_');
      return plain(bits === 16 ? '__half' : `_Float${bits}`);
    }
    let t: Ty;
    if (c === 'P' || c === 'R' || c === 'O') {
      this.i++;
      const inner = this.type();
      const mark = c === 'P' ? '*' : c === 'R' ? '&' : '&&';
      // reference collapsing (a template parameter `T&&` with T = `int&` is `int&`)
      if (c !== 'P' && !inner.right && /&$/.test(inner.left)) {
        return this.sub(c === 'O' ? inner : { left: inner.left.replace(/&&$/, '&'), right: '' });
      }
      // `int *`, `char **`, `void (*)(int)`, `int (*)[4]` (gdb: `int*`, `int (*) [4]`)
      if (inner.right.startsWith('[')) return this.sub({ left: `${inner.left} (${mark}`, right: `)${this.style === 'gnu' ? ' ' : ''}${inner.right}` });
      const glue = inner.right.startsWith(')') || /[*&]$/.test(inner.left) || this.style === 'gnu' ? '' : ' ';
      t = { left: `${inner.left}${glue}${mark}`, right: inner.right };
    } else if (c === 'K' || c === 'V' || c === 'r') {
      this.i++;
      const q = c === 'K' ? 'const' : c === 'V' ? 'volatile' : '__restrict';
      const inner = this.type();
      // a qualified pointer reads `int *const`; a qualified value `const int` (gdb: `int const`, `int* const`)
      if (this.style === 'gnu') t = { left: `${inner.left} ${q}`, right: inner.right };
      else t = /[*&]$/.test(inner.left) ? { left: `${inner.left}${q}`, right: inner.right } : { left: `${q} ${inner.left}`, right: inner.right };
    } else if (c === 'F') {
      this.i++;
      this.take('Y');
      const ret = this.type();
      const ps: string[] = [];
      while (!this.take('E')) { this.take('R') || this.take('O'); if (this.peek() === 'E') continue; ps.push(show(this.type())); }
      const list = ps.length === 1 && ps[0] === 'void' ? '' : ps.join(', ');
      t = { left: `${show(ret)} (`, right: `)(${list})` };
    } else if (c === 'A') {
      this.i++;
      const n = /\d/.test(this.peek()) ? String(this.number()) : '';
      this.need('_');
      const el = this.type();
      t = { left: el.left, right: `[${n}]${el.right}` };
    } else if (c === 'T' && (this.peek(1) === '_' || /\d/.test(this.peek(1)))) {
      this.i++;
      const k = this.take('_') ? 0 : this.number() + 1;
      if (k > 0) this.need('_');
      t = this.templateArgs[k] ?? plain(`T${k}`);
      this.subs.push(t);
      return this.maybeArgs(t);
    } else if (c === 'S') {
      if (this.take('St')) { t = plain(`std::${this.unqualified()}`); this.subs.push(t); return this.maybeArgs(t); }
      t = this.substitution();
      return this.maybeArgs(t, false);
    } else if (c === 'N' || c === 'Z' || /\d/.test(c)) {
      t = plain(this.name().name);
    } else if (c === 'D' && this.peek(1) === 'p') {
      this.i += 2;
      return this.type();
    } else throw new Fail();
    this.subs.push(t);
    return t;
  }

  private sub(t: Ty): Ty { this.subs.push(t); return t; }

  /** A type name followed by template arguments (`S_IiE`): both are substitution candidates. */
  private maybeArgs(t: Ty, pushed = true): Ty {
    if (this.peek() !== 'I') return t;
    if (!pushed) this.subs.push(t);
    const saved = this.templateArgs;
    const withArgs = plain(show(t) + this.templateArgList());
    this.templateArgs = saved;
    this.subs.push(withArgs);
    return withArgs;
  }
}

/** The demangled name of an Itanium-mangled symbol, or undefined when it is not one we read. */
export function demangle(mangled: string, style: DemangleStyle = 'sanitizer'): string | undefined {
  return parse(mangled, style)?.full;
}

/**
 * gdb's two names of a function: `full` as c++filt writes it (`void foo<float, 4>(float*, int)`)
 * and `name`, the print name bt and breakpoint hits show (`foo<float, 4>`, `ns::Box::get`).
 */
export function parse(mangled: string, style: DemangleStyle = 'gnu'): { full: string; name: string } | undefined {
  if (!mangled.startsWith('_Z')) return undefined;
  try {
    const p = new Parser(mangled.slice(2), style);
    const full = p.encoding();
    return { full, name: p.lastName };
  } catch (e) {
    if (e instanceof Fail) return undefined;
    throw e;
  }
}

/** How compute-sanitizer names a function: demangled with its parameters, or the name as it is. */
export function displayName(symbol: string): string {
  return demangle(symbol) ?? symbol;
}
