/**
 * One exit code per kind of failure, whichever subcommand meets it (README, CLI reference):
 * 2 for a file that cannot be read or a bad launch, 1 for invalid PTX, 3 for a kernel fault;
 * and a `.cu` file is accepted by every subcommand. Runs the built CLI.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingTool, ROOT, testIf } from '../helpers.js';

// the installed command (the bundle `npm run build` makes from dist/src, package.json's bin)
const CLI = join(ROOT, 'dist', 'bin', 'ptxdbg.js');
let tmp: string;
beforeAll(() => { tmp = mkdtempSync(join(tmpdir(), 'ptxdbg-exit-')); });
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function cli(args: string[], env: Record<string, string> = {}): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: tmp, env: { ...process.env, ...env }, timeout: 120_000 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

const EVERY = (file: string): string[][] => [
  [file, '--batch'], ['run', file], ['races', file], ['check', file], ['info', file], ['dwarf', file], ['record', file, '-o', 'x.ptxtrace'],
];

test('a missing file is exit 2 in every subcommand, with the same message', () => {
  for (const args of [...EVERY('missing.ptx'), ['replay', 'missing.ptxtrace', '--batch']]) {
    const r = cli(args);
    expect({ args, code: r.code }).toEqual({ args, code: 2 });
    expect(r.err).toMatch(/^ptxdbg: cannot read missing\.ptx(trace)?: no such file/);
  }
});

test('invalid PTX is exit 1 wherever it is loaded', () => {
  writeFileSync(join(tmp, 'bad.ptx'), '.version 9.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  frobnicate.u32 %r1;\n}\n');
  for (const args of [['bad.ptx', '--batch'], ['run', 'bad.ptx'], ['races', 'bad.ptx'], ['check', 'bad.ptx'], ['record', 'bad.ptx', '-o', 'x.ptxtrace']]) {
    expect({ args, code: cli(args).code }).toEqual({ args, code: 1 });
  }
});

test('a bad launch is exit 2 in run, races, record and the debugger', () => {
  const ptx = join(ROOT, 'samples', 'saxpy', 'kernel.G.ptx');
  for (const args of [[ptx, '--batch'], ['run', ptx], ['races', ptx], ['record', ptx, '-o', 'x.ptxtrace']]) {
    const r = cli([...args, '--grid', '1', '--block', '32', '--arg', 'f32:96.5', '--arg', 'f32:1', '--arg', 'f32[4]', '--arg', 'f32[4]']);
    expect({ args, code: r.code }).toEqual({ args, code: 2 });
    expect(r.err).toContain('a f32 value is given for parameter _Z5saxpyifPKfPf_param_0 of type .u32');
  }
});

testIf(missingTool('nvcc'))('a .cu file works in every subcommand (compiled once, cached)', () => {
  cpSync(join(ROOT, 'samples', 'saxpy'), join(tmp, 'saxpy'), { recursive: true });
  const env = { PTXDBG_CACHE: join(tmp, 'cache') };
  const cu = join(tmp, 'saxpy', 'kernel.cu');
  const results = EVERY(cu).map((args) => ({ args: args[0], code: cli(args, env).code }));
  expect(results).toEqual(EVERY(cu).map((args) => ({ args: args[0], code: 0 })));
  // the launch file next to the .cu is used: y has its 200 elements
  const run = cli(['run', cu, '--print'], env);
  expect(run.err).toMatch(/^y \(200 x f32\)/m);
  expect(cli(['check', cu], env).out).toBe(`${cu}: ok\n`);
});
