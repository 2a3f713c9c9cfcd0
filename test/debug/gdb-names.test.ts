/**
 * Demangled names where gdb shows them, on test/fixtures/templates (kernel.cu: the kernel
 * template scale<T, N> at line 12 calls ops::times<T, N> at line 15; times is declared at line 5,
 * its body `return x * N;` at line 7; the kernel's first statement is line 14): bt, breakpoint
 * hits, `finish` and `info functions` name them as gdb does (`scale<float, 4>`,
 * `float ops::times<float, 4>(float)`), and `break` takes the names gdb takes.
 */
import { join } from 'node:path';
import { engineOf } from '../../src/engine/api.js';
import { openSession, type Session } from '../../src/engine/session.js';
import { consoleOf } from '../../src/frontends/gdb/console.js';
import { ROOT } from '../helpers.js';

const dir = join(ROOT, 'test', 'fixtures', 'templates');
const open = (): Session => openSession({ ptxPath: join(dir, 'kernel.G.ptx'), launch: join(dir, 'launch.json') });
const run = (s: Session, cmd: string): string => {
  const r = consoleOf(engineOf(s)).execute(cmd);
  if (r.error) throw new Error(`${cmd}: ${r.output}`);
  return r.output;
};

test('break by template name and by name with parameters; hits, bt and finish show the print names', () => {
  const s = open();
  expect(run(s, 'break scale<float, 4>')).toMatch(/^Breakpoint 1 at scale<float, 4> pc \d+: file kernel\.cu, line 14\.$/);
  expect(run(s, 'break ops::times(float)')).toMatch(/^Breakpoint 2 at ops::times<float, 4> pc \d+: file kernel\.cu, line 7\.$/);
  expect(run(s, 'continue')).toContain('Breakpoint 1, block (0,0,0) thread (0,0,0) at scale<float, 4> (kernel.cu:14)');
  expect(run(s, 'continue')).toContain('at ops::times<float, 4> (kernel.cu:7)');
  const bt = run(s, 'bt').split('\n');
  expect(bt[0]).toMatch(/^\*#0 {2}ops::times<float, 4> \(x=0\) at kernel\.cu:7$/); // p[] is zeros
  expect(bt[1]).toMatch(/^ #1 {2}scale<float, 4> \(p=0x[0-9a-f]+, n=8\) at kernel\.cu:15$/);
  expect(run(s, 'finish')).toContain('Run till exit from #0  ops::times<float, 4> (x=0) at kernel.cu:7');
});

test('break scale<float, 4>(float*, int) and the stem alone name the same kernel; a wrong signature is not defined', () => {
  const s = open();
  expect(run(s, 'break scale<float, 4>(float*, int)')).toContain('line 14.');
  expect(run(s, 'break scale')).toContain('line 14.');
  const r = consoleOf(engineOf(s)).execute('break scale(int*, int)');
  expect(r.error).toBe(true);
  expect(r.output).toContain('function "scale(int*, int)" not defined');
});

// gdb prints each declaration from the debug info, its types spelled as gdb spells them (`float *`)
test('info functions lists each function demangled, at its declaration line, sorted by name', () => {
  const s = open();
  expect(run(s, 'info functions')).toBe([
    'All defined functions:',
    '',
    'File kernel.cu:',
    '5:\tfloat ops::times<float, 4>(float);',
    '12:\tvoid scale<float, 4>(float *, int);',
  ].join('\n'));
  expect(run(s, 'info functions ^void')).toBe([
    'All functions matching regular expression "^void":',
    '',
    'File kernel.cu:',
    '12:\tvoid scale<float, 4>(float *, int);',
  ].join('\n'));
});

// Every other place a function is named: c++filt gives `void scale<float, 4>(float*, int)` and
// `float ops::times<float, 4>(float)` for the fixture's two symbols; gdb names a symbol (info
// line, the disassembly header) without the return type, a frame or a listing by its print name.
test('info line, disassemble, info cuda threads and info cuda launches name functions demangled, never mangled', () => {
  const s = open();
  run(s, 'break ops::times(float)');
  run(s, 'continue');
  const outputs = {
    line: run(s, 'info line'),
    line14: run(s, 'info line 14'),
    dis: run(s, 'disassemble').split('\n')[0],
    threads: run(s, 'info cuda threads'),
    launches: run(s, 'info cuda launches'),
  };
  expect(outputs.line).toMatch(/^Line 7 of ".*kernel\.cu" starts at ops::times<float, 4>\(float\) instruction \d+\.$/);
  expect(outputs.line14).toMatch(/^Line 14 of ".*kernel\.cu" starts at scale<float, 4>\(float\*, int\) instruction \d+\.$/);
  expect(outputs.dis).toBe('Dump of PTX for function ops::times<float, 4>(float):');
  expect(outputs.threads).toMatch(/^\* block \(0,0,0\) warp 0: ops::times<float, 4> kernel\.cu:7 /m);
  expect(outputs.launches).toMatch(/^\*\s+0\s+scale<float, 4>\s/m);
  expect(Object.values(outputs).join('\n')).not.toMatch(/_Z/);
});

// samples/bug_trap: thread 45 calls __trap() at kernel.cu:8 in _Z13gatherCheckedPKiPKfPfii
// (c++filt: `gatherChecked(int const*, float const*, float*, int, int)`, print name `gatherChecked`)
test('a fault report names the functions on its stack by their print names', () => {
  const d = join(ROOT, 'samples', 'bug_trap');
  const t = openSession({ ptxPath: join(d, 'kernel.G.ptx'), launch: join(d, 'launch.json') });
  const out = run(t, 'run');
  expect(out).toMatch(/^ {2}called from kernel\.cu:8 in gatherChecked$/m);
  expect(out).not.toMatch(/_Z/);
});
