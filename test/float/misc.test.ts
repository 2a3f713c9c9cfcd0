// .approx specials, testp, copysign, min/max, ftz/sat, bit reinterpretation helpers.
import {
  bigIntToF64, bitsToF32, copysign, cosApprox, divApprox, divFull, ex2Approx, f32ToBits, f64FromWords, f64HiWord,
  f64LoWord, f64ToBigInt, fmax, fmaxNaN, fmin, fminNaN, fminXorsignAbs, ftz32, lg2Approx, nextDown32, nextUp32,
  nextUp64, rcpApprox, roundCode, rsqrtApprox, sat, sinApprox, sqrtApprox, tanhApprox, testp, testpCode,
} from '../../src/exec/float/index.js';

const isNeg0 = (x: number): boolean => x === 0 && 1 / x < 0;
const isPos0 = (x: number): boolean => x === 0 && 1 / x > 0;
const MIN_SUB32 = 2 ** -149;

describe('.approx special values (PTX ISA tables)', () => {
  test('ex2', () => {
    expect(isPos0(ex2Approx(-Infinity))).toBe(true);
    expect(ex2Approx(Infinity)).toBe(Infinity);
    expect(ex2Approx(-0)).toBe(1);
    expect(ex2Approx(NaN)).toBeNaN();
    expect(ex2Approx(10)).toBe(1024);
    expect(ex2Approx(-149)).toBe(MIN_SUB32);
    expect(ex2Approx(-149, true)).toBe(0); // .ftz flushes the subnormal result
    expect(ex2Approx(MIN_SUB32, true)).toBe(1);
  });
  test('lg2', () => {
    expect(lg2Approx(0)).toBe(-Infinity);
    expect(lg2Approx(-0)).toBe(-Infinity);
    expect(lg2Approx(-1)).toBeNaN();
    expect(lg2Approx(Infinity)).toBe(Infinity);
    expect(lg2Approx(8)).toBe(3);
    expect(lg2Approx(MIN_SUB32)).toBe(-149);
    expect(lg2Approx(MIN_SUB32, true)).toBe(-Infinity);
  });
  test('sin/cos/tanh', () => {
    expect(isNeg0(sinApprox(-0))).toBe(true);
    expect(sinApprox(Infinity)).toBeNaN();
    expect(cosApprox(-0)).toBe(1);
    expect(cosApprox(-Infinity)).toBeNaN();
    expect(tanhApprox(Infinity)).toBe(1);
    expect(tanhApprox(-Infinity)).toBe(-1);
    expect(isNeg0(tanhApprox(-0))).toBe(true);
    expect(Math.abs(sinApprox(1) - Math.sin(1))).toBeLessThan(2 ** -22);
  });
  test('rsqrt/rcp/sqrt', () => {
    expect(rsqrtApprox(-0)).toBe(-Infinity);
    expect(rsqrtApprox(0)).toBe(Infinity);
    expect(isPos0(rsqrtApprox(Infinity))).toBe(true);
    expect(rsqrtApprox(-1)).toBeNaN();
    expect(rsqrtApprox(4)).toBe(0.5);
    expect(rcpApprox(-0)).toBe(-Infinity);
    expect(isNeg0(rcpApprox(-Infinity))).toBe(true);
    expect(rcpApprox(MIN_SUB32, true)).toBe(Infinity);
    expect(isNeg0(sqrtApprox(-0))).toBe(true);
    expect(sqrtApprox(-2)).toBeNaN();
  });
  test('div.approx / div.full', () => {
    expect(divApprox(1, 2 ** 127)).toBe(0);
    expect(isNeg0(divApprox(-1, 2 ** 127))).toBe(true);
    expect(divApprox(Infinity, 2 ** 127)).toBeNaN();
    expect(divApprox(3, 4)).toBe(0.75);
    expect(divFull(1, 3)).toBe(Math.fround(1 / 3));
    expect(divFull(1, 0)).toBe(Infinity);
  });
});

