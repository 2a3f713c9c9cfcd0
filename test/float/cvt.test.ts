// cvt: float→int (rni/rzi/rmi/rpi, saturating), int→f32/f64/f16 (rn/rz/rm/rp), f32/f64→f16/bf16
// (all modes), f32→tf32 (rna/rn/rz), f16→f32 — vs. the C oracle (fixtures/cvt.txt).
import {
  bigIntToF64, bitsToF32, cvtFloatToInt, cvtFloatToInt64, cvtInt64ToF32, cvtInt64ToF64, cvtIntToF32, cvtIntToF64, cvtIntToF16, cvtInt64ToF16,
  f16ToF32, f32ToBits, f64ToBigInt, INT_MAX, INT_MIN, RNA, RN, RZ, toBf16, toF16, toTf32, type IntType, type Rnd,
} from '../../src/exec/float/index.js';
import { hex32, hex64, isNaN16, isNaN32, isNaN64, isNaNbf16, loadFixture, MODE_NAMES, Tally } from './helpers.js';

const rows = loadFixture('cvt.txt');

function finish(t: Tally): void {
  expect(t.failures.length === 0 ? '' : t.summary()).toBe('');
  expect(t.passed).toBeGreaterThan(500);
}

test('float → int (saturating, NaN → 0)', () => {
  const t = new Tally();
  for (const r of rows) {
    if (r[0] !== 'f2i') continue;
    const x = r[1] === 'f64' ? bigIntToF64(hex64(r[2]!)) : bitsToF32(hex32(r[2]!));
    const ty = r[3]!;
    for (let m = 0; m < 4; m++) {
      const want = r[4 + m]!;
      let got: string;
      if (ty === 's64' || ty === 'u64') got = cvtFloatToInt64(x, m as Rnd, ty === 's64').toString();
      else got = String(cvtFloatToInt(x, m as Rnd, INT_MIN[ty as IntType], INT_MAX[ty as IntType]));
      t.check(got === want, () => `${r.slice(0, 4).join(' ')} .${MODE_NAMES[m]}i: want ${want} got ${got}`);
    }
  }
  finish(t);
});

test('int → f32 / f64 / f16', () => {
  const t = new Tally();
  for (const r of rows) {
    if (r[0] !== 'i2f') continue;
    const ty = r[1]!;
    const v = BigInt(r[2]!);
    for (let m = 0; m < 4; m++) {
      const mode = m as Rnd;
      const f32 = ty === 's32' || ty === 'u32' ? cvtIntToF32(Number(v), mode) : cvtInt64ToF32(v, mode, ty === 's64');
      const w32 = hex32(r[3 + m]!);
      t.check(f32ToBits(f32) === w32 && f32 === Math.fround(f32), () => `${ty} ${v} → f32.${MODE_NAMES[m]}: want ${r[3 + m]} got ${f32ToBits(f32).toString(16)}`);
      const f64 = ty === 's32' || ty === 'u32' ? cvtIntToF64(Number(v)) : cvtInt64ToF64(v, mode, ty === 's64');
      const w64 = hex64(r[7 + m]!);
      // 32-bit sources are exact in f64 (PTX has no rounding modifier there): compare rn column only.
      if (ty === 's64' || ty === 'u64' || m === 0) {
        t.check(f64ToBigInt(f64) === w64, () => `${ty} ${v} → f64.${MODE_NAMES[m]}: want ${r[7 + m]} got ${f64ToBigInt(f64).toString(16)}`);
      }
      const h = ty === 's32' || ty === 'u32' ? cvtIntToF16(Number(v), mode) : cvtInt64ToF16(v, mode, ty === 's64');
      t.check(h === hex32(r[11 + m]!), () => `${ty} ${v} → f16.${MODE_NAMES[m]}: want ${r[11 + m]} got ${h.toString(16)}`);
    }
  }
  finish(t);
});

