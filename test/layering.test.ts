/**
 * The layering, checked from the import statements of the sources (rerun by anyone with
 * `npm test -- test/layering.test.ts`): arrows point one way,
 *   front ends (src/frontends, src/cli) -> engine (src/engine) -> exec/trace/races -> ptx -> dwarf/ (the package).
 * A new arrow the other way fails here with the offending file and import.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { ROOT } from './helpers.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return files(p);
    return /\.tsx?$/.test(n) ? [p] : [];
  });
}

/** Every relative import of every source file, as repository paths ("src/engine/x.ts" -> "src/exec/y"). */
function imports(): { from: string; to: string; spec: string }[] {
  const out: { from: string; to: string; spec: string }[] = [];
  for (const f of [...files(join(ROOT, 'src')), ...files(join(ROOT, 'dwarf', 'src'))]) {
    const from = relative(ROOT, f).split(sep).join('/');
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const spec = m[1]!;
      out.push({ from, to: posix.normalize(posix.join(dirname(from).split(sep).join('/'), spec)), spec });
    }
  }
  return out;
}

const under = (p: string, dir: string): boolean => p === dir || p.startsWith(dir + '/') || p.startsWith(dir + '.');

const RULES: { what: string; from: string[]; mayNot: string[] }[] = [
  { what: 'the engine depends on no front end and no CLI', from: ['src/engine'], mayNot: ['src/frontends', 'src/cli'] },
  {
    what: 'the machine, trace, race checker, PTX and DWARF layers depend on no engine and no front end',
    from: ['src/exec', 'src/trace', 'src/races', 'src/ptx'],
    mayNot: ['src/engine', 'src/frontends', 'src/cli'],
  },
  { what: 'PTX depends on no machine', from: ['src/ptx'], mayNot: ['src/exec', 'src/trace', 'src/races'] },
  // the standalone package (its own tsconfig's rootDir fails the build too)
  { what: 'dwarf/ imports nothing of ours', from: ['dwarf'], mayNot: ['src', 'tui', 'test', 'scripts', 'samples'] },
];

describe('layering', () => {
  const all = imports();

  it('finds the imports it checks (the scan itself works)', () => {
    expect(all.some((i) => i.from.startsWith('src/engine/') && under(i.to, 'src/exec'))).toBe(true);
    expect(all.some((i) => i.from.startsWith('src/frontends/tui/') && under(i.to, 'src/engine'))).toBe(true);
  });

  for (const r of RULES) {
    it(r.what, () => {
      const bad = all.filter((i) => r.from.some((d) => i.from.startsWith(d + '/')) && r.mayNot.some((d) => under(i.to, d)));
      expect(bad.map((i) => `${i.from} imports ${i.spec}`)).toEqual([]);
    });
  }

  it('the TUI builds no command text: gdb lines run only from its `:` console line', () => {
    const tui = files(join(ROOT, 'src', 'frontends', 'tui')).map((f) => ({ f: relative(ROOT, f), text: readFileSync(f, 'utf8') }));
    const executes = tui.flatMap((x) => [...x.text.matchAll(/\.execute\(/g)].map(() => x.f));
    // one call: Controller.run, which the command line (`:`) uses
    expect(executes).toHaveLength(1);
    const built = tui.filter((x) => /this\.run\(`|this\.run\('|commandText\(/.test(x.text)).map((x) => x.f);
    expect(built).toEqual([]);
  });
});

