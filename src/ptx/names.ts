import { parse } from './demangle.js';

/**
 * The plain name of a C++-mangled PTX function: `_Z10cdp_kerneliiii` is `cdp_kernel`, and a
 * namespaced `_ZN3cub...E` is its last component (before template arguments and parameters).
 * Used wherever a kernel is named to a person: launch labels, breakpoints, fault reports.
 */
export function plainName(mangled: string): string {
  if (!mangled.startsWith('_Z')) return mangled;
  // _Z<len><name>..., or _ZN<len><name><len><name>...E (namespaces, classes): the last name,
  // before template arguments (I...E) or the parameters
  let i = mangled[2] === 'N' ? 3 : 2;
  let last: string | undefined;
  for (;;) {
    const m = /^(\d+)/.exec(mangled.slice(i));
    if (!m) break;
    const len = Number(m[1]);
    const name = mangled.slice(i + m[1]!.length, i + m[1]!.length + len);
    if (name.length !== len) break;
    last = name;
    i += m[1]!.length + len;
    if (mangled[2] !== 'N') break;
  }
  return last ?? mangled;
}

/**
 * gdb's print name of a PTX function, as bt, breakpoint hits and `finish` show it: the demangled
 * qualified name with template arguments, without return type and parameters
 * (`_Z5scaleIfLi4EEvPT_i` is `scale<float, 4>`, `_ZN3ops5timesIfLi4EEET_S1_` `ops::times<float, 4>`);
 * a name the demangler cannot read keeps its plain stem.
 */
export function printName(mangled: string): string {
  return parse(mangled, 'gnu')?.name ?? plainName(mangled);
}

/** The whole demangled name as c++filt and gdb's `info functions` write it (`void scale<float, 4>(float*, int)`), or the name itself. */
export function demangledName(mangled: string): string {
  return parse(mangled, 'gnu')?.full ?? mangled;
}

/**
 * A function's name with its parameters and no return type, as gdb writes a symbol
 * (`<axpy(float, float, float)+16>`, `Dump of assembler code for function ...`):
 * `scale<float, 4>(float*, int)`; a name the demangler cannot read is itself.
 */
export function signatureName(mangled: string): string {
  const p = parse(mangled, 'gnu');
  if (!p) return mangled;
  return p.name + p.full.slice(p.full.lastIndexOf(p.name) + p.name.length);
}

/** A function name without blanks that do not separate words, for comparing what a user typed (`foo(float *, int)` = `foo(float*, int)`). */
export function normalizeName(name: string): string {
  return name.trim().replace(/\s+/g, ' ').replace(/ ?([*&,<>()[\]]) ?/g, '$1');
}

/**
 * Does `spec` (what `break` or `list` was given) name this function the way gdb accepts: the
 * mangled or plain name, the print name (`scale<float, 4>`, `ops::times<float, 4>`), or either
 * with its parameter list (`scale(float*, int)`, `scale<float, 4>(float*, int)`).
 */
export function namesFunction(spec: string, mangled: string): boolean {
  if (spec === mangled || spec === plainName(mangled)) return true;
  const p = parse(mangled, 'gnu');
  if (!p) return false;
  const want = normalizeName(spec);
  const params = p.full.slice(p.full.lastIndexOf(p.name) + p.name.length);
  const stem = p.name.replace(/<.*>$/, '');
  return [p.name, p.name + params, stem + params].some((n) => normalizeName(n) === want);
}
