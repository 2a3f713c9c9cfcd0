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
