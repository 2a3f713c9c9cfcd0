/**
 * `ptxdbg check`: exit 0 when the PTX parses, resolves and every instruction can be executed by
 * the interpreter; else located diagnostics and exit 1.
 */
import { unsupportedInstructions } from '../exec/support.js';
import { renderDiagnostics } from '../ptx/index.js';
import { readPtx } from './common.js';

/** `labels`: the names the user gave (a `.cu` is checked through its compiled PTX). */
export function checkCommand(files: readonly string[], labels: readonly string[] = files): number {
  let bad = 0;
  for (const f of files) {
    const read = readPtx(f);
    const loaded = read.program ? { ...read, diagnostics: [...read.diagnostics, ...unsupportedInstructions(read.program)] } : read;
    if (loaded.diagnostics.length) {
      bad++;
      process.stderr.write(renderDiagnostics(loaded) + '\n');
    }
  }
  if (bad === 0) process.stdout.write(`${files.length === 1 ? labels[0] : `${files.length} files`}: ok\n`);
  return bad ? 1 : 0;
}
