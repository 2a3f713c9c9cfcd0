import { readFileSync } from 'node:fs';
import { Dwarf, LineTable, readLinePrograms, ScopeIndex, sectionFromBytes, type SectionData } from '../src/index.js';

/** Where `address` is in the program whose DWARF sections were cut out into `dir/<prefix>.debug_*`. */
export function whereIs(dir: string, prefix: string, address: bigint): string {
  // Any object file's sections, already relocated (here: a linked shared object, cut out with
  // `objcopy --dump-section`; an ELF reader would hand over the same bytes).
  const sections = new Map<string, SectionData>();
  for (const name of ['info', 'abbrev', 'str', 'line', 'line_str', 'loclists', 'rnglists']) {
    const bytes = readFileSync(`${dir}/${prefix}.debug_${name}`);
    sections.set(`.debug_${name}`, sectionFromBytes(`.debug_${name}`, bytes));
  }
  const dwarf = new Dwarf(sections);                        // never throws: see dwarf.warnings.list
  const fn = new ScopeIndex(dwarf).functionAt(address);     // the DIE tree: functions, scopes, variables
  const at = new LineTable(readLinePrograms(sections)).find(address);  // the line table
  return `${fn?.name ?? '??'} at ${at?.file}:${at?.line}`;
}
