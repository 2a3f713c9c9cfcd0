/**
 * `ptxdbg check`: exit 0 when the PTX parses, resolves and every instruction can be executed by
 * the interpreter; else located diagnostics and exit 1.
 */
import { unsupportedInstructions } from '../exec/support.js';
import { renderDiagnostics } from '../ptx/index.js';
import { readPtx } from './common.js';

export function checkCommand(files: readonly string[]): number {
  let bad = 0;
  for (const f of files) {
    const read = readPtx(f);
    const loaded = read.program ? { ...read, diagnostics: [...read.diagnostics, ...unsupportedInstructions(read.program)] } : read;
    if (loaded.diagnostics.length) {
      bad++;
      process.stderr.write(renderDiagnostics(loaded) + '\n');
    }
  }
  if (bad === 0) process.stdout.write(`${files.length === 1 ? files[0] : `${files.length} files`}: ok\n`);
  return bad ? 1 : 0;
}
