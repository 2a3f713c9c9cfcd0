// f16 / bf16 arithmetic in all rounding modes vs. the C oracle (fixtures/half.txt), and x2 helpers.
import {
  bf16Add, bf16Fma, bf16Max, bf16Min, bf16Mul, bf16Sub, f16Add, f16Fma, f16Max, f16Min, f16Mul, f16Sub,
  f16ToF32, f16x2Add, f16x2Fma, ftz16, h16Abs, h16Neg, hi16, lo16, pack16x2, sat16, type Rnd,
} from '../../src/exec/float/index.js';
import { hex32, isNaN16, isNaNbf16, loadFixture, MODE_NAMES, Tally } from './helpers.js';

const rows = loadFixture('half.txt');

test.each(['h16', 'b16'])('%s add/sub/mul/fma vs oracle', (kind) => {
  const bf = kind === 'b16';
  const t = new Tally();
  for (const r of rows) {
    if (r[0] !== kind) continue;
    const [a, b, c] = [hex32(r[2]!), hex32(r[3]!), hex32(r[4]!)];
    for (let m = 0; m < 4; m++) {
      const mode = m as Rnd;
      let got: number;
      switch (r[1]) {
        case 'add': got = bf ? bf16Add(a, b, mode) : f16Add(a, b, mode); break;
        case 'sub': got = bf ? bf16Sub(a, b, mode) : f16Sub(a, b, mode); break;
        case 'mul': got = bf ? bf16Mul(a, b, mode) : f16Mul(a, b, mode); break;
        default: got = bf ? bf16Fma(a, b, c, mode) : f16Fma(a, b, c, mode);
      }
      const want = hex32(r[5 + m]!);
      const nan = bf ? isNaNbf16 : isNaN16;
      t.check(nan(want) ? nan(got) : got === want, () => `${r.slice(0, 5).join(' ')} .${MODE_NAMES[m]}: want ${r[5 + m]} got ${got.toString(16)}`);
    }
  }
  expect(t.failures.length === 0 ? '' : t.summary()).toBe('');
  expect(t.passed).toBeGreaterThan(5000);
});

describe('16-bit helpers', () => {
  test('min/max NaN and signed-zero rules', () => {
    expect(f16Min(0x7e00, 0x3c00)).toBe(0x3c00);
    expect(f16Max(0x3c00, 0x7e00)).toBe(0x3c00);
    expect(f16Min(0x7e00, 0x7e01)).toBe(0x7fff);
    expect(f16Min(0x7e00, 0x3c00, true)).toBe(0x7fff);
    expect(f16Min(0x0000, 0x8000)).toBe(0x8000);
    expect(f16Max(0x8000, 0x0000)).toBe(0x0000);
    expect(f16Min(0xbc00, 0x3c00)).toBe(0xbc00);
    expect(bf16Max(0x3f80, 0x4000)).toBe(0x4000);
    expect(bf16Min(0x7fc0, 0xbf80)).toBe(0xbf80);
  });
  test('neg/abs/ftz/sat', () => {
    expect(h16Neg(0x3c00)).toBe(0xbc00);
    expect(h16Abs(0xbc00)).toBe(0x3c00);
    expect(ftz16(0x8001)).toBe(0x8000);
    expect(ftz16(0x0400)).toBe(0x0400);
    expect(sat16(0x4000)).toBe(0x3c00);
    expect(sat16(0xbc00)).toBe(0);
    expect(sat16(0x7e00)).toBe(0);
  });
  test('x2 packing is lanewise', () => {
    const a = pack16x2(0x3c00, 0x4000); // lo 1.0, hi 2.0
    const b = pack16x2(0x3c00, 0xc000); // lo 1.0, hi -2.0
    const s = f16x2Add(a, b);
    expect(lo16(s)).toBe(0x4000);
    expect(hi16(s)).toBe(0x0000);
    expect(f16x2Fma(a, a, b)).toBe(pack16x2(0x4000, 0x4000)); // 1·1+1 = 2, 2·2-2 = 2
  });
});

test('f16 bits to value: every one of the 65,536 patterns, from the binary16 fields (IEEE 754: sign, 5-bit exponent biased by 15, 10-bit fraction)', () => {
  let wrong = 0;
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, m = h & 1023;
    // subnormal: 0.m x 2^-14; all-ones exponent: infinity or NaN; else 1.m x 2^(e-15)
    const want = e === 0 ? sign * (m / 1024) * 2 ** -14 : e === 31 ? (m ? NaN : sign * Infinity) : sign * (1 + m / 1024) * 2 ** (e - 15);
    if (!Object.is(f16ToF32(h), want)) wrong++;
  }
  expect(wrong).toBe(0);
  expect(Object.is(f16ToF32(0x8000), -0)).toBe(true);
  expect(f16ToF32(0x7bff)).toBe(65504);
  expect(f16ToF32(0x0001)).toBe(2 ** -24);
});
