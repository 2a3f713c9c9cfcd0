/**
 * Every subcommand as a user runs it (the installed bundle, dist/bin/ptxdbg.js, as a child
 * process), asserting the fields a user reads, so that a command whose output silently empties
 * fails here. Expected values come from elsewhere: the CUDA sources and the PTX text (read by the
 * small reader below, which shares nothing with src/ptx), the samples' expected outputs (their
 * gen.py), and llvm-dwarfdump of the cubin (test/dwarf/reference). Commands covered elsewhere
 * end to end: record/replay and batch mode (test/debug/cli.test.ts), races (test/races/cli.test.ts),
 * dap (test/dap), exec/capture/sanitize/extract on nvcc-built programs (test/host/apps.test.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CanonDie, parseLlvmDump } from '../dwarf/llvmdump.js';
import { missingTool, ROOT, testIf } from '../helpers.js';

const CLI = join(ROOT, 'dist', 'bin', 'ptxdbg.js');
const sample = (name: string, build = 'G'): string => join('samples', name, `kernel.${build}.ptx`);

function cli(args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

let tmp: string;
beforeAll(() => { tmp = mkdtempSync(join(tmpdir(), 'ptxdbg-sub-')); });
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// ---- a PTX reader of its own: functions, their parameters and written instructions ------------

const TYPE_BYTES: Record<string, number> = { b8: 1, u8: 1, s8: 1, b16: 2, u16: 2, s16: 2, f16: 2, b32: 4, u32: 4, s32: 4, f32: 4, b64: 8, u64: 8, s64: 8, f64: 8 };

interface TextFunction { name: string; isEntry: boolean; params: { name: string; type: string; size: number }[]; returns: number; instructions: number }

/** Comments blanked (same length), so offsets stay those of the text. */
const uncomment = (t: string): string => t.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (c) => c.replace(/[^\n]/g, ' '));

/** `.param .u32 name` / `.param .align 8 .b8 name[16]`: type (with dims) and size in bytes. */
function paramOf(decl: string): { name: string; type: string; size: number } {
  const m = /\.param\s+(?:\.align\s+\d+\s+)?(?:\.ptr\S*\s+)*\.(\w+)\s+([\w$]+)((?:\[\d+\])*)/.exec(decl)!;
  const dims = [...m[3]!.matchAll(/\[(\d+)\]/g)].map((d) => Number(d[1]));
  return { name: m[2]!, type: m[1]! + m[3]!, size: dims.reduce((n, d) => n * d, TYPE_BYTES[m[1]!]!) };
}

function textFunctions(ptx: string): TextFunction[] {
  const t = uncomment(ptx);
  const out: TextFunction[] = [];
  const re = /\.(entry|func)\b/g;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    let i = m.index + m[0].length;
    const skipSpace = (): void => { while (/\s/.test(t[i]!)) i++; };
    const group = (): string => { // a parenthesised list, from t[i] === '('
      let depth = 0;
      const start = i;
      do { if (t[i] === '(') depth++; else if (t[i] === ')') depth--; i++; } while (depth > 0);
      return t.slice(start + 1, i - 1);
    };
    skipSpace();
    const rets = m[1] === 'func' && t[i] === '(' ? group() : '';
    skipSpace();
    const name = /^[\w$]+/.exec(t.slice(i))![0];
    i += name.length;
    skipSpace();
    const params = t[i] === '(' ? group() : '';
    const open = t.indexOf('{', i);
    const semi = t.indexOf(';', i);
    if (semi >= 0 && (open < 0 || semi < open)) { re.lastIndex = semi; continue; } // a prototype
    let depth = 0;
    let end = open;
    do { if (t[end] === '{') depth++; else if (t[end] === '}') depth--; end++; } while (depth > 0);
    // statements end with ';' (.loc lines have none): drop labels and braces before them;
    // directives start with '.'
    const statements = t.slice(open + 1, end - 1).replace(/^\s*\.loc\b.*$/gm, '').split(';').map((s) => s.replace(/^(\s*([\w$]+\s*:|[{}]))*\s*/, ''));
    out.push({
      name, isEntry: m[1] === 'entry',
      params: params.trim() ? params.split(',').map(paramOf) : [],
      returns: rets.trim() ? rets.split(',').length : 0,
      instructions: statements.filter((s) => s !== '' && !s.startsWith('.')).length,
    });
    re.lastIndex = end;
  }
  return out;
}

