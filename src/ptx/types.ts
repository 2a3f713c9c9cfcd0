/** Sizes and classes of PTX fundamental types. */

export function typeSize(t: string): number {
  switch (t) {
    case 'pred': case 'b8': case 'u8': case 's8': case 'e4m3': case 'e5m2': case 'b1': case 'u4': case 's4': case 'u2': case 's2':
      return 1;
    case 'b16': case 'u16': case 's16': case 'f16': case 'bf16': case 'e4m3x2': case 'e5m2x2':
      return 2;
    case 'b32': case 'u32': case 's32': case 'f32': case 'f16x2': case 'bf16x2': case 'tf32': case 'u16x2': case 's16x2':
      return 4;
    case 'b64': case 'u64': case 's64': case 'f64': case 'f32x2':
      return 8;
    case 'b128':
      return 16;
    default:
      return 0;
  }
}

export function isFloatType(t: string): boolean {
  return t === 'f32' || t === 'f64' || t === 'f16' || t === 'bf16' || t === 'f16x2' || t === 'bf16x2' || t === 'tf32';
}

export function isSignedType(t: string): boolean {
  return t.charCodeAt(0) === 115; // 's'
}
