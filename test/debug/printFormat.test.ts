/**
 * gdb's value formatting and the expression grammar, independent of DWARF. The expected texts
 * are what GNU gdb 13.1 prints for the same C expressions (`gdb -batch -ex 'print (float)0.1'`...,
 * language c++) and, for %g corner cases, what C's printf gives (python3 '%.17g' % x), so the formats match gdb's, not just our own idea of them.
 */
import { formatFloat, formatG, printExpression, PrintError } from '../../src/engine/print/index.js';
import type { ThreadView } from '../../src/engine/types.js';
import { loadSample, stopAt } from './printHarness.js';

const f32bits = (x: number): bigint => BigInt(new Uint32Array(new Float32Array([x]).buffer)[0]!);
const f64bits = (x: number): bigint => new BigUint64Array(new Float64Array([x]).buffer)[0]!;

describe('floats as gdb prints them (%.9g for float, %.17g for double)', () => {
  test.each([
    [Math.fround(0.1), 4, '0.100000001'],
    [0.1, 8, '0.10000000000000001'],
    [Math.fround(1e10), 4, '1e+10'],
    [1e10, 8, '10000000000'],
    [Math.fround(1e-5), 4, '9.99999975e-06'],
    [Math.fround(1e8), 4, '100000000'],
    [123456789, 8, '123456789'],
    [2.5, 4, '2.5'],
    [-0.5, 8, '-0.5'],
    [Math.fround(1 / 3), 4, '0.333333343'],
    [1 / 3, 8, '0.33333333333333331'],
    [1e-5, 8, '1.0000000000000001e-05'],
    [1e-300, 8, '1e-300'],
    [0, 4, '0'],
    [-0, 8, '-0'],
  ] as const)('%p as %i-byte float → %s', (x, size, text) => {
    expect(formatFloat(x, size, size === 4 ? f32bits(x) : f64bits(x))).toBe(text);
  });

  test('inf and nan(mantissa), with sign', () => {
    expect(formatFloat(Infinity, 4, 0x7f800000n)).toBe('inf');
    expect(formatFloat(-Infinity, 8, 0xfff0000000000000n)).toBe('-inf');
    expect(formatFloat(NaN, 4, 0xffc00000n)).toBe('-nan(0x400000)');
    expect(formatFloat(NaN, 8, 0xfff8000000000000n)).toBe('-nan(0x8000000000000)');
    expect(formatFloat(NaN, 4, 0x7fc00001n)).toBe('nan(0x400001)');
  });

  test('C %g corner cases', () => {
    expect(formatG(0.0001, 9)).toBe('0.0001');
    expect(formatG(0.00001, 9)).toBe('1e-05');
    expect(formatG(999999999.5, 9)).toBe('1e+09');
    expect(formatG(123456789012, 17)).toBe('123456789012');
  });
});

describe('expressions and formats against a live thread', () => {
  let v: ThreadView;
  const s = loadSample('vars_structs', 'O3');
  beforeAll(() => {
    v = stopAt(s, { block: [1, 0, 0], thread: 33, pc: 0 }).view();
  });
  const p = (e: string): string => printExpression(s.info, v, e).replace(/^\$\d+ = /, '');
  const err = (e: string): string => {
    try {
      printExpression(s.info, v, e);
    } catch (x) {
      if (x instanceof PrintError) return x.message;
      throw x;
    }
    throw new Error(`print ${e} did not fail`);
  };

  test('chars like gdb: value and quoted character with C escapes', () => {
    expect(p("'A'")).toBe("65 'A'");
    expect(p("'\\n'")).toBe("10 '\\n'");
    expect(p('(char)0')).toBe("0 '\\000'");
    expect(p('(unsigned char)200')).toBe("200 '\\310'");
    expect(p('(char)-56')).toBe("-56 '\\310'");
    expect(p('(char)127')).toBe("127 '\\177'");
    expect(p('(unsigned char)39')).toBe("39 '\\''");
    expect(p('(char)92')).toBe("92 '\\\\'");
    expect(p('(char)27')).toBe("27 '\\033'");
    expect(p("'\\x41'")).toBe("65 'A'");
    expect(p("'\\101'")).toBe("65 'A'");
  });

  test('integers, bools and casts like gdb', () => {
    expect(p('1 == 1')).toBe('true');
    expect(p('!5')).toBe('false');
    expect(p('(short)-3')).toBe('-3');
    expect(p('10/3')).toBe('3');
    expect(p('-7/2')).toBe('-3');
    expect(p('-7%3')).toBe('-1');
    expect(p('1u-2')).toBe('4294967295');
    expect(p('5 > 3u')).toBe('true');
    expect(p('0xffffffff')).toBe('4294967295');
    expect(p('0xffffffff + 1')).toBe('0');
    expect(p('4294967296')).toBe('4294967296');
    expect(p('-5u')).toBe('4294967291');
    expect(p('1.5f')).toBe('1.5');
    expect(p('3.0f*2')).toBe('6');
    expect(p('3.5 + 1')).toBe('4.5');
    expect(p('7 / 2.0')).toBe('3.5');
    expect(p('(float)0.1')).toBe('0.100000001');
    expect(p('(int)-2.75')).toBe('-2');
    expect(p('(unsigned char)300')).toBe("44 ','");
    expect(p('(bool)7')).toBe('true');
    expect(p('(int *)16')).toBe('(int *) 0x10');
    expect(p('(void *)0')).toBe('(void *) 0x0');
    expect(p('(unsigned long long)-1')).toBe('18446744073709551615');
    expect(p('sizeof(long long) + sizeof(short)')).toBe('10');
    expect(p('sizeof(int (*)[4])')).toBe('8');
    expect(p('sizeof(int [4][2])')).toBe('32');
  });

  test('pointer arithmetic scales by the pointee', () => {
    expect(p('(int *)16 + 2')).toBe('(int *) 0x18');
    expect(p('2 + (double *)16')).toBe('(double *) 0x20');
    expect(p('(int *)40 - (int *)16')).toBe('6');
    expect(p('(@shared int *)16 + 1')).toBe('(@shared int *) 0x14');
    expect(p('(char *)0')).toBe('0x0');
  });

  test("gdb's @ binds looser than + and tighter than <<", () => {
    // At the first instruction sTile is still zero: three elements, so @(2+1).
    expect(p('((@shared int *)&sTile)[0]@2+1')).toBe('{0, 0, 0}');
    expect(err('((@shared int *)&sTile)[0]@0')).toMatch(/positive count/);
    expect(err('5@2')).toBe("Only values in memory can be extended with '@'.");
  });

  test('grammar errors', () => {
    expect(err('1 +')).toBe("A syntax error in expression, near `'.");
    expect(err('(1')).toBe("A syntax error in expression, near `'.");
    expect(err('1 2')).toBe("A syntax error in expression, near `2'.");
    expect(err('"abc"')).toBe('String literals are not supported in expressions.');
    expect(err('08')).toBe('Invalid number "08".');
    expect(err('1x')).toBe('Invalid number "1x".');
    expect(err("''")).toBe('Empty character constant.');
    expect(err('#')).toBe("Invalid character '#' in expression.");
    expect(err('$$x')).toBe("A syntax error in expression, near `$$x'.");
    expect(err('++tid')).toMatch(/Increment and decrement are not supported/);
    expect(err('(unsigned float)1')).toBe('No symbol "unsigned float" in current context.');
  });
});
