/**
 * `ptxdbg check`: exit 0 when the PTX parses, resolves and every instruction can be executed by
 * the interpreter; else located diagnostics and exit 1.
 */
import { unsupportedInstructions } from '../exec/support.js';
import { renderDiagnostics } from '../ptx/index.js';
import { linkedText, readPtxText } from './common.js';
import { loadPtx } from '../ptx/index.js';
import { sweepModule } from './check-sweep.js';

/**
 * `labels`: the names the user gave (a `.cu` is checked through its compiled PTX); `workers`:
 * threads for a large module (check-sweep.ts; the output does not depend on them).
 */
export async function checkCommand(files: readonly string[], link = false, labels: readonly string[] = files, workers: number | 'auto' = 'auto'): Promise<number> {
  const opts = { threads: workers === 'auto' ? undefined : workers };
  if (link && files.length > 1) {
    // one program: link errors, then the linked module as a launch would load it
    const text = linkedText(files[0]!, files.slice(1));
    if (text === undefined) return 1;
    const label = `${files[0]!} (linked with ${files.slice(1).join(', ')})`;
    if (await sweepModule(text, label, opts)) {
      process.stdout.write(`${files.length} files linked: ok\n`);
      return 0;
    }
    const read = loadPtx(text, label);
    const loaded = read.program ? { ...read, diagnostics: [...read.diagnostics, ...unsupportedInstructions(read.program)] } : read;
    if (loaded.diagnostics.length) {
      process.stderr.write(renderDiagnostics(loaded) + '\n');
      return 1;
    }
    process.stdout.write(`${files.length} files linked: ok\n`);
    return 0;
  }
  let bad = 0;
  for (const f of files) {
    const text = readPtxText(f);
    if (await sweepModule(text, f, opts)) continue;
    const read = loadPtx(text, f);
    const loaded = read.program ? { ...read, diagnostics: [...read.diagnostics, ...unsupportedInstructions(read.program)] } : read;
    if (loaded.diagnostics.length) {
      bad++;
      process.stderr.write(renderDiagnostics(loaded) + '\n');
    }
  }
  if (bad === 0) process.stdout.write(`${files.length === 1 ? labels[0] : `${files.length} files`}: ok\n`);
  return bad ? 1 : 0;
}