interface InfoJson {
  entries: { name: string; params: { name: string; type: string; size: number }[]; instructions: number }[];
  functions: { name: string; params: number; returns: number; instructions: number }[];
  externs: string[];
  globals: { name: string; space: string; type: string; size: number }[];
  shared: { name: string; space: string; type: string; size: number }[];
  files: Record<string, string>;
  hasDwarf: boolean;
  hasLineInfo: boolean;
  instructionCount: number;
}

// ---- check -------------------------------------------------------------------------------------

test('check passes every sample, both builds, in one call', () => {
  const files = readdirSync(join(ROOT, 'samples'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== '_lib' && d.name !== 'apps')
    .flatMap((d) => [sample(d.name, 'G'), sample(d.name, 'O3')]);
  expect(files.length).toBeGreaterThan(60);
  const r = cli(['check', ...files]);
  expect({ code: r.code, out: r.out, err: r.err }).toEqual({ code: 0, out: `${files.length} files: ok\n`, err: '' });
});

// ---- info --------------------------------------------------------------------------------------

test('info on the bundled sample: its kernel, parameters, helper, file, DWARF and line info', () => {
  // kernel.cu: saxpy(int n, float a, const float* x, float* y) calls axpy(float, float, float) -> float;
  // instruction counts are the PTX text's (37 in the kernel, 8 in axpy)
  const r = cli(['info', sample('saxpy')]);
  expect(r.code).toBe(0);
  expect(r.out).toBe([
    'samples/saxpy/kernel.G.ptx: PTX 9.0, target sm_80, debug, 64-bit addresses',
    'entry _Z5saxpyifPKfPf (37 instructions)',
    '  param _Z5saxpyifPKfPf_param_0: .u32 (4 bytes)',
    '  param _Z5saxpyifPKfPf_param_1: .f32 (4 bytes)',
    '  param _Z5saxpyifPKfPf_param_2: .u64 (8 bytes)',
    '  param _Z5saxpyifPKfPf_param_3: .u64 (8 bytes)',
    'func  _Z4axpyfff: 3 param(s), 1 return value(s), 8 instructions',
    'file 1: /src/saxpy/kernel.cu',
    'DWARF: yes (sections: .debug_abbrev .debug_info .debug_macinfo); line info (.loc): yes',
    'instructions: 45',
    '',
  ].join('\n'));
  expect(textFunctions(readFileSync(join(ROOT, sample('saxpy')), 'utf8')).map((f) => f.instructions)).toEqual([8, 37]);
});

describe('info --json agrees with the PTX text', () => {
  // kernels with helpers, device-function tables, externs (malloc, vprintf), every space of variable
  const cases: [string, string][] = [
    ['saxpy', 'O3'], ['vars_structs', 'G'], ['malloc_printf', 'G'], ['recursion_fnptr', 'G'],
    ['dyn_shared_mixed', 'G'], ['fence_last_block', 'O3'], ['warp_intrinsics', 'G'],
  ];
  test.each(cases)('%s (%s)', (name, build) => {
    const path = sample(name, build);
    const text = readFileSync(join(ROOT, path), 'utf8');
    const r = cli(['info', path, '--json']);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.out) as InfoJson;
    const fns = textFunctions(text);
    expect(fns.length).toBeGreaterThan(0);
    const entries = fns.filter((f) => f.isEntry);
    expect(info.entries.map((e) => ({ name: e.name, params: e.params.map((p) => ({ name: p.name, type: p.type, size: p.size })), instructions: e.instructions })))
      .toEqual(entries.map((e) => ({ name: e.name, params: e.params, instructions: e.instructions })));
    expect(info.functions).toEqual(fns.filter((f) => !f.isEntry).map((f) => ({ name: f.name, params: f.params.length, returns: f.returns, instructions: f.instructions })));
    expect(info.instructionCount).toBe(fns.reduce((n, f) => n + f.instructions, 0));
    expect(info.instructionCount).toBeGreaterThan(0);
    // externs: declared with .extern .func and never defined
    const externs = [...uncomment(text).matchAll(/\.extern\s+\.func\s+(?:\([^)]*\)\s*)?([\w$]+)/g)].map((m) => m[1]!);
    expect(info.externs.sort()).toEqual(externs.sort());
    // variables: every .global/.const declaration (module scope) and every .shared one (anywhere)
    const vars = [...uncomment(text).matchAll(/^\s*(?:\.(?:visible|extern|weak)\s+)*\.(global|const|shared)\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+([\w$]+)((?:\[\d*\])*)/gm)]
      .map((m) => {
        const dims = [...m[4]!.matchAll(/\[(\d*)\]/g)].map((d) => Number(d[1] || 0));
        return { name: m[3]!, space: m[1]!, type: m[2]! + m[4]!, size: dims.reduce((n, d) => n * d, TYPE_BYTES[m[2]!]!) };
      });
    const summary = (v: { name: string; space: string; type: string; size: number }): string => `${v.space} ${v.name}: ${v.type} ${v.size}`;
    expect([...info.globals, ...info.shared].map(summary).sort()).toEqual(vars.map(summary).sort());
    const files = Object.fromEntries([...text.matchAll(/^\s*\.file\s+(\d+)\s+"([^"]*)"/gm)].map((m) => [m[1]!, m[2]!]));
    expect(info.files).toEqual(files);
    expect(info.hasDwarf).toBe(/\.section\s+\.debug_info/.test(text));
    expect(info.hasLineInfo).toBe(/^\s*\.loc\s/m.test(uncomment(text)));
  });
});

