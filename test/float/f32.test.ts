// f32 arithmetic (all rounding modes) and f64→f32 conversion vs. the C oracle (fixtures/f32.txt).
import {
  bitsToF32, f32Add, f32Div, f32Fma, f32Mul, f32Rcp, f32Sqrt, f32Sub, f32ToBits, f64FromWords, f64ToF32,
  type Rnd,
} from '../../src/exec/float/index.js';
import { hex32, isNaN32, loadFixture, MODE_NAMES, Tally } from './helpers.js';

const rows = loadFixture('f32.txt');

function run(a: number, b: number, c: number, op: string, mode: Rnd): number {
  switch (op) {
    case 'add': return f32Add(a, b, mode);
    case 'sub': return f32Sub(a, b, mode);
    case 'mul': return f32Mul(a, b, mode);
    case 'div': return f32Div(a, b, mode);
    case 'sqrt': return f32Sqrt(a, mode);
    case 'fma': return f32Fma(a, b, c, mode);
    case 'rcp': return f32Rcp(a, mode);
    default: throw new Error(op);
  }
}

describe('f32 arithmetic vs oracle', () => {
  for (const op of ['add', 'sub', 'mul', 'div', 'sqrt', 'fma', 'rcp', 'cvt']) {
    test(`${op} (4 rounding modes)`, () => {
      const t = new Tally();
      for (const r of rows) {
        if (r[0] !== op) continue;
        const [ua, ub, uc] = [hex32(r[1]!), hex32(r[2]!), hex32(r[3]!)];
        for (let m = 0; m < 4; m++) {
          const want = hex32(r[4 + m]!);
          const got = op === 'cvt'
            ? f64ToF32(f64FromWords(ub, ua), m as Rnd)
            : run(bitsToF32(ua), bitsToF32(ub), bitsToF32(uc), op, m as Rnd);
          const gotBits = f32ToBits(got);
          t.check(isNaN32(want) ? got !== got : gotBits === want && got === Math.fround(got),
            () => `${op}.${MODE_NAMES[m]} ${r.slice(1, 4).join(' ')}: want ${r[4 + m]} got ${gotBits.toString(16)}`);
        }
      }
      expect(t.failures.length === 0 ? '' : t.summary()).toBe('');
      expect(t.passed).toBeGreaterThan(1000);
    });
  }
});

describe('f32 fma double-rounding traps', () => {
  test('a·b + c where the double sum is an exact f32 midpoint', () => {
    // (1+2^-12)^2 = 1 + 2^-11 + 2^-24: a midpoint between two f32; ±2^-80 decides the direction.
    const a = Math.fround(1 + 2 ** -12);
    expect(f32Fma(a, a, 2 ** -80, 0)).toBe(Math.fround(1 + 2 ** -11 + 2 ** -23));
    expect(f32Fma(a, a, -(2 ** -80), 0)).toBe(Math.fround(1 + 2 ** -11));
    // the naive double-then-fround answer is wrong here:
    expect(Math.fround(a * a + 2 ** -80)).toBe(Math.fround(1 + 2 ** -11));
  });
});

test('fixtures contain fma cases that break naive double-then-round', () => {
  let naiveWrong = 0;
  for (const r of rows) {
    if (r[0] !== 'fma') continue;
    const [a, b, c] = [bitsToF32(hex32(r[1]!)), bitsToF32(hex32(r[2]!)), bitsToF32(hex32(r[3]!))];
    const naive = Math.fround(a * b + c);
    if (naive === naive && f32ToBits(naive) !== hex32(r[4]!)) naiveWrong++;
  }
  expect(naiveWrong).toBeGreaterThan(10);
});
