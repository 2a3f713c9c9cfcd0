/**
 * `ptxdbg dwarf kernel.ptx`: the `.debug_info` DIE tree of a PTX file in llvm-dwarfdump's style.
 * Reading and parsing PTX is ptxdbg's part; the dump itself is the decoder's (`dumpDebugInfo`).
 */
import { readFileSync } from 'node:fs';
import { dumpDebugInfo } from '../../dwarf/src/index.js';
import { dwarfFromModule, type PtxDwarfOptions } from '../ptx/dwarf.js';
import { parsePtx } from '../ptx/parser.js';

export interface DwarfCommandResult {
  /** The dump (empty-ish when the file has no DWARF). */
  readonly text: string;
  /** PTX parse diagnostics (as "line:col: message") and DWARF warnings (naming section and offset). */
  readonly warnings: string[];
}

/**
 * `ptxdbg dwarf kernel.ptx`: read, parse and dump. Never throws (an unreadable file is a warning).
 */
export function dwarfCommand(ptxPath: string, options: PtxDwarfOptions = {}): DwarfCommandResult {
  let source: string;
  try {
    source = readFileSync(ptxPath, 'utf8');
  } catch (e) {
    return { text: '', warnings: [`${ptxPath}: cannot read: ${e instanceof Error ? e.message : String(e)}`] };
  }
  return dwarfDump(source, ptxPath, options);
}

/** The DIE tree of PTX text already read (the CLI reads files with a size bound). */
export function dwarfDump(source: string, ptxPath: string, options: PtxDwarfOptions = {}): DwarfCommandResult {
  const { module, diagnostics } = parsePtx(source, ptxPath);
  const warnings: string[] = diagnostics.map((d) => `${ptxPath}: ${d.severity}: ${d.message}`);
  const dwarf = dwarfFromModule(module, options);
  let text: string;
  try {
    text = dwarf.section('.debug_info') ? dumpDebugInfo(dwarf) : `${ptxPath}: no .debug_info section (compile with nvcc -G)\n`;
  } catch (e) {
    text = '';
    dwarf.warnings.error(e, '.debug_info');
  }
  return { text, warnings: [...warnings, ...dwarf.warnings.list] };
}
