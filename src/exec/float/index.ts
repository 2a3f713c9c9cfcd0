// Public API of the floating-point numerics module (see each file for semantics).
export * from './bits.js';
export {
  RN, RZ, RM, RP, RNA, roundCode, roundModeName, roundToBits, bitsToValue, roundBig, roundRatio,
  FMT_F16, FMT_BF16, FMT_TF32, FMT_F32,
  type RoundMode, type Rnd, type RndA, type SmallFormat,
} from './round.js';
export { f32Add, f32Sub, f32Mul, f32Div, f32Rcp, f32Sqrt, f32Fma, ftz32, sat, adjust32 } from './f32.js';
export { f64Add, f64Sub, f64Mul, f64Div, f64Rcp, f64Sqrt, f64Fma, adjust64 } from './f64.js';
export * from './cvt.js';
export * from './half.js';
export * from './approx.js';
export * from './fp8.js';
export * from './classify.js';
