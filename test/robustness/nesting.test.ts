/**
 * PTX that nests past any real program's depth (100,000 `{`, `(`, unary minus signs, initializer
 * braces): the parser recurses on each rule, so without a bound the stack overflowed and `check`
 * exited 70. Each is now one located error; ordinary nesting is untouched.
 */
import { formatDiagnostics } from '../../src/ptx/diagnostics.js';
import { loadPtx } from '../../src/ptx/index.js';
import { MAX_NESTING } from '../../src/ptx/parser.js';

const HEAD = '.version 8.0\n.target sm_80\n.address_size 64\n';
const N = 100_000;

/** The errors `check` prints, as `line: message`. */
function errors(src: string): string[] {
  const r = loadPtx(HEAD + src, 'k.ptx');
  return formatDiagnostics('k.ptx', HEAD + src, r.diagnostics).split('\n').filter((l) => l.startsWith('k.ptx:'))
    .map((l) => l.replace(/^k\.ptx:(\d+):\d+: error: /, '$1: '));
}
const deep = (what: string): string => `${what} nested more than ${MAX_NESTING} levels deep`;

test(`${N} nested blocks, balanced or never closed`, () => {
  // the block that passes the bound opens on line 6 + MAX_NESTING (the entry's own brace is line 5)
  const line = 5 + MAX_NESTING + 1;
  expect(errors(`.visible .entry k()\n${'{\n'.repeat(N)}ret;\n${'}\n'.repeat(N)}`)).toEqual([`${line}: ${deep('blocks')}`]);
  expect(errors(`.visible .entry k()\n${'{\n'.repeat(N)}`)[0]).toBe(`${line}: ${deep('blocks')}`);
});

test(`${N} parentheses and ${N} minus signs in a constant`, () => {
  expect(errors(`.visible .entry k()\n{\n.reg .b32 %r<2>;\nmov.b32 %r1, ${'('.repeat(N)}1${')'.repeat(N)};\nret;\n}\n`)).toEqual([`7: ${deep('constant expressions')}`]);
  expect(errors(`.visible .entry k()\n{\n.reg .b32 %r<2>;\nmov.b32 %r1, ${'-'.repeat(N)}1;\nret;\n}\n`)).toEqual([`7: ${deep('constant expressions')}`]);
});

test(`${N} nested initializer braces`, () => {
  expect(errors(`.global .u32 a[1] = ${'{'.repeat(N)}1${'}'.repeat(N)};\n`)).toEqual([`4: ${deep('initializer lists')}`]);
});

test('nesting that real code uses parses as before', () => {
  expect(errors(`.global .u32 a[2][2] = {{1, 2}, {3, 4}};\n.visible .entry k()\n{\n{\n{\n.reg .b32 %r<2>;\nmov.b32 %r1, -(~(1 + (2 * 3)));\n}\n}\nret;\n}\n`)).toEqual([]);
});

test('a diagnostic on a 100,000-character line shows 160 characters around the column, the caret under it', () => {
  const src = `.visible .entry k()\n{\n.reg .b32 %r<2>;\nmov.b32 %r1, ${'('.repeat(N)}1${')'.repeat(N)};\nret;\n}\n`;
  const r = loadPtx(HEAD + src, 'k.ptx');
  const [, text, caret] = formatDiagnostics('k.ptx', HEAD + src, r.diagnostics).split('\n');
  // the error is at the parenthesis past the bound: the shown text is '...' + 160 '(' + '...'
  expect(text).toBe(`  ...${'('.repeat(160)}...`);
  expect(caret!.indexOf('^')).toBe(2 + 3 + 80);
});
