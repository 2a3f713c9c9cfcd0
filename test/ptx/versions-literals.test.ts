/**
 * `.version` numbers and integer literals past 64 bits, answered as ptxas of CUDA 13.0 answers
 * them (each expectation was checked with that ptxas on a one-kernel file):
 * - ptxas knows PTX ISA 1.0–1.5, 2.0–2.3, 3.0–3.2, 4.0–4.3, 5.0–5.1, 6.0–6.5, 7.0–7.8, 8.0–8.8 and
 *   9.0; any other is "Unsupported .version X; current version is '9.0'".
 * - A literal is "Constant overflow" when, read digit by digit in 64 bits, the value so far is 2^63
 *   or more before the next digit; otherwise it is taken modulo 2^64 (the SASS of
 *   `mov.u64 %rd1, 0x10000000000000005` moves 5; of 73786976294838206470, 6). A literal too large
 *   for the instruction's own type (`mov.u32 %r1, 4294967296`) is accepted by ptxas.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPtx } from '../../src/ptx/index.js';
import { runModule } from '../exec/run-module.js';
import { ROOT } from '../helpers.js';

const kernel = (version: string, body = 'ret;'): string =>
  `.version ${version}\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n  .reg .b64 %rd<4>; .reg .b32 %r<4>;\n  ${body}\n}\n`;

const errors = (text: string): { message: string; line: number }[] => {
  const r = loadPtx(text, 'k.ptx');
  return r.diagnostics.filter((d) => d.severity === 'error').map((d) => ({
    message: d.message, line: text.slice(0, d.span.start).split('\n').length,
  }));
};

describe('.version', () => {
  test.each(['1.0', '1.5', '2.3', '3.2', '4.3', '5.1', '6.5', '7.8', '8.8', '9.0', '8.10'])('%s is a PTX ISA ptxas knows: accepted', (v) => {
    // 1.x modules have no .address_size; the rest of the file is the same
    const text = kernel(v).replace(/\.address_size 64\n/, Number(v) < 2.3 ? '' : '.address_size 64\n').replace('.u64 out', Number(v) < 2.3 ? '.u32 out' : '.u64 out');
    expect(errors(text).filter((e) => e.message.includes('.version'))).toEqual([]);
  });

  test.each(['9.1', '10.0', '99.9'])('%s is newer than any ptxdbg knows: one error on line 1', (v) => {
    expect(errors(kernel(v))).toEqual([{ message: `unsupported .version ${v}: the newest PTX ISA ptxdbg knows is 9.0 (ptxas of CUDA 13.0 refuses it too)`, line: 1 }]);
  });

  test.each(['0.9', '1.6', '3.3', '5.2', '8.9'])('%s is no PTX ISA at all: refused', (v) => {
    expect(errors(kernel(v))).toEqual([{ message: `unsupported .version ${v}: no PTX ISA has that number (ptxas of CUDA 13.0 refuses it too)`, line: 1 }]);
  });

  test.each([
    ['an empty file', ''],
    ['a file of comments', '// nothing here\n/* at all */\n'],
    ['a module that starts with .target', '.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  ret;\n}\n'],
  ])('%s has no .version: refused (ptxas: "Missing .version directive at start of file")', (_what, text) => {
    const e = errors(text);
    expect(e).toEqual([{ message: 'a PTX module starts with .version (ptxas refuses one without it)', line: 1 }]);
  });

  test('a bare major number is refused (ptxas: "Missing .version directive")', () => {
    expect(errors(kernel('9'))).toEqual([{ message: ".version needs major.minor, such as 9.0, not '9' (ptxas refuses it too)", line: 1 }]);
  });
});

describe('integer literals past 64 bits', () => {
  const overflow = { message: 'constant overflow: this integer does not fit in 64 bits (ptxas refuses it too)', line: 7 };
  test.each([
    '99999999999999999999', '147573952589676412928', '99999999999999999999999',
    '0xfffffffffffffffff', '0x8ffffffffffffffff', '0x80000000000000000', '0xffffffffffffffffffffffffffffffff',
    '077777777777777777777777', '0b' + '1'.repeat(65),
  ])('%s: refused where it stands', (lit) => {
    expect(errors(kernel('9.0', `mov.u64 %rd1, ${lit};`))).toEqual([overflow]);
  });

  test.each([
    '18446744073709551615', '18446744073709551616', '73786976294838206464', '80000000000000000000',
    '0xffffffffffffffff', '0x10000000000000000', '0x7ffffffffffffffff', '0x1000000000000000000000000',
    '07777777777777777777777', '0b' + '1'.repeat(64), '-9223372036854775809',
  ])('%s: accepted, as ptxas accepts it', (lit) => {
    expect(errors(kernel('9.0', `mov.u64 %rd1, ${lit};`))).toEqual([]);
  });

  test('a literal past 2^64 that ptxas accepts is taken modulo 2^64 (what its SASS moves)', () => {
    const body = `
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u64 %rd2, 0x10000000000000005;
  st.global.u64 [%rd1], %rd2;
  mov.u64 %rd2, 73786976294838206470;
  st.global.u64 [%rd1+8], %rd2;
  ret;`;
    const { out } = runModule(`.visible .entry k(.param .u64 out)\n{${body}\n}\n`, 4);
    expect(out).toEqual([5, 0, 6, 0]);
  });

  test('a literal too large for the instruction\'s type but within 64 bits is accepted (ptxas accepts mov.u32 %r1, 4294967296)', () => {
    expect(errors(kernel('9.0', 'mov.u32 %r1, 4294967296;'))).toEqual([]);
  });
});

describe('ptxdbg check shows both, located', () => {
  let tmp: string;
  beforeAll(() => { tmp = mkdtempSync(join(tmpdir(), 'ptxdbg-version-')); });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  test('.version 99.9 and an overflowing literal: exit 1, file:line:column and the words', () => {
    writeFileSync(join(tmp, 'new.ptx'), kernel('99.9'));
    writeFileSync(join(tmp, 'big.ptx'), kernel('9.0', 'mov.u64 %rd1, 99999999999999999999;'));
    const run = (f: string) => spawnSync(process.execPath, [join(ROOT, 'dist', 'bin', 'ptxdbg.js'), 'check', f], { cwd: tmp, encoding: 'utf8', timeout: 60_000 });
    const a = run('new.ptx');
    expect(a.status).toBe(1);
    expect(a.stderr + a.stdout).toContain('new.ptx:1:10: error: unsupported .version 99.9: the newest PTX ISA ptxdbg knows is 9.0');
    const b = run('big.ptx');
    expect(b.status).toBe(1);
    expect(b.stderr + b.stdout).toContain('big.ptx:7:17: error: constant overflow: this integer does not fit in 64 bits');
  });
});