test('f32/f64 → f16, bf16, tf32', () => {
  const t = new Tally();
  for (const r of rows) {
    if (r[0] !== 'f2h') continue;
    const x = r[1] === 'f64' ? bigIntToF64(hex64(r[2]!)) : bitsToF32(hex32(r[2]!));
    for (let m = 0; m < 4; m++) {
      const h = toF16(x, m as Rnd);
      const wh = hex32(r[3 + m]!);
      t.check(isNaN16(wh) ? isNaN16(h) : h === wh, () => `${r.slice(0, 3).join(' ')} → f16.${MODE_NAMES[m]}: want ${r[3 + m]} got ${h.toString(16)}`);
      const b = toBf16(x, m as Rnd);
      const wb = hex32(r[7 + m]!);
      t.check(isNaNbf16(wb) ? isNaNbf16(b) : b === wb, () => `${r.slice(0, 3).join(' ')} → bf16.${MODE_NAMES[m]}: want ${r[7 + m]} got ${b.toString(16)}`);
    }
    if (r[1] === 'f32') {
      const modes = [RNA, RN, RZ] as const;
      for (let i = 0; i < 3; i++) {
        const got = toTf32(x, modes[i]);
        const want = hex32(r[11 + i]!);
        t.check(isNaN32(want) ? isNaN32(got) : got === want, () => `${r[2]} → tf32 mode ${modes[i]}: want ${r[11 + i]} got ${got.toString(16)}`);
      }
    }
  }
  finish(t);
});

test('f16 → f32 is exact', () => {
  const t = new Tally();
  for (const r of rows) {
    if (r[0] !== 'h2f') continue;
    const got = f16ToF32(hex32(r[1]!));
    const want = hex32(r[2]!);
    t.check(isNaN32(want) ? got !== got : f32ToBits(got) === want, () => `h2f ${r[1]}: want ${r[2]} got ${f32ToBits(got).toString(16)}`);
  }
  finish(t);
});

describe('conversion modifiers', () => {
  test('.satfinite and .relu', () => {
    expect(toF16(1e6, RN, true)).toBe(0x7bff);
    expect(toF16(-Infinity, RN, true)).toBe(0xfbff);
    expect(toF16(NaN, RN, true)).toBe(0x7fff);
    expect(toF16(-3, RN, false, true)).toBe(0);
    expect(toBf16(3.5e38, RN, true)).toBe(0x7f7f);
    expect(toBf16(Infinity, RZ, false)).toBe(0x7f80);
    expect(toBf16(-2, RN, false, true)).toBe(0);
    expect(toTf32(3.4e38, RNA, true)).toBe(0x7f7fc000);
    expect(toTf32(3.4028234663852886e38, RNA, true)).toBe(0x7f7fe000);
    expect(toTf32(3.4028234663852886e38, RNA, false)).toBe(0x7f800000);
  });
  test('u64 → f32 rounds the 64-bit value once', () => {
    // 2^63 + 2^39 + 1 → double would round to 2^63 + 2^39 (a f32 midpoint) then to 2^63 (wrong)
    const v = (1n << 63n) + (1n << 39n) + 1n;
    expect(cvtInt64ToF32(v, RN, false)).toBe(2 ** 63 + 2 ** 40);
    expect(Math.fround(Number(v))).toBe(2 ** 63);
  });
});

test('f64 → f16 special values', () => {
  expect(toF16(65520, RN)).toBe(0x7c00);
  expect(toF16(65519.99, RN)).toBe(0x7bff);
  expect(toF16(2 ** -25, RN)).toBe(0);
  expect(toF16(2 ** -25 + 2 ** -40, RN)).toBe(1);
  expect(toF16(-(2 ** -30), 2)).toBe(0x8001);
  expect(toF16(-0, RN)).toBe(0x8000);
  expect(f64ToBigInt(f16ToF32(0x7c00))).toBe(0x7ff0000000000000n);
  expect(isNaN64(f64ToBigInt(f16ToF32(0x7e00)))).toBe(true);
});
