/** The PTX ISA versions a module may declare (`.version`), as ptxas knows them. */

/**
 * The PTX ISA versions there are, as ptxas of CUDA 13.0 knows them (it answers any other with
 * "Unsupported .version X; current version is '9.0'"): major -> its last minor.
 */
const ISA_VERSIONS: ReadonlyMap<number, number> = new Map([[1, 5], [2, 3], [3, 2], [4, 3], [5, 1], [6, 5], [7, 8], [8, 8], [9, 0]]);
export const NEWEST_ISA = '9.0';
export const MISSING_VERSION = 'a PTX module starts with .version (ptxas refuses one without it)';

/** Why `.version text` names no PTX ISA ptxdbg knows, or undefined when it does. */
export function unknownVersion(text: string): string | undefined {
  const m = /^(\d+)\.(\d+)$/.exec(text);
  if (!m) return `.version needs major.minor, such as ${NEWEST_ISA}, not '${text}' (ptxas refuses it too)`;
  const major = Number(m[1]);
  // ptxas reads the number as a decimal: 8.10 is 8.1
  const frac = m[2]!.replace(/0+$/, '');
  const minor = frac === '' ? 0 : frac.length === 1 ? Number(frac) : NaN;
  const last = ISA_VERSIONS.get(major);
  if (last !== undefined && minor <= last) return undefined;
  const newer = major > 9 || (major === 9 && !(minor <= 0));
  return `unsupported .version ${text}: ${newer ? `the newest PTX ISA ptxdbg knows is ${NEWEST_ISA}` : 'no PTX ISA has that number'} (ptxas of CUDA 13.0 refuses it too)`;
}
