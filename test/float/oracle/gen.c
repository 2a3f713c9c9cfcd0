/*
 * Independent oracle for ptxdbg's float module: prints test vectors (hex bit patterns) computed
 * by the host's IEEE-754 hardware / glibc / libgcc under each rounding mode (fesetround).
 *
 * Regenerate the fixtures (from the project root):
 *     sh test/float/oracle/regen.sh
 *
 * Notes:
 *  - volatile operands + -frounding-math keep gcc from constant folding in round-to-nearest.
 *  - x86-64 float/double arithmetic is SSE (honours MXCSR rounding), fmaf/fma are glibc (exact),
 *    _Float16 conversions are libgcc soft-fp (honours the current rounding mode).
 *  - gcc 12 has no arithmetic __bf16, so bf16/tf32 rounding is done on the f32 bit pattern,
 *    written from the format definition (bf16 = top 16 bits of an f32).
 *  - f16/bf16 fma: fma() in round-toward-zero with the inexact flag gives a round-to-odd double
 *    (53 >= 11+2 bits), which is then converted once in the target mode.
 * Line formats are documented at the top of each section's output ("#" lines).
 */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma STDC FENV_ACCESS ON

static const int MODES[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

static uint64_t rs = 0x9E3779B97F4A7C15ULL;
static int REPS = 1; /* vector count multiplier (argv[3]) for ad-hoc stress runs; fixtures use 1 */
static uint64_t rnd64(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static uint32_t rnd32(void) { return (uint32_t)(rnd64() >> 32); }
static int rndi(int n) { return (int)(rnd64() % (uint64_t)n); }

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint64_t dbits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static double bitsd(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
static uint16_t hbits(_Float16 h) { uint16_t u; memcpy(&u, &h, 2); return u; }
static _Float16 bitsh(uint16_t u) { _Float16 h; memcpy(&h, &u, 2); return h; }

/* ---------------- input generators ---------------- */

static const uint32_t F32_SPECIAL[] = {
  0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x3f800000, 0xbf800000,
  0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff,
  0x3f800001, 0x3f7fffff, 0x00000003, 0x00400000, 0x3f000000, 0x40000000, 0x4b800001, 0x4b000000,
  0x7f000000, 0x01000000, 0x33800000, 0x34000000, 0x3fc00000, 0x40490fdb, 0x00800001, 0x7effffff,
};
static const uint64_t F64_SPECIAL[] = {
  0x0000000000000000ULL, 0x8000000000000000ULL, 0x7ff0000000000000ULL, 0xfff0000000000000ULL,
  0x7ff8000000000000ULL, 0x3ff0000000000000ULL, 0xbff0000000000000ULL, 0x0000000000000001ULL,
  0x8000000000000001ULL, 0x000fffffffffffffULL, 0x0010000000000000ULL, 0x8010000000000000ULL,
  0x7fefffffffffffffULL, 0xffefffffffffffffULL, 0x3ff0000000000001ULL, 0x3fefffffffffffffULL,
  0x0000000000000003ULL, 0x0008000000000000ULL, 0x3fe0000000000000ULL, 0x4000000000000000ULL,
  0x4340000000000001ULL, 0x7fe0000000000000ULL, 0x0020000000000000ULL, 0x3ca0000000000000ULL,
  0x3ff8000000000000ULL, 0x400921fb54442d18ULL, 0x0010000000000001ULL, 0x7fdfffffffffffffULL,
  0x47efffffe0000000ULL, 0x47efffff00000000ULL, 0x36a0000000000000ULL, 0x3810000000000000ULL,
};
#define NSPEC32 (sizeof F32_SPECIAL / sizeof F32_SPECIAL[0])
#define NSPEC64 (sizeof F64_SPECIAL / sizeof F64_SPECIAL[0])

static float gen_f32(void) {
  int k = rndi(100);
  if (k < 10) return bitsf(F32_SPECIAL[rndi(NSPEC32)]);
  if (k < 35) return bitsf(rnd32());
  uint32_t sign = (rnd32() & 1) << 31, man = rnd32() & 0x7fffff;
  if (k < 45) man &= 0x7ff000; /* short mantissas: exact products, ties */
  int e;
  if (k < 75) e = 127 + rndi(21) - 10;
  else if (k < 85) e = rndi(6);        /* subnormal / tiny */
  else if (k < 95) e = 249 + rndi(5);  /* near overflow */
  else e = 1 + rndi(254);
  return bitsf(sign | ((uint32_t)e << 23) | man);
}

static double gen_f64(void) {
  int k = rndi(100);
  if (k < 10) return bitsd(F64_SPECIAL[rndi(NSPEC64)]);
  if (k < 35) return bitsd(rnd64());
  uint64_t sign = (rnd64() & 1) << 63, man = rnd64() & 0xfffffffffffffULL;
  if (k < 45) man &= 0xffffffc000000ULL; /* 27-bit significands: exact products */
  int e;
  if (k < 75) e = 1023 + rndi(41) - 20;
  else if (k < 85) e = rndi(6);
  else if (k < 95) e = 2040 + rndi(6);
  else e = 1 + rndi(2046);
  return bitsd(sign | ((uint64_t)e << 52) | man);
}

/* second operand related to the first: cancellation, big exponent gaps, equal magnitudes */
static float related_f32(float a) {
  switch (rndi(6)) {
    case 0: return -a;
    case 1: return bitsf(fbits(-a) + (rnd32() % 5) - 2);
    case 2: return a * ldexpf(1.0f, -(rndi(60)));
    case 3: return -a * ldexpf(1.0f, -(rndi(30)));
    default: return gen_f32();
  }
}
static double related_f64(double a) {
  switch (rndi(6)) {
    case 0: return -a;
    case 1: return bitsd(dbits(-a) + (rnd64() % 5) - 2);
    case 2: return a * ldexp(1.0, -(rndi(120)));
    case 3: return -a * ldexp(1.0, -(rndi(60)));
    default: return gen_f64();
  }
}

/* ---------------- f32 arithmetic ---------------- */

enum { ADD, SUB, MUL, DIV, SQRT, FMA, RCP, CVT };
static const char *OPN[] = {"add", "sub", "mul", "div", "sqrt", "fma", "rcp", "cvt"};

static float op32(int op, float a, float b, float c) {
  volatile float x = a, y = b, z = c, r;
  switch (op) {
    case ADD: r = x + y; break;
    case SUB: r = x - y; break;
    case MUL: r = x * y; break;
    case DIV: r = x / y; break;
    case SQRT: r = sqrtf(x); break;
    case FMA: r = fmaf(x, y, z); break;
    default: r = 1.0f / x; break;
  }
  return r;
}

static void emit32(int op, float a, float b, float c) {
  printf("%s %08x %08x %08x", OPN[op], fbits(a), fbits(b), fbits(c));
  for (int m = 0; m < 4; m++) { fesetround(MODES[m]); printf(" %08x", fbits(op32(op, a, b, c))); }
  fesetround(FE_TONEAREST);
  printf("\n");
}

/* fma inputs whose product is (near) an f32 midpoint, plus a tiny c that double rounding loses */
static void fma_hard32(float *a, float *b, float *c) {
  int k1 = 1 + rndi(22);
  float x = 1.0f + ldexpf(1.0f, -k1), y = 1.0f + ldexpf(1.0f, -(24 - k1));
  if (rndi(2)) { x = bitsf(fbits(x) | (rnd32() & 0x7f0000)); }
  int s1 = rndi(40) - 20, s2 = rndi(40) - 20;
  x = ldexpf(x, s1) * (rndi(2) ? -1.0f : 1.0f);
  y = ldexpf(y, s2) * (rndi(2) ? -1.0f : 1.0f);
  double p = (double)x * (double)y;
  float t = ldexpf(1.0f, ilogb(p) - 30 - rndi(60));
  *a = x; *b = y; *c = rndi(2) ? t : -t;
}

static void gen_f32_arith(void) {
  printf("# op a b c rn rz rm rp   (f32 bit patterns; unary ops use a; cvt: a:b = hi:lo of an f64)\n");
  const int N = 520 * REPS;
  for (int op = ADD; op <= RCP; op++) {
    for (int i = 0; i < N; i++) {
      float a = gen_f32();
      float b = (op == ADD || op == SUB) && rndi(2) ? related_f32(a) : gen_f32();
      float c = gen_f32();
      if (op == FMA) {
        int k = rndi(10);
        if (k < 3) fma_hard32(&a, &b, &c);
        else if (k < 5) { volatile float x = a, y = b; c = -(x * y); if (rndi(2)) c = bitsf(fbits(c) + 1); }
        else if (k < 6) c = related_f32(a * b);
      }
      if (op == SQRT || op == RCP) { b = 0; c = 0; if (op == SQRT && rndi(3)) a = fabsf(a); }
      if (op != FMA) c = 0;
      emit32(op, a, b, c);
    }
  }
  /* f64 -> f32 conversion */
  for (int i = 0; i < 1000 * REPS; i++) {
    double d = gen_f64();
    int k = rndi(4);
    if (k == 0) d = (double)gen_f32() * (1.0 + ldexp((double)(rndi(5) - 2), -25 - rndi(3)));
    else if (k == 1) d = ldexp((double)(rnd64() >> 11), -52 - rndi(110) + 128 - rndi(300));
    uint64_t u = dbits(d);
    printf("cvt %08x %08x 00000000", (uint32_t)(u >> 32), (uint32_t)u);
    for (int m = 0; m < 4; m++) { fesetround(MODES[m]); volatile double x = d; volatile float r = (float)x; printf(" %08x", fbits(r)); }
    fesetround(FE_TONEAREST);
    printf("\n");
  }
}

/* ---------------- f64 arithmetic ---------------- */

static double op64(int op, double a, double b, double c) {
  volatile double x = a, y = b, z = c, r;
  switch (op) {
    case ADD: r = x + y; break;
    case SUB: r = x - y; break;
    case MUL: r = x * y; break;
    case DIV: r = x / y; break;
    case SQRT: r = sqrt(x); break;
    case FMA: r = fma(x, y, z); break;
    default: r = 1.0 / x; break;
  }
  return r;
}

static void fma_hard64(double *a, double *b, double *c) {
  int k1 = 1 + rndi(51);
  double x = 1.0 + ldexp(1.0, -k1), y = 1.0 + ldexp(1.0, -(53 - k1));
  if (rndi(2)) x = bitsd(dbits(x) | (rnd64() & 0xfff0000000000ULL));
  int s1 = rndi(200) - 100, s2 = rndi(200) - 100;
  x = ldexp(x, s1) * (rndi(2) ? -1.0 : 1.0);
  y = ldexp(y, s2) * (rndi(2) ? -1.0 : 1.0);
  double t = ldexp(1.0, s1 + s2 - 60 - rndi(200));
  *a = x; *b = y; *c = rndi(2) ? t : -t;
}

static void gen_f64_arith(void) {
  printf("# op a b c rn rz rm rp   (f64 bit patterns; unary ops use a)\n");
  const int N = 450 * REPS;
  for (int op = ADD; op <= RCP; op++) {
    if (op == RCP) continue;
    for (int i = 0; i < N; i++) {
      double a = gen_f64();
      double b = (op == ADD || op == SUB) && rndi(2) ? related_f64(a) : gen_f64();
      double c = gen_f64();
      if (op == FMA) {
        int k = rndi(12);
        if (k < 3) fma_hard64(&a, &b, &c);
        else if (k < 5) { volatile double x = a, y = b; c = -(x * y); if (rndi(2)) c = bitsd(dbits(c) + 1); }
        else if (k < 6) c = related_f64(a * b);
        else if (k < 7) { a = ldexp(1.0 + ldexp((double)(rnd64() >> 12), -52), -500 - rndi(80)); b = ldexp(1.5, -500 - rndi(80)); c = (rndi(2) ? -1 : 1) * ldexp((double)(rnd64() >> 12), -1074); }
        else if (k < 8) { a = ldexp(1.0 + ldexp((double)(rnd64() >> 12), -52), 1000); b = 1.5 + ldexp(1.0, -30); c = -ldexp(1.0, 1023) * (rndi(2) ? 1 : 0.75); }
      }
      if (op == DIV && rndi(5) == 0) { a = ldexp(1.0 + ldexp((double)(rnd64() >> 12), -52), -1000 - rndi(60)); b = ldexp(1.0 + ldexp((double)(rnd64() >> 12), -52), 10 + rndi(60)); }
      if (op == MUL && rndi(5) == 0) { a = ldexp(1.0 + ldexp((double)(rnd64() >> 12), -52), -500 - rndi(60)); b = ldexp(1.0 + ldexp((double)(rnd64() >> 12), -52), -500 - rndi(60)); }
      if (op == SQRT) { b = 0; if (rndi(3)) a = fabs(a); }
      if (op != FMA) c = 0;
      if (op == SQRT) b = 0;
      printf("%s %016llx %016llx %016llx", OPN[op], (unsigned long long)dbits(a), (unsigned long long)dbits(b), (unsigned long long)dbits(c));
      for (int m = 0; m < 4; m++) { fesetround(MODES[m]); printf(" %016llx", (unsigned long long)dbits(op64(op, a, b, c))); }
      fesetround(FE_TONEAREST);
      printf("\n");
    }
  }
}

/* ---------------- conversions ---------------- */

static const char *ITN[] = {"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"};
static const double ILO[] = {-128, -32768, -2147483648.0, -9223372036854775808.0, 0, 0, 0, 0};
static const double IHI[] = {127, 32767, 2147483647.0, 9223372036854775807.0, 255, 65535, 4294967295.0, 18446744073709551615.0};

/* PTX float->int: round in mode, then saturate; NaN -> 0 */
static void print_f2i(int t, double x, int m) {
  fesetround(MODES[m]);
  volatile double vx = x;
  double r = nearbyint(vx);
  fesetround(FE_TONEAREST);
  if (isnan(r)) { printf(" 0"); return; }
  if (t == 3) {
    if (r >= 9223372036854775808.0) printf(" 9223372036854775807");
    else if (r <= -9223372036854775808.0) printf(" -9223372036854775808");
    else printf(" %lld", (long long)r);
  } else if (t == 7) {
    if (r >= 18446744073709551616.0) printf(" 18446744073709551615");
    else if (r <= 0) printf(" 0");
    else printf(" %llu", (unsigned long long)r);
  } else {
    if (r <= ILO[t]) r = ILO[t];
    if (r >= IHI[t]) r = IHI[t];
    printf(" %lld", (long long)r);
  }
}

static uint16_t bf16_from_f32bits(uint32_t u, int m) {
  if ((u & 0x7fffffff) > 0x7f800000) return 0x7fff;
  uint32_t sign = u >> 31, mag = u & 0x7fffffff;
  uint32_t keep = mag >> 16, rem = mag & 0xffff;
  int inc = 0;
  if (rem) {
    if (m == 0) inc = rem > 0x8000 || (rem == 0x8000 && (keep & 1));
    else if (m == 2) inc = sign;
    else if (m == 3) inc = !sign;
  }
  keep += inc;
  if (keep >= 0x7f80 && (mag & 0x7fffffff) != 0x7f800000) {
    int tz = m == 1 || (m == 2 && !sign) || (m == 3 && sign);
    keep = tz ? 0x7f7f : 0x7f80;
  }
  return (uint16_t)((sign << 15) | keep);
}

/* round-to-odd double -> float: truncate then set the lsb if inexact */
static float f32_ro(double d) {
  fesetround(FE_TOWARDZERO);
  feclearexcept(FE_INEXACT);
  volatile double x = d;
  volatile float f = (float)x;
  int inex = fetestexcept(FE_INEXACT);
  fesetround(FE_TONEAREST);
  if (inex && isfinite(f)) f = bitsf(fbits(f) | 1);
  else if (inex) f = bitsf(fbits(f) - 0); /* cannot happen for finite d in f32 range */
  return f;
}

static uint32_t tf32_from_f32bits(uint32_t u, int m /* 0 rn, 1 rz, 4 rna */) {
  if ((u & 0x7fffffff) > 0x7f800000) return 0x7fffffff;
  uint32_t sign = u & 0x80000000, mag = u & 0x7fffffff;
  uint32_t keep = mag >> 13, rem = mag & 0x1fff;
  if (m == 4) keep += rem >= 0x1000;
  else if (m == 0) keep += rem > 0x1000 || (rem == 0x1000 && (keep & 1));
  return sign | (keep << 13);
}

/* exact fma then one rounding to f16 / bf16 (round-to-odd double in between) */
static double fma_ro(double a, double b, double c, int m) {
  fesetround(FE_TOWARDZERO);
  feclearexcept(FE_INEXACT);
  volatile double x = a, y = b, z = c;
  volatile double r = fma(x, y, z);
  int inex = fetestexcept(FE_INEXACT);
  if (!inex) { fesetround(MODES[m]); r = fma(x, y, z); }  /* exact: recompute for the zero sign */
  fesetround(FE_TONEAREST);
  if (inex) r = bitsd(dbits(r) | 1);
  return r;
}

static uint16_t gen_h16(void) {
  static const uint16_t SP[] = {0, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x3c00, 0xbc00, 1, 0x8001, 0x3ff, 0x400, 0x7bff, 0xfbff, 0x3c01, 0x3bff, 0x0200, 0x7800};
  int k = rndi(10);
  if (k < 2) return SP[rndi(sizeof SP / sizeof SP[0])];
  if (k < 5) return (uint16_t)rnd32();
  uint16_t s = (rnd32() & 1) << 15;
  int e = k < 8 ? 15 + rndi(9) - 4 : rndi(31);
  return s | (uint16_t)(e << 10) | (rnd32() & 0x3ff);
}
static uint16_t gen_bf16(void) {
  int k = rndi(10);
  if (k < 2) return (uint16_t)(fbits(bitsf(F32_SPECIAL[rndi(NSPEC32)])) >> 16);
  if (k < 5) return (uint16_t)rnd32();
  uint16_t s = (rnd32() & 1) << 15;
  int e = k < 8 ? 127 + rndi(17) - 8 : rndi(255);
  return s | (uint16_t)(e << 7) | (rnd32() & 0x7f);
}

static void gen_cvt(void) {
  printf("# f2i src(f32|f64) x(hex) itype rni rzi rmi rpi (decimal)\n");
  for (int i = 0; i < 900 * REPS; i++) {
    int t = rndi(8);
    int is64 = rndi(2);
    double x;
    int k = rndi(5);
    if (k == 0) x = (rndi(2) ? -1 : 1) * (double)(rndi(1 << 20)) * 0.5;              /* halves: ties */
    else if (k == 1) x = (rndi(2) ? -1 : 1) * ldexp(1.0, rndi(66)) + (rndi(3) - 1) * ldexp(1.0, rndi(66) - 40);
    else if (k == 2) x = IHI[t] + (rndi(5) - 2) * (0.25 + rndi(4) * 0.25) + (rndi(2) ? 0 : ILO[t] - IHI[t]);
    else x = is64 ? gen_f64() : gen_f32();
    if (!is64) x = (float)x;
    if (is64) printf("f2i f64 %016llx %s", (unsigned long long)dbits(x), ITN[t]);
    else printf("f2i f32 %08x %s", fbits((float)x), ITN[t]);
    for (int m = 0; m < 4; m++) print_f2i(t, x, m);
    printf("\n");
  }
  printf("# i2f itype value(decimal) f32:rn rz rm rp f64:rn rz rm rp f16:rn rz rm rp\n");
  for (int i = 0; i < 700 * REPS; i++) {
    int t = rndi(4); /* 0 s32, 1 u32, 2 s64, 3 u64 */
    uint64_t v = rnd64();
    int sh = rndi(64);
    v >>= sh;
    if (rndi(4) == 0) v |= (uint64_t)(rnd64() & 1) << 63;
    if (rndi(6) == 0) v = ((uint64_t)1 << (24 + rndi(40))) + (uint64_t)(rndi(5) - 2);
    if (rndi(8) == 0) v = 65504 + rndi(64) - 32;
    long long sv; unsigned long long uv;
    const char *tn[] = {"s32", "u32", "s64", "u64"};
    if (t == 0) { sv = (int32_t)(uint32_t)v; printf("i2f %s %lld", tn[t], sv); }
    else if (t == 1) { uv = (uint32_t)v; printf("i2f %s %llu", tn[t], uv); }
    else if (t == 2) { sv = (long long)v; printf("i2f %s %lld", tn[t], sv); }
    else { uv = v; printf("i2f %s %llu", tn[t], uv); }
    for (int m = 0; m < 4; m++) {
      fesetround(MODES[m]);
      volatile float f;
      if (t == 0) { volatile int32_t s = (int32_t)sv; f = (float)s; }
      else if (t == 1) { volatile uint32_t s = (uint32_t)uv; f = (float)s; }
      else if (t == 2) { volatile int64_t s = sv; f = (float)s; }
      else { volatile uint64_t s = uv; f = (float)s; }
      printf(" %08x", fbits(f));
    }
    for (int m = 0; m < 4; m++) {
      fesetround(MODES[m]);
      volatile double f;
      if (t == 0) { volatile int32_t s = (int32_t)sv; f = (double)s; }
      else if (t == 1) { volatile uint32_t s = (uint32_t)uv; f = (double)s; }
      else if (t == 2) { volatile int64_t s = sv; f = (double)s; }
      else { volatile uint64_t s = uv; f = (double)s; }
      printf(" %016llx", (unsigned long long)dbits(f));
    }
    for (int m = 0; m < 4; m++) {
      fesetround(MODES[m]);
      volatile _Float16 f;
      if (t == 0) { volatile int32_t s = (int32_t)sv; f = (_Float16)s; }
      else if (t == 1) { volatile uint32_t s = (uint32_t)uv; f = (_Float16)s; }
      else if (t == 2) { volatile int64_t s = sv; f = (_Float16)s; }
      else { volatile uint64_t s = uv; f = (_Float16)s; }
      printf(" %04x", hbits(f));
    }
    fesetround(FE_TONEAREST);
    printf("\n");
  }
  printf("# f2h src x  f16:rn rz rm rp  bf16:rn rz rm rp  [f32 src only:] tf32:rna rn rz\n");
  for (int i = 0; i < 1400 * REPS; i++) {
    int is64 = i % 7 >= 5;
    double x;
    int k = rndi(6);
    if (k == 0) x = ldexp((double)(rnd32() & 0xffff) + (rndi(2) ? 0.5 : 0), -rndi(50) + 5) * (rndi(2) ? -1 : 1);
    else if (k == 1) x = (rndi(2) ? -1 : 1) * (65504.0 + rndi(64) - 16 + (rndi(2) ? 0.5 : 0));
    else if (k == 2) x = ldexp(1.0 + ldexp((double)(rnd32() & 0xfff), -12), -14 - rndi(14)) * (rndi(2) ? -1 : 1);
    else x = is64 ? gen_f64() : gen_f32();
    if (!is64) x = (float)x;
    if (is64) printf("f2h f64 %016llx", (unsigned long long)dbits(x));
    else printf("f2h f32 %08x", fbits((float)x));
    for (int m = 0; m < 4; m++) {
      fesetround(MODES[m]);
      volatile _Float16 h;
      if (is64) { volatile double s = x; h = (_Float16)s; } else { volatile float s = (float)x; h = (_Float16)s; }
      printf(" %04x", hbits(h));
    }
    fesetround(FE_TONEAREST);
    for (int m = 0; m < 4; m++) {
      uint32_t fb = is64 ? fbits(f32_ro(x)) : fbits((float)x);
      printf(" %04x", bf16_from_f32bits(fb, m));
    }
    if (!is64) {
      uint32_t fb = fbits((float)x);
      printf(" %08x %08x %08x", tf32_from_f32bits(fb, 4), tf32_from_f32bits(fb, 0), tf32_from_f32bits(fb, 1));
    }
    printf("\n");
  }
  printf("# h2f f16bits f32bits (exact)\n");
  for (int h = 0; h < 65536; h += 1 + rndi(40)) printf("h2f %04x %08x\n", h, fbits((float)bitsh((uint16_t)h)));
  printf("h2f %04x %08x\nh2f %04x %08x\n", 0x7c00, fbits((float)bitsh(0x7c00)), 0x8001, fbits((float)bitsh(0x8001)));
}

/* ---------------- f16 / bf16 arithmetic ---------------- */

static void gen_half_arith(void) {
  printf("# h16 op a b c rn rz rm rp   (f16 bit patterns)\n");
  const char *ops[] = {"add", "sub", "mul", "fma"};
  for (int op = 0; op < 4; op++) {
    for (int i = 0; i < 500 * REPS; i++) {
      uint16_t a = gen_h16(), b = gen_h16(), c = op == 3 ? gen_h16() : 0;
      if (op == 3 && rndi(4) == 0) { /* cancellation / tiny addend */
        double p = (double)bitsh(a) * (double)bitsh(b);
        c = hbits((_Float16)(-p)) ^ (rndi(2) ? 0x8000 : 0);
      }
      if (op < 2 && rndi(4) == 0) b = a ^ 0x8000 ^ (rndi(3));
      double x = bitsh(a), y = bitsh(b), z = bitsh(c);
      printf("h16 %s %04x %04x %04x", ops[op], a, b, c);
      for (int m = 0; m < 4; m++) {
        volatile double r;
        fesetround(MODES[m]);
        if (op == 0) r = x + y; else if (op == 1) r = x - y; else if (op == 2) r = x * y;
        fesetround(FE_TONEAREST);
        if (op == 3) r = fma_ro(x, y, z, m);
        fesetround(MODES[m]);
        volatile _Float16 h = (_Float16)r;
        fesetround(FE_TONEAREST);
        printf(" %04x", hbits(h));
      }
      printf("\n");
    }
  }
  printf("# b16 op a b c rn rz rm rp   (bf16 bit patterns)\n");
  for (int op = 0; op < 4; op++) {
    for (int i = 0; i < 500 * REPS; i++) {
      uint16_t a = gen_bf16(), b = gen_bf16(), c = op == 3 ? gen_bf16() : 0;
      if (op < 2 && rndi(4) == 0) b = a ^ 0x8000 ^ (rndi(3));
      double x = bitsf((uint32_t)a << 16), y = bitsf((uint32_t)b << 16), z = bitsf((uint32_t)c << 16);
      printf("b16 %s %04x %04x %04x", ops[op], a, b, c);
      for (int m = 0; m < 4; m++) {
        double r;
        if (op == 0) r = fma_ro(x, 1.0, y, m);
        else if (op == 1) r = fma_ro(x, 1.0, -y, m);
        else if (op == 2) r = fma_ro(x, y, 0.0, m) ;
        else r = fma_ro(x, y, z, m);
        if (op == 2 && r == 0) { fesetround(MODES[m]); volatile double vx = x, vy = y; r = vx * vy; fesetround(FE_TONEAREST); }
        printf(" %04x", bf16_from_f32bits(fbits(f32_ro(r)), m));
      }
      printf("\n");
    }
  }
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: gen f32|f64|cvt|half [seed [multiplier]]\n"); return 2; }
  if (argc > 2) rs ^= strtoull(argv[2], 0, 0) * 0x2545F4914F6CDD1DULL;
  if (argc > 3) REPS = atoi(argv[3]);
  if (!strcmp(argv[1], "f32")) gen_f32_arith();
  else if (!strcmp(argv[1], "f64")) gen_f64_arith();
  else if (!strcmp(argv[1], "cvt")) gen_cvt();
  else if (!strcmp(argv[1], "half")) gen_half_arith();
  else return 2;
  return 0;
}