// ---- run ---------------------------------------------------------------------------------------

test('run writes the outputs the samples expect (gen.py) and printf output to stdout', () => {
  const out = join(tmp, 'saxpy');
  const r = cli(['run', sample('saxpy'), '--out', out]);
  expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
  expect(readFileSync(join(out, 'y.bin')).equals(readFileSync(join(ROOT, 'samples', 'saxpy', 'expected', 'y.bin')))).toBe(true);
  const p = cli(['run', sample('malloc_printf', 'O3')]);
  expect(p.code).toBe(0);
  expect(p.out).toBe(readFileSync(join(ROOT, 'samples', 'malloc_printf', 'expected', 'stdout.txt'), 'utf8'));
});

// ---- dwarf -------------------------------------------------------------------------------------

test('dwarf prints the DIE tree llvm-dwarfdump prints for the cubin: tags, names, declaration lines', () => {
  // names and declaration lines survive ptxas; addresses and locations do not (test/dwarf/llvmdump.ts)
  const shape = (dies: CanonDie[]): unknown[] => dies.map((d) => ({
    tag: d.tag,
    attrs: d.attrs.filter(([k]) => k === 'DW_AT_name' || k === 'DW_AT_decl_line'),
    children: shape(d.children),
  }));
  const r = cli(['dwarf', sample('saxpy')]);
  expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
  const ours = shape(parseLlvmDump(r.out));
  expect(ours).toEqual(shape(parseLlvmDump(readFileSync(join(ROOT, 'test', 'dwarf', 'reference', 'saxpy.txt'), 'utf8'))));
  // the kernel and its helper, by their CUDA names (kernel.cu)
  expect(r.out).toContain('DW_AT_name\t("saxpy")');
  expect(r.out).toContain('DW_AT_name\t("axpy")');
});

// ---- the debugger's full-screen UI in a real terminal --------------------------------------------

testIf(missingTool('script'))('the debugger opens on a terminal, steps with n and quits with q', async () => {
  // kernel.cu: saxpy is declared on line 9; its first statement (int i = ...) is line 11
  const p = spawn('script', ['-qfec', `stty cols 100 rows 30; exec "${process.execPath}" "${CLI}" ${sample('saxpy')}`, '/dev/null'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  const waiters: { test: RegExp; done: () => void }[] = [];
  p.stdout.on('data', (b: Buffer) => {
    screen += b.toString().replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    for (const w of waiters.splice(0)) if (w.test.test(screen)) w.done(); else waiters.push(w);
  });
  const exited = new Promise<number | null>((done) => p.on('close', done));
  // the screen shows `test`, or the debugger ended first (then the test fails on what it showed)
  const until = async (test: RegExp): Promise<void> => {
    await Promise.race([new Promise<void>((done) => { if (test.test(screen)) done(); else waiters.push({ test, done }); }), exited]);
    expect(screen).toMatch(test);
  };
  await until(/ptxdbg {2}kernel\.cu:9 saxpy {2}block \(0,0,0\) thread \(0,0,0\)[\s\S]*step 0\/\d+/);
  screen = '';
  p.stdin.write('n');
  await until(/ptxdbg {2}kernel\.cu:11 saxpy/);
  p.stdin.write('q');
  expect(await exited).toBe(0);
}, 120_000);
