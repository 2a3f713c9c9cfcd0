/**
 * The layering, checked from the import statements of the sources (rerun by anyone with
 * `npm test -- test/layering.test.ts`): arrows point one way,
 *   front ends (src/frontends, src/cli) -> engine (src/engine) -> exec/trace/races -> ptx -> dwarf/ (the package).
 * A new arrow the other way fails here with the offending file and import.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import ts from 'typescript';
import { ROOT } from './helpers.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return files(p);
    return /\.tsx?$/.test(n) ? [p] : [];
  });
}

/**
 * One import: `to` is a repository path for a relative import ("src/engine/x.ts" -> "src/exec/y"),
 * the bare specifier otherwise; `typeOnly` for `import type` / `export type` (erased when compiled).
 */
interface Import { from: string; to: string; spec: string; typeOnly?: boolean }

/** The source trees scanned: src/ and the top-level packages (dwarf/, tui/) once they exist. */
const TREES = ['src', 'dwarf', 'tui'].filter((d) => existsSync(join(ROOT, d)));

/** Every import of every source file of TREES (node_modules and build output left out). */
function imports(): Import[] {
  const out: Import[] = [];
  for (const t of TREES) {
    for (const f of files(join(ROOT, t))) {
      const from = relative(ROOT, f).split(sep).join('/');
      if (/(^|\/)(node_modules|dist)\//.test(from)) continue;
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(type\s+)?[^'";]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]/g)) {
        const spec = (m[2] ?? m[3])!;
        // tui/ names the engine's public API '#engine' (package.json "imports"): src/engine/index.ts
        const to = spec === '#engine' ? 'src/engine/index.js' : spec.startsWith('.') ? posix.normalize(posix.join(dirname(from), spec)) : spec;
        out.push({ from, to, spec, ...(m[1] ? { typeOnly: true } : {}) });
      }
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

// ---- structure rules (helper "exec", issue #26): folders, cycles, dwarf, engine ----------------
// Each is a function of an import list, so that the self-check below can show it failing on a
// deliberately bad synthetic list; the real list must give no violation.

/** The layer a path belongs to: `src/<folder>` (src/cli.ts is the CLI's), or a top-level package. */
function folderOf(path: string): string | undefined {
  const parts = path.split('/');
  if (parts[0] === 'src') return parts.length === 2 ? `src/${parts[1]!.replace(/\.[jt]sx?$/, '')}` : `src/${parts[1]}`;
  return TREES.includes(parts[0]!) && parts.length > 1 ? parts[0] : undefined;
}

/** The cycles of a graph (its strongly connected components of two or more nodes), each sorted. */
function cycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>(), low = new Map<string, number>(), stack: string[] = [], on = new Set<string>(), out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next); low.set(v, next++); stack.push(v); on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do { w = stack.pop()!; on.delete(w); c.push(w); } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

function graph(list: readonly Import[], node: (path: string) => string | undefined): Map<string, Set<string>> {
  const g = new Map<string, Set<string>>();
  for (const i of list) {
    const a = node(i.from), b = node(i.to);
    if (a === undefined || b === undefined || a === b) continue;
    if (!g.has(a)) g.set(a, new Set());
    g.get(a)!.add(b);
  }
  return g;
}

/**
 * The modules of the interpreter's loop call each other by design (the scheduler runs a warp,
 * whose control flow diverges, reconverges, waits at barriers and calls, which reschedule): they
 * count as one module for the cycle rule. Nothing else in src/exec may import back.
 */
const INTERPRETER_LOOP = ['barriers', 'calls', 'control', 'divergence', 'run', 'scheduler'].map((n) => `src/exec/machine/${n}`);

function execModule(path: string): string | undefined {
  if (!path.startsWith('src/exec/')) return undefined;
  const m = path.replace(/\.[jt]sx?$/, '');
  return INTERPRETER_LOOP.includes(m) ? 'src/exec/machine/(interpreter loop)' : m;
}

/** Where the DWARF decoder lives: src/dwarf today, the top-level package dwarf/ once moved. */
const DWARF = ['src/dwarf', 'dwarf'];
/** What the engine may import besides itself: the layers below it (io: byte-level helpers they share). */
const ENGINE_MAY = ['src/trace', 'src/races', 'src/exec', 'src/ptx', 'src/io', ...DWARF];

const STRUCTURE: { what: string; check: (list: readonly Import[]) => string[]; bad: Import[] }[] = [
  {
    what: 'no import cycle between the folders of src (and the top-level packages)',
    check: (list) => cycles(graph(list, folderOf)).map((c) => c.join(' <-> ')),
    bad: [{ from: 'src/exec/a.ts', to: 'src/trace/b', spec: '../trace/b.js' }, { from: 'src/trace/b.ts', to: 'src/exec/a', spec: '../exec/a.js' }],
  },
  {
    what: 'no import cycle between the modules of src/exec (imports that run; `import type` is erased)',
    check: (list) => cycles(graph(list.filter((i) => !i.typeOnly), execModule)).map((c) => c.join(' <-> ')),
    bad: [{ from: 'src/exec/children.ts', to: 'src/exec/machine.js', spec: './machine.js' }, { from: 'src/exec/machine.ts', to: 'src/exec/children.js', spec: './children.js' }],
  },
  {
    what: 'the DWARF decoder imports nothing of ours (src/dwarf or dwarf/)',
    check: (list) => list
      .filter((i) => DWARF.some((d) => i.from.startsWith(d + '/')))
      .filter((i) => (i.spec.startsWith('.') ? !DWARF.some((d) => under(i.to, d)) : /^(@ptxdbg\/|ptxdbg(\/|$))/.test(i.spec)))
      .map((i) => `${i.from} imports ${i.spec}`),
    bad: [{ from: 'dwarf/src/line.ts', to: 'src/ptx/types', spec: '../../src/ptx/types.js' }, { from: 'src/dwarf/dwarf.ts', to: 'src/ptx/types', spec: '../ptx/types.js' }],
  },
  {
    what: 'the engine imports only the layers below it: trace, races, exec, dwarf, ptx',
    check: (list) => list
      .filter((i) => i.from.startsWith('src/engine/') && i.spec.startsWith('.') && !under(i.to, 'src/engine') && !ENGINE_MAY.some((d) => under(i.to, d)))
      .map((i) => `${i.from} imports ${i.spec}`),
    bad: [{ from: 'src/engine/session.ts', to: 'src/host/device', spec: '../host/device.js' }],
  },
];

describe('layering', () => {
  const all = imports();

  it('finds the imports it checks (the scan itself works)', () => {
    expect(all.some((i) => i.from.startsWith('src/engine/') && under(i.to, 'src/exec'))).toBe(true);
    expect(all.some((i) => i.from.startsWith('tui/') && under(i.to, 'src/engine'))).toBe(true);
  });

  for (const r of RULES) {
    it(r.what, () => {
      const bad = all.filter((i) => r.from.some((d) => i.from.startsWith(d + '/')) && r.mayNot.some((d) => under(i.to, d)));
      expect(bad.map((i) => `${i.from} imports ${i.spec}`)).toEqual([]);
    });
  }

  // ---- structure rules (helper "exec"): see STRUCTURE above ----
  for (const r of STRUCTURE) {
    it(r.what, () => {
      expect(r.check(all)).toEqual([]);
    });
    it(`${r.what}: fails on a deliberately bad import list (self-check)`, () => {
      const found = r.check([...all.filter((i) => !r.check([i]).length), ...r.bad]);
      expect(found.length).toBeGreaterThan(0);
    });
  }

  // ---- end of structure rules ----

  it('the TUI builds no command text: gdb lines run only from its `:` console line', () => {
    const tui = files(join(ROOT, 'tui')).map((f) => ({ f: relative(ROOT, f), text: readFileSync(f, 'utf8') }));
    const executes = tui.flatMap((x) => [...x.text.matchAll(/\.execute\(/g)].map(() => x.f));
    // one call: Controller.run, which the command line (`:`) uses
    expect(executes).toHaveLength(1);
    const built = tui.filter((x) => /this\.run\(`|this\.run\('|commandText\(/.test(x.text)).map((x) => x.f);
    expect(built).toEqual([]);
  });

  // ---- the terminal front end (tui/, helper "tui", issue #26) ----
  // tui/ is the design's top-level package for the terminal UI: of src/ it sees only the engine's
  // public API (the door every front end uses), never the Session, the machine, the PTX parser or
  // another front end (the gdb language reaches it only as the engine's CommandConsole, handed
  // over by its caller). The build checks the same with tui/tsconfig.json (rootDir tui/,
  // '#engine' = the engine's declarations).
  const TUI_MAY_IMPORT = ['src/engine/index', 'src/engine/types'];
  const tuiBad = (list: readonly { from: string; to: string; spec: string }[]): string[] =>
    list.filter((i) => i.from.startsWith('tui/') && under(i.to, 'src') && !TUI_MAY_IMPORT.some((ok) => i.to === ok || i.to.startsWith(ok + '.')))
      .map((i) => `${i.from} imports ${i.spec}`);

  it('the TUI (tui/) imports only the engine\'s public API from src/', () => {
    expect(tuiBad(all)).toEqual([]);
  });

  it('of src/, only the CLI imports the TUI (the engine and the other front ends never do)', () => {
    const bad = all.filter((i) => i.from.startsWith('src/') && !i.from.startsWith('src/cli/') && under(i.to, 'tui'));
    expect(bad.map((i) => `${i.from} imports ${i.spec}`)).toEqual([]);
    expect(all.some((i) => i.from.startsWith('src/cli/') && under(i.to, 'tui'))).toBe(true);
  });

  it('the TUI rule catches a deliberate bad import (tui → src/engine/session, tui → src/frontends/gdb)', () => {
    const planted = [
      { from: 'tui/model.ts', to: 'src/engine/session.js', spec: '../src/engine/session.js' },
      { from: 'tui/controller.ts', to: 'src/frontends/gdb/console.js', spec: '../src/frontends/gdb/console.js' },
      { from: 'tui/panes/code.tsx', to: 'src/engine/index.js', spec: '../../src/engine/index.js' },
    ];
    expect(tuiBad(planted)).toEqual(['tui/model.ts imports ../src/engine/session.js', 'tui/controller.ts imports ../src/frontends/gdb/console.js']);
  });
});

// ---- #26 "one door into the engine" (helper door) ------------------------------------------------
// The gdb language, DAP and the host side reach the engine through its public API only:
// src/engine/index.ts (Engine, the presenters, errors) and src/engine/types.ts (pure types).
// Session, the trace, the machine, the race checker and PTX stay behind that door, and the front
// ends do not import each other (DAP gets the gdb console handed in by the CLI).


const DOOR = ['src/engine/index.js', 'src/engine/types.js'];

const DOOR_RULES: { what: string; from: string[]; mayNot: string[]; engineOnlyThroughDoor: boolean }[] = [
  {
    what: 'the gdb language and DAP import the engine only through its door, and nothing below it',
    from: ['src/frontends/gdb', 'src/frontends/dap'],
    mayNot: ['src/exec', 'src/trace', 'src/races', 'src/ptx', 'src/dwarf'],
    engineOnlyThroughDoor: true,
  },
  { what: 'the host side imports the engine only through its door', from: ['src/host'], mayNot: [], engineOnlyThroughDoor: true },
  { what: 'the gdb language imports no other front end', from: ['src/frontends/gdb'], mayNot: ['src/frontends/dap', 'tui'], engineOnlyThroughDoor: false },
  { what: 'DAP imports no other front end', from: ['src/frontends/dap'], mayNot: ['src/frontends/gdb', 'tui'], engineOnlyThroughDoor: false },
];

/** The imports that break a rule, as "FILE imports SPEC" lines. */
function doorViolations(list: readonly Import[], r: (typeof DOOR_RULES)[number]): string[] {
  return list
    .filter((i) => r.from.some((d) => i.from.startsWith(d + '/')))
    .filter((i) => r.mayNot.some((d) => under(i.to, d)) || (r.engineOnlyThroughDoor && under(i.to, 'src/engine') && !DOOR.includes(i.to)))
    .map((i) => `${i.from} imports ${i.spec}`);
}

describe('layering: one door into the engine (#26)', () => {
  const all = imports();

  for (const r of DOOR_RULES) {
    it(r.what, () => {
      expect(doorViolations(all, r)).toEqual([]);
    });
  }

  it('the rules catch a bad import (checked on a made-up import list)', () => {
    const bad: Import[] = [
      { from: 'src/frontends/dap/adapter.ts', to: 'src/engine/session.js', spec: '../../engine/session.js' },
      { from: 'src/frontends/gdb/commands.ts', to: 'src/exec/launch.js', spec: '../../exec/launch.js' },
      { from: 'src/frontends/dap/adapter.ts', to: 'src/frontends/gdb/console.js', spec: '../gdb/console.js' },
      { from: 'src/host/program.ts', to: 'src/engine/breakpoints.js', spec: '../engine/breakpoints.js' },
    ];
    const good: Import[] = [
      { from: 'src/frontends/dap/adapter.ts', to: 'src/engine/index.js', spec: '../../engine/index.js' },
      { from: 'src/frontends/gdb/commands.ts', to: 'src/engine/types.js', spec: '../../engine/types.js' },
      { from: 'src/host/device.ts', to: 'src/exec/machine.js', spec: '../exec/machine.js' },
    ];
    const found = DOOR_RULES.flatMap((r) => doorViolations([...bad, ...good], r));
    expect(found.sort()).toEqual([
      'src/frontends/dap/adapter.ts imports ../../engine/session.js',
      'src/frontends/dap/adapter.ts imports ../gdb/console.js',
      'src/frontends/gdb/commands.ts imports ../../exec/launch.js',
      'src/host/program.ts imports ../engine/breakpoints.js',
    ]);
  });
});

// ---- module size (issue #26): small modules with one job ---------------------------------------

/** The most lines a module of src/ or tui/ may have, unless listed below with its reason. */
const MAX_LINES = 600;

/** Modules allowed over MAX_LINES, each with why (and the lines it had when listed: growth shows). */
const LONG_MODULES: Readonly<Record<string, string>> = {
  'src/ptx/parser.ts': 'the recursive-descent parser of the whole PTX grammar (1,237 lines): one grammar, its productions call each other; a split should follow the parse-speed work (#29) that will rewrite its hot paths',
  'src/frontends/gdb/language.ts': 'the gdb language\'s command table and dispatch (633 lines, 5% over; the by-design refusals moved to bydesign.ts): the table is one list; a split by command family is next',
  'src/races/checker.ts': 'the race checker\'s one pass over the recording (619 lines, 3% over)',
};

/** The modules over `max` lines that are not listed, as "FILE: N lines". */
function longModules(sizes: ReadonlyMap<string, number>, max: number, allowed: Readonly<Record<string, string>>): string[] {
  return [...sizes].filter(([f, n]) => n > max && !(f in allowed)).map(([f, n]) => `${f}: ${n} lines`);
}

describe('layering: module size (#26)', () => {
  const sizes = new Map<string, number>();
  for (const t of ['src', 'tui'].filter((d) => existsSync(join(ROOT, d)))) {
    for (const f of files(join(ROOT, t))) {
      const rel = relative(ROOT, f).split(sep).join('/');
      if (/(^|\/)(node_modules|dist)\//.test(rel)) continue;
      sizes.set(rel, readFileSync(f, 'utf8').split('\n').length - 1);
    }
  }

  it(`no module of src/ or tui/ is over ${MAX_LINES} lines unless listed with a reason`, () => {
    expect(longModules(sizes, MAX_LINES, LONG_MODULES)).toEqual([]);
  });

  it('every listed long module still exists and is still long (a split one leaves the list)', () => {
    expect(Object.keys(LONG_MODULES).filter((f) => (sizes.get(f) ?? 0) <= MAX_LINES)).toEqual([]);
  });

  it('the rule catches a long module (checked on made-up sizes)', () => {
    const made = new Map([['src/engine/api.ts', 1016], ['src/ptx/parser.ts', 1181], ['src/engine/types.ts', 394]]);
    expect(longModules(made, MAX_LINES, LONG_MODULES)).toEqual(['src/engine/api.ts: 1016 lines']);
  });
});

// ---- function size (issue #26): no function over ~120 lines in the interpreter's instruction
// selection (src/exec/compile) and the PTX resolver (src/ptx/resolve*.ts, program.ts) ----------

/** The most lines a function there may span (its first to its last line), unless listed below. */
const MAX_FUNCTION_LINES = 120;

/** Where the rule applies: a folder (every file under it) or a file name pattern. */
const FUNCTION_SIZE_SCOPE: readonly RegExp[] = [/^src\/exec\/compile\//, /^src\/ptx\/resolve[^/]*\.ts$/, /^src\/ptx\/program\.ts$/];

/** Functions allowed over MAX_FUNCTION_LINES, as "FILE:NAME", each with why (none today). */
const LONG_FUNCTIONS: Readonly<Record<string, string>> = {};

/** Every function with a body in `text`, with the lines it spans (a nested one counts on its own too). */
function functionSizes(file: string, text: string): { name: string; lines: number }[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: { name: string; lines: number }[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line, last = sf.getLineAndCharacterOfPosition(n.end).line;
      const p = n.parent;
      const name = (n as ts.FunctionLikeDeclaration).name?.getText(sf) ?? ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p)) ? p.name.getText(sf) : `<anonymous at line ${first + 1}>`);
      out.push({ name, lines: last - first + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** The functions over `max` lines that are not listed, as "FILE:NAME: N lines". */
function longFunctions(sources: ReadonlyMap<string, string>, max: number, allowed: Readonly<Record<string, string>>): string[] {
  return [...sources].flatMap(([f, text]) => functionSizes(f, text).filter((s) => s.lines > max && !(`${f}:${s.name}` in allowed)).map((s) => `${f}:${s.name}: ${s.lines} lines`));
}

describe('layering: function size in instruction selection and the resolver (#26)', () => {
  const sources = new Map<string, string>();
  for (const f of files(join(ROOT, 'src'))) {
    const rel = relative(ROOT, f).split(sep).join('/');
    if (FUNCTION_SIZE_SCOPE.some((r) => r.test(rel))) sources.set(rel, readFileSync(f, 'utf8'));
  }
  const sized = [...sources].flatMap(([f, t]) => functionSizes(f, t).map((s) => ({ file: f, ...s })));

  it('finds the sources it checks (compileCvt, resolveModule, resolveFunction)', () => {
    const names = sized.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['compileCvt', 'resolveModule', 'resolveFunction']));
  });

  it(`no function there is over ${MAX_FUNCTION_LINES} lines unless listed with a reason`, () => {
    expect(longFunctions(sources, MAX_FUNCTION_LINES, LONG_FUNCTIONS)).toEqual([]);
  });

  it('every listed long function is still long (a split one leaves the list)', () => {
    const long = new Set(sized.filter((s) => s.lines > MAX_FUNCTION_LINES).map((s) => `${s.file}:${s.name}`));
    expect(Object.keys(LONG_FUNCTIONS).filter((k) => !long.has(k))).toEqual([]);
  });

  it('the rule catches a long function, nested ones too (checked on made-up sources)', () => {
    const body = (n: number): string => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');
    const made = new Map([
      // compileBig spans 124 lines (over), compileOk 120 (at the limit: allowed), inner 128 inside outer 131
      ['src/exec/compile/made.ts', `export function compileBig(x: number): number {\n${body(121)}\n  return x;\n}\nexport function compileOk(x: number): number {\n${body(117)}\n  return x;\n}\n`],
      ['src/ptx/resolve-made.ts', `export function outer(): void {\n  const inner = (x: number): number => {\n${body(125)}\n    return x;\n  };\n  void inner;\n}\n`],
    ]);
    expect(longFunctions(made, MAX_FUNCTION_LINES, LONG_FUNCTIONS)).toEqual([
      'src/exec/compile/made.ts:compileBig: 124 lines',
      'src/ptx/resolve-made.ts:outer: 131 lines',
      'src/ptx/resolve-made.ts:inner: 128 lines',
    ]);
  });
});
