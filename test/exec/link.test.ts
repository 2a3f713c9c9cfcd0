/**
 * Linking several PTX files (nvcc -rdc=true code): test/fixtures/link holds main.cu and helper.cu
 * (with common.h) compiled with `nvcc -rdc=true -ptx -arch=sm_80` (-lineinfo, and -G). main.cu's
 * kernel calls helper() and reads `scale` from helper.cu, helper.cu reads main.cu's `counter`,
 * both instantiate the template clampTo<int> (a .weak function in each file) and both print with
 * printf (a private `$str` in each file). Expected values come from the CUDA source:
 * out[i] = clamp(3 * in[i] + 0.5, -100, 100).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { linkPtx } from '../../src/ptx/link.js';
import { loadPtx } from '../../src/ptx/index.js';
import { ROOT, tempDir, testIf } from '../helpers.js';

const CLI = join(ROOT, 'dist', 'src', 'cli.js');
const built = existsSync(CLI) ? null : `${CLI} is not built (run npm run build)`;
const FIX = join('test', 'fixtures', 'link');
const cli = (...args: string[]): { status: number | null; stdout: string; stderr: string } => {
  const r = spawnSync('node', [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

const X = Array.from({ length: 32 }, (_, i) => (i === 0 ? -50 : i === 31 ? 50 : i - 10));
function launchArgs(): string[] {
  const dir = tempDir('ptxdbg-link-');
  const file = join(dir, 'in.bin');
  writeFileSync(file, Buffer.from(new Float32Array(X).buffer));
  return ['--block', '32', '--arg', `f32[32]@${file}`, '--arg', 'f32[32]', '--arg', 'u32:32'];
}
const expected = X.map((x) => Math.min(100, Math.max(-100, 3 * x + 0.5)));

testIf(built)('run links main.ptx with helper.ptx: calls, extern variables, weak templates, private printf strings', () => {
  for (const build of ['', '.G']) {
    const out = tempDir('ptxdbg-link-out-');
    const r = cli('run', join(FIX, `main${build}.ptx`), join(FIX, `helper${build}.ptx`), ...launchArgs(), '--out', out);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // thread 11 (in = 1.0) prints from helper before any atomicAdd; thread 0 prints last
    expect(r.stdout).toBe('helper: counter=0\nmain: n=32\n');
    expect([...new Float32Array(new Uint8Array(readFileSync(join(out, 'arg1.bin'))).buffer)]).toEqual(expected);
  }
});

testIf(built)('races sees one program: helper.cu reads main.cu\'s counter while the kernel adds to it', () => {
  const r = cli('races', join(FIX, 'main.ptx'), join(FIX, 'helper.ptx'), ...launchArgs(), '--json');
  expect(r.status).toBe(1);
  const rep = JSON.parse(r.stdout) as { races: { symbol: string; accesses: { file: string; line: number }[] }[] };
  expect(rep.races.map((x) => [x.symbol, x.accesses.map((a) => `${a.file}:${a.line}`)])).toEqual([['counter', ['helper.cu:7', 'main.cu:12']]]);
});

testIf(built)('the debugger reads each file\'s DWARF: helper\'s parameters at a breakpoint in helper.cu', () => {
  const r = cli(join(FIX, 'main.G.ptx'), join(FIX, 'helper.G.ptx'), ...launchArgs(), '--batch',
    '--ex', 'break helper.cu:8', '--ex', 'continue', '--ex', 'print x', '--ex', 'print k', '--ex', 'print scale', '--ex', 'bt');
  expect(r.status).toBe(0);
  expect(r.stdout).toContain('$1 = -50');
  expect(r.stdout).toContain('$2 = 3');
  expect(r.stdout).toContain('$3 = 3');
  expect(r.stdout).toMatch(/#1 +linked \(in=0x[0-9a-f]+, out=0x[0-9a-f]+, n=32\) at main\.cu:11/);
});

testIf(built)('check --link checks the files as one program', () => {
  const r = cli('check', '--link', join(FIX, 'main.ptx'), join(FIX, 'helper.ptx'));
  expect(r.status).toBe(0);
  expect(r.stdout).toBe('2 files linked: ok\n');
});

const HEAD = '.version 8.0\n.target sm_80\n.address_size 64\n';
const FN = (linkage: string, name: string): string => `${linkage} .func ${name}()\n{\n  ret;\n}\n`;

test('two .visible definitions of one function are a located error', () => {
  const r = linkPtx([{ path: 'a.ptx', text: HEAD + FN('.visible', 'f') }, { path: 'b.ptx', text: HEAD + '\n' + FN('.visible', 'f') }]);
  expect(r.text).toBeUndefined();
  expect(r.errors.join('\n')).toMatch(/^b\.ptx:5:1: error: multiple definition of 'f' \(first defined at a\.ptx:4\)/);
});

test('a .weak definition yields to the .visible one; private names that clash are renamed', () => {
  const a = `${HEAD}.global .align 4 .u32 tbl = 7;\n${FN('.weak', 'g')}.visible .entry k(.param .u64 p)\n{\n  .reg .b64 %rd<3>; .reg .b32 %r<2>;\n  call g, ();\n  ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1; ld.global.u32 %r1, [tbl]; st.global.u32 [%rd1], %r1;\n  ret;\n}\n`;
  const b = `${HEAD}.global .align 4 .u32 tbl = 9;\n${FN('.visible', 'g')}`;
  const r = linkPtx([{ path: 'a.ptx', text: a }, { path: 'b.ptx', text: b }]);
  expect(r.errors).toEqual([]);
  const loaded = loadPtx(r.text!, 'linked');
  expect(loaded.diagnostics).toEqual([]);
  const p = loaded.program!;
  // one g (b's), a's weak copy kept private; two tables, each file's own
  expect([...p.functions.keys()].sort()).toEqual(['g', 'g$L0', 'k'].sort());
  expect(p.globals.map((v) => v.name).sort()).toEqual(['tbl', 'tbl$L1']);
});

test('an extern declared as a variable but defined as a function, or in another space, is refused', () => {
  const decl = `${HEAD}.extern .global .align 4 .u32 h;\n`;
  const r = linkPtx([{ path: 'a.ptx', text: decl }, { path: 'b.ptx', text: HEAD + FN('.visible', 'h') }]);
  expect(r.errors.join('\n')).toMatch(/^a\.ptx:4:1: error: 'h' is declared as a variable but defined as a function at b\.ptx:4/);
  const r2 = linkPtx([{ path: 'a.ptx', text: decl }, { path: 'b.ptx', text: `${HEAD}.visible .const .align 4 .u32 h = 1;\n` }]);
  expect(r2.errors.join('\n')).toMatch(/'h' is declared in \.global but defined in \.const at b\.ptx:4/);
});

test('different address sizes do not link', () => {
  const r = linkPtx([{ path: 'a.ptx', text: HEAD }, { path: 'b.ptx', text: '.version 8.0\n.target sm_80\n.address_size 32\n' }]);
  expect(r.errors.join('\n')).toMatch(/b\.ptx: error: \.address_size 32 does not match a\.ptx/);
});

testIf(built)('a link error is exit 1 with the located message on run', () => {
  const dir = tempDir('ptxdbg-link-bad-');
  writeFileSync(join(dir, 'a.ptx'), HEAD + FN('.visible', 'f') + '.visible .entry k()\n{\n  ret;\n}\n');
  writeFileSync(join(dir, 'b.ptx'), HEAD + FN('.visible', 'f'));
  const r = cli('run', join(dir, 'a.ptx'), join(dir, 'b.ptx'));
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/b\.ptx:4:1: error: multiple definition of 'f'/);
});