describe('testp / copysign / min / max', () => {
  test('testp', () => {
    const n = testpCode('normal');
    const s = testpCode('subnormal');
    expect(testp(1, n, false)).toBe(true);
    expect(testp(0, n, false)).toBe(false);
    expect(testp(0, s, false)).toBe(false);
    expect(testp(MIN_SUB32, s, false)).toBe(true);
    expect(testp(2 ** -1000, s, false)).toBe(true);
    expect(testp(2 ** -1000, n, true)).toBe(true);
    expect(testp(2 ** -1074, s, true)).toBe(true);
    expect(testp(Infinity, testpCode('infinite'), true)).toBe(true);
    expect(testp(Infinity, testpCode('finite'), true)).toBe(false);
    expect(testp(NaN, testpCode('notanumber'), false)).toBe(true);
    expect(testp(NaN, testpCode('number'), false)).toBe(false);
    expect(testp(Infinity, n, false)).toBe(false);
  });
  test('copysign takes the sign of the first operand', () => {
    expect(copysign(-1, 3)).toBe(-3);
    expect(copysign(1, -3)).toBe(3);
    expect(isNeg0(copysign(-0, 0))).toBe(true);
    expect(copysign(-0, Infinity)).toBe(-Infinity);
  });
  test('min/max', () => {
    expect(fmin(NaN, 2)).toBe(2);
    expect(fmax(2, NaN)).toBe(2);
    expect(fmin(NaN, NaN)).toBeNaN();
    expect(fminNaN(NaN, 2)).toBeNaN();
    expect(fmaxNaN(1, 2)).toBe(2);
    expect(isNeg0(fmin(0, -0))).toBe(true);
    expect(isNeg0(fmin(-0, 0))).toBe(true);
    expect(isPos0(fmax(-0, 0))).toBe(true);
    expect(isPos0(fmax(0, -0))).toBe(true);
    expect(fminXorsignAbs(-3, 2)).toBe(-2);
    expect(fminXorsignAbs(-3, -2)).toBe(2);
  });
  test('ftz / sat', () => {
    expect(isNeg0(ftz32(-MIN_SUB32))).toBe(true);
    expect(ftz32(2 ** -126)).toBe(2 ** -126);
    expect(sat(NaN)).toBe(0);
    expect(sat(1.5)).toBe(1);
    expect(isPos0(sat(-0))).toBe(true);
    expect(sat(0.25)).toBe(0.25);
  });
});

describe('bit helpers', () => {
  test('f32 ↔ u32', () => {
    expect(f32ToBits(1)).toBe(0x3f800000);
    expect(f32ToBits(-0)).toBe(0x80000000);
    expect(f32ToBits(NaN)).toBe(0x7fffffff);
    expect(bitsToF32(0x00000001)).toBe(MIN_SUB32);
    expect(nextUp32(1)).toBe(1 + 2 ** -23);
    expect(nextDown32(0)).toBe(-MIN_SUB32);
    expect(nextUp32(-MIN_SUB32)).toBe(-0);
  });
  test('f64 ↔ words / bigint', () => {
    expect(f64HiWord(1)).toBe(0x3ff00000);
    expect(f64LoWord(1 + 2 ** -52)).toBe(1);
    expect(f64FromWords(0, 0xc0000000)).toBe(-2);
    expect(f64ToBigInt(-0)).toBe(0x8000000000000000n);
    expect(bigIntToF64(0x7fefffffffffffffn)).toBe(Number.MAX_VALUE);
    expect(nextUp64(2 ** 52 - 0.5)).toBe(2 ** 52);
    expect(nextUp64(-Number.MIN_VALUE)).toBe(-0);
  });
  test('roundCode', () => {
    expect(roundCode('rn')).toBe(0);
    expect(roundCode('rzi')).toBe(1);
    expect(roundCode('.rm')).toBe(2);
    expect(roundCode('rpi')).toBe(3);
  });
});
