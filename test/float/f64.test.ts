// f64 arithmetic in all rounding modes vs. the C oracle (fixtures/f64.txt), plus slow-path spot checks.
import { bigIntToF64, f64Add, f64Div, f64Fma, f64Mul, f64Sqrt, f64Sub, f64ToBigInt, type Rnd } from '../../src/exec/float/index.js';
import { hex64, isNaN64, loadFixture, MODE_NAMES, Tally } from './helpers.js';

const rows = loadFixture('f64.txt');

function run(a: number, b: number, c: number, op: string, mode: Rnd): number {
  switch (op) {
    case 'add': return f64Add(a, b, mode);
    case 'sub': return f64Sub(a, b, mode);
    case 'mul': return f64Mul(a, b, mode);
    case 'div': return f64Div(a, b, mode);
    case 'sqrt': return f64Sqrt(a, mode);
    case 'fma': return f64Fma(a, b, c, mode);
    default: throw new Error(op);
  }
}

describe('f64 arithmetic vs oracle', () => {
  for (const op of ['add', 'sub', 'mul', 'div', 'sqrt', 'fma']) {
    test(`${op} (4 rounding modes)`, () => {
      const t = new Tally();
      for (const r of rows) {
        if (r[0] !== op) continue;
        const a = bigIntToF64(hex64(r[1]!));
        const b = bigIntToF64(hex64(r[2]!));
        const c = bigIntToF64(hex64(r[3]!));
        for (let m = 0; m < 4; m++) {
          const want = hex64(r[4 + m]!);
          const got = run(a, b, c, op, m as Rnd);
          const gotBits = f64ToBigInt(got);
          t.check(isNaN64(want) ? got !== got : gotBits === want,
            () => `${op}.${MODE_NAMES[m]} ${r.slice(1, 4).join(' ')}: want ${r[4 + m]} got ${gotBits.toString(16).padStart(16, '0')}`);
        }
      }
      expect(t.failures.length === 0 ? '' : t.summary()).toBe('');
      expect(t.passed).toBeGreaterThan(1000);
    });
  }
});

describe('f64 fma hard cases', () => {
  test('midpoint product with a tiny addend (all modes)', () => {
    const a = 1 + 2 ** -26;
    const b = 1 + 2 ** -27; // a·b = 1 + 2^-26 + 2^-27 + 2^-53: exactly halfway
    const lo = 1 + 2 ** -26 + 2 ** -27;
    const hi = lo + 2 ** -52;
    expect(f64Fma(a, b, 2 ** -200, 0)).toBe(hi);
    expect(f64Fma(a, b, -(2 ** -200), 0)).toBe(lo);
    expect(f64Fma(a, b, 2 ** -200, 1)).toBe(lo);
    expect(f64Fma(a, b, -(2 ** -200), 3)).toBe(hi);
  });
  test('subnormal results and exact cancellation', () => {
    expect(f64Fma(2 ** -537, 2 ** -537, 0, 0)).toBe(2 ** -1074);
    expect(f64Fma(2 ** -538, 2 ** -537, 0, 0)).toBe(0); // tie → even (zero)
    expect(f64Fma(2 ** -538, 2 ** -537, 0, 3)).toBe(2 ** -1074);
    expect(Object.is(f64Fma(3, 5, -15, 2), -0)).toBe(true);
    expect(Object.is(f64Fma(3, 5, -15, 0), 0)).toBe(true);
  });
  test('add near the overflow threshold (error term must not overflow)', () => {
    // found by a large oracle run: TwoSum's intermediate d - a overflowed here
    const a = bigIntToF64(0x7fce565a7b33ec6en);
    const b = bigIntToF64(0xffefffffffffffffn);
    expect(f64ToBigInt(f64Add(a, b, 1))).toBe(0xffe86a69613304e3n);
    expect(f64ToBigInt(f64Add(a, b, 3))).toBe(0xffe86a69613304e3n);
    expect(f64ToBigInt(f64Add(a, b, 2))).toBe(0xffe86a69613304e4n);
  });
  test('overflow in directed modes', () => {
    const max = Number.MAX_VALUE;
    expect(f64Mul(max, 2, 1)).toBe(max);
    expect(f64Mul(max, -2, 3)).toBe(-max);
    expect(f64Mul(max, -2, 2)).toBe(-Infinity);
    expect(f64Add(max, max, 2)).toBe(max);
    expect(f64Fma(max, 1.5, -max, 1)).toBe(max / 2);
  });
});

test('fixtures contain fma cases that break a·b+c with two roundings', () => {
  let naiveWrong = 0;
  for (const r of rows) {
    if (r[0] !== 'fma') continue;
    const [a, b, c] = [bigIntToF64(hex64(r[1]!)), bigIntToF64(hex64(r[2]!)), bigIntToF64(hex64(r[3]!))];
    const naive = a * b + c;
    if (naive === naive && f64ToBigInt(naive) !== hex64(r[4]!)) naiveWrong++;
  }
  expect(naiveWrong).toBeGreaterThan(50);
});
