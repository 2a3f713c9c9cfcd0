/**
 * Host call sites from a program's own DWARF line table and symbols (src/host/hostlines.ts), and
 * sanitize's `Host Frame:` lines with them. Expected lines come from the C/CUDA source written
 * here (the line of the call), expected return addresses from objdump's disassembly, never from
 * the code under test.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatHostLocation, HostLines } from '../../src/host/hostlines.js';
import { missingTool, ROOT, testIf } from '../helpers.js';
import { nvccBuild } from './nvcc.js';

const SOURCE = [
  'int helper(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * x; return s; }', // line 1
  'int main(int c, char **v) {', // 2
  '  int r = helper(c);', // 3: the call whose return address is looked up
  '  return r > 100;', // 4
  '}', // 5
].join('\n') + '\n';

/** The address just after `call ... <helper>` in main, from objdump -d. */
function returnAddressOfCall(exe: string, callee: string): bigint {
  const dis = spawnSync('objdump', ['-d', '--no-show-raw-insn', exe], { encoding: 'utf8' }).stdout.split('\n');
  const i = dis.findIndex((l) => new RegExp(`call\\s+[0-9a-f]+ <${callee}>`).test(l));
  if (i < 0) throw new Error(`no call to ${callee} in ${exe}`);
  const next = dis.slice(i + 1).find((l) => /^\s+[0-9a-f]+:/.test(l))!;
  return BigInt('0x' + /^\s+([0-9a-f]+):/.exec(next)![1]);
}

const whyCc = missingTool('cc') ?? missingTool('objdump') ?? missingTool('strip');
describe('HostLines', () => {
  let dir: string;
  beforeAll(() => {
    if (whyCc) return;
    dir = mkdtempSync(join(tmpdir(), 'ptxdbg-hostlines-'));
    writeFileSync(join(dir, 'p.c'), SOURCE);
    const cc = spawnSync('cc', ['-g', '-O0', '-fPIE', '-pie', '-o', join(dir, 'p'), join(dir, 'p.c')], { encoding: 'utf8' });
    if (cc.status !== 0) throw new Error(cc.stderr);
    copyFileSync(join(dir, 'p'), join(dir, 'p-stripped'));
    spawnSync('strip', ['--strip-debug', join(dir, 'p-stripped')]);
  });
  afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

  testIf(whyCc)('a return address names the line of the call and its function (PIE, with and without a load bias)', () => {
    const ret = returnAddressOfCall(join(dir, 'p'), 'helper');
    const lines = new HostLines();
    const expected = { address: ret, file: join(dir, 'p.c'), line: 3, function: 'main' };
    expect(lines.callSite(join(dir, 'p'), ret)).toEqual(expected);
    // mapped at 0x555555554000 (a PIE's usual place under gdb): the bias comes off first
    expect(lines.callSite(join(dir, 'p'), ret + 0x555555554000n, 0x555555554000n)).toEqual(expected);
    // an offset from the lowest loaded page, as the runtime reports frames (a PIE's first page is 0)
    expect(lines.callSiteAtOffset(join(dir, 'p'), ret)).toEqual(expected);
    expect(formatHostLocation(expected)).toBe('p.c:3 in main');
  });

  testIf(whyCc)('without debug info the symbol, without a symbol the address; an unreadable file is the address', () => {
    const ret = returnAddressOfCall(join(dir, 'p-stripped'), 'helper');
    const lines = new HostLines();
    const l = lines.callSite(join(dir, 'p-stripped'), ret);
    expect(l).toEqual({ address: ret, file: undefined, line: undefined, function: 'main' });
    expect(formatHostLocation(l)).toBe('in main');
    const none = lines.callSite(join(dir, 'no-such-file'), 0x1234n);
    expect(none).toEqual({ address: 0x1234n, file: undefined, line: undefined, function: undefined });
    expect(formatHostLocation(none)).toBe('0x1234');
    writeFileSync(join(dir, 'not-elf'), 'hello');
    expect(lines.at(join(dir, 'not-elf'), 0x10n).function).toBeUndefined();
  });
});

const RUNTIME = join(ROOT, 'dist', 'cudart', 'libcudart.so.13');
const CLI = join(ROOT, 'dist', 'bin', 'ptxdbg.js');
const whyNvcc = missingTool('nvcc') ?? (existsSync(RUNTIME) && existsSync(CLI) ? null : `the ptxdbg runtime or CLI is not built (${RUNTIME})`);

testIf(whyNvcc)('sanitize prints Host Frame lines with file:line for a program built with nvcc -g (compute-sanitizer\'s form)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ptxdbg-hostframes-'));
  try {
    const src = join(dir, 'app.cu');
    writeFileSync(src, [
      '#include <cstdio>', // 1
      '__global__ void fill(int *out, int n) {', // 2
      '  int i = blockIdx.x * blockDim.x + threadIdx.x;', // 3
      '  if (i <= n) out[i] = i;', // 4: writes out[n]
      '}', // 5
      'static void run(int *d, int n) {', // 6
      '  fill<<<1, 64>>>(d, n);', // 7: the launch
      '}', // 8
      'int main() {', // 9
      '  int *d;', // 10
      '  cudaMalloc(&d, 63 * sizeof(int));', // 11
      '  run(d, 63);', // 12: the call of run
      '  cudaError_t e = cudaDeviceSynchronize();', // 13: the failing call
      '  printf("%s\\n", cudaGetErrorName(e));', // 14
      '  return 0;', // 15
      '}', // 16
    ].join('\n') + '\n');
    const err = await nvccBuild(src, join(dir, 'app'), ['-g']);
    expect(err).toBeUndefined();
    const r = spawnSync(process.execPath, [CLI, 'sanitize', '--', './app'], { encoding: 'utf8', cwd: dir, timeout: 300_000 });
    const frames = r.stdout.split('\n').filter((l) => l.includes('Host Frame:'));
    const at = (fn: string, line: number): RegExp => new RegExp(`^=========         Host Frame: ${fn.replace(/[()*]/g, '\\$&')} in ${src.replace(/[.]/g, '\\.')}:${line} \\[0x[0-9a-f]+\\] in app$`);
    // the launch: run() at line 7, called from main at line 12; the failed synchronize: main at 13
    expect(frames).toEqual([
      expect.stringMatching(at('run(int *, int)', 7)),
      expect.stringMatching(at('main', 12)),
      expect.stringMatching(at('main', 13)),
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 600_000);
