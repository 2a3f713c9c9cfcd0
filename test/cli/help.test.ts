/**
 * `--help` wraps at word boundaries to the terminal's width, for the command and every subcommand.
 * yargs's ES module build cut lines every N characters ("lin" / "ked" at 80 columns); the installed
 * command (dist/bin/ptxdbg.js) is bundled with cliui's word-wrapping build (scripts/bundle.mjs).
 * Output to a pipe has no terminal, so the width comes from COLUMNS. 64 columns is the narrowest
 * where the longest option names (sanitize's compute-sanitizer names, `--check-api-memory-access`)
 * and the longest words fit their columns; narrower, a word longer than its column is cut (cliui
 * wraps hard).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, testIf } from '../helpers.js';

const BIN = join(ROOT, 'dist', 'bin', 'ptxdbg.js');
const built = existsSync(BIN) ? null : 'dist/bin/ptxdbg.js is missing: run `npm run build` first';

function help(columns: number, ...sub: string[]): string {
  const r = spawnSync(process.execPath, [BIN, ...sub, '--help'], {
    encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: ROOT, env: { ...process.env, COLUMNS: String(columns) },
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

const words = (text: string): string[] => text.match(/[A-Za-z0-9_]+/g) ?? [];

/** Every word the help may contain: the CLI's own sources and yargs's English strings. */
function vocabulary(): Set<string> {
  const cliDir = join(ROOT, 'src', 'cli');
  const files = [join(ROOT, 'src', 'cli.ts'), ...readdirSync(cliDir).map((f) => join(cliDir, f)), join(ROOT, 'node_modules', 'yargs', 'locales', 'en.json')];
  // string escapes (\n) are not part of a word
  return new Set(files.flatMap((f) => words(readFileSync(f, 'utf8').replace(/\\[nt]/g, ' '))));
}

function sorted(a: string[]): string[] {
  return [...a].sort();
}

testIf(built)('the help of the command and of every subcommand wraps whole words within the width', () => {
  // the subcommands as the unwrapped help lists them ("  ptxdbg run <file> ..." under Commands:)
  const top = help(1000);
  const subs = [...top.matchAll(/^ {2}ptxdbg (\w+)/gm)].map((m) => m[1]!);
  for (const known of ['record', 'replay', 'exec', 'dap', 'check', 'run', 'races']) expect(subs).toContain(known);
  const vocab = vocabulary();
  for (const sub of [[], ...subs.map((s) => [s])]) {
    const wide = help(1000, ...sub);
    for (const columns of [80, 64]) {
      const text = help(columns, ...sub);
      const long = text.split('\n').filter((l) => l.length > columns);
      expect({ sub, columns, long }).toEqual({ sub, columns, long: [] });
      // a word cut in two would be two words here and one in the unwrapped text
      expect({ sub, columns, words: sorted(words(text)) }).toEqual({ sub, columns, words: sorted(words(wide)) });
      const foreign = words(text).filter((w) => !vocab.has(w));
      expect({ sub, columns, foreign }).toEqual({ sub, columns, foreign: [] });
    }
  }
});

testIf(built)('the old 80-column cut is gone: "linked" stays one word at 80 columns', () => {
  // the default command's description ends "several .ptx files are linked" (src/cli.ts)
  expect(help(80)).toMatch(/several \.ptx files are\s+linked\b/);
});
