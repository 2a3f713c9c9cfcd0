// Integer ops per element: mul24/mul.hi/mad.wide, sad, bfind, prmt modes, funnel shifts, vabsdiff4, s16/s64 min/max/abs, 64-bit div/rem/popc/clz, bfe/bfi on 64 bits, addc/subc/madc carry chains (128-bit add/sub/mul), testp and copysign.
__device__ __forceinline__ unsigned prmtMode(unsigned a, unsigned b, unsigned c, int mode)
{
    unsigned r;
    switch (mode) {
    case 0: asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); break;
    case 1: asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); break;
    case 2: asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); break;
    case 3: asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); break;
    case 4: asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); break;
    case 5: asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); break;
    default: asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); break;
    }
    return r;
}

__device__ __forceinline__ unsigned bfind(unsigned x, int s)
{
    unsigned r;
    if (s == 0) asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x));
    else if (s == 1) asm("bfind.s32 %0, %1;" : "=r"(r) : "r"(x));
    else asm("bfind.shiftamt.u32 %0, %1;" : "=r"(r) : "r"(x));
    return r;
}

__device__ __forceinline__ unsigned short minmaxAbs16(unsigned short a, unsigned short b, int op)
{
    unsigned short r;
    if (op == 0) asm("min.s16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b));
    else if (op == 1) asm("max.s16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b));
    else asm("abs.s16 %0, %1;" : "=h"(r) : "h"(a));
    return r;
}

__device__ __forceinline__ unsigned testpBits(float f)
{
    unsigned r;
    asm("{\n\t.reg .pred p;\n\t.reg .u32 t;\n\t"
        "testp.finite.f32 p, %1;    selp.u32 %0, 1, 0, p;\n\t"
        "testp.infinite.f32 p, %1;  selp.u32 t, 2, 0, p;  or.b32 %0, %0, t;\n\t"
        "testp.number.f32 p, %1;    selp.u32 t, 4, 0, p;  or.b32 %0, %0, t;\n\t"
        "testp.notanumber.f32 p, %1; selp.u32 t, 8, 0, p; or.b32 %0, %0, t;\n\t"
        "testp.normal.f32 p, %1;    selp.u32 t, 16, 0, p; or.b32 %0, %0, t;\n\t"
        "testp.subnormal.f32 p, %1; selp.u32 t, 32, 0, p; or.b32 %0, %0, t;\n\t}"
        : "=r"(r) : "f"(f));
    return r;
}

__global__ void intOpsExt(const unsigned* a, const unsigned* b, const unsigned long long* c,
                          const unsigned long long* d, unsigned* o32, unsigned long long* o64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned ux = a[i], uy = b[i];
    int x = (int)ux, y = (int)uy;
    unsigned long long uw = c[i], ud = d[i];
    long long w = (long long)uw, dd = (long long)ud;
    unsigned* o = o32 + i * 24;

    o[0] = (unsigned)__mul24(x, y);
    o[1] = __umul24(ux, uy);
    o[2] = (unsigned)__mulhi(x, y);
    o[3] = __umulhi(ux, uy);
    o[4] = __sad(x, y, 7u);
    o[5] = __usad(ux, uy, ux >> 28);
    o[6] = bfind(ux, 0);
    o[7] = bfind(ux, 1);
    o[8] = bfind(uy, 2);
    for (int m = 0; m < 7; ++m) o[9 + m] = prmtMode(ux, uy, (m < 6) ? (uy >> (m * 2)) : (uy ^ ux), m);
    o[16] = __funnelshift_r(ux, uy, uy >> 3);
    o[17] = __funnelshift_lc(ux, uy, (ux >> 26) & 63);
    unsigned vd;
    asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(vd) : "r"(ux), "r"(uy), "r"(ux >> 20));
    o[18] = vd;
    o[19] = minmaxAbs16((unsigned short)ux, (unsigned short)uy, 0) |
            ((unsigned)minmaxAbs16((unsigned short)ux, (unsigned short)uy, 1) << 16);
    o[20] = minmaxAbs16((unsigned short)(ux >> 16), 0, 2) | ((unsigned)__popcll(uw) << 16) | ((unsigned)__clzll(w) << 24);
    o[21] = testpBits(__uint_as_float(ux));
    o[22] = __float_as_uint(copysignf(__uint_as_float(ux), __uint_as_float(uy)));
    o[23] = __vabsdiffu4(ux, uy);

    unsigned long long* q = o64 + i * 20;
    q[0] = (unsigned long long)((long long)x * y + w);            // mad.wide.s32
    q[1] = (unsigned long long)ux * uy + uw;                       // mad.wide.u32
    q[2] = (unsigned long long)(w / dd);
    q[3] = (unsigned long long)(w % dd);
    q[4] = uw / ud;
    q[5] = uw % ud;
    unsigned long long r;
    asm("bfe.u64 %0, %1, %2, %3;" : "=l"(r) : "l"(uw), "r"(uy & 0x7f), "r"((uy >> 8) & 0x7f));
    q[6] = r;
    asm("bfe.s64 %0, %1, %2, %3;" : "=l"(r) : "l"(uw), "r"(ux & 0x3f), "r"((ux >> 8) & 0x3f));
    q[7] = r;
    asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(r) : "l"(ud), "l"(uw), "r"(uy & 0x3f), "r"((uy >> 8) & 0x7f));
    q[8] = r;

    // 128-bit add and subtract of (uw:ud) and (ud:uw) in four 32-bit limbs with carry/borrow chains.
    unsigned s0, s1, s2, s3;
    asm("add.cc.u32 %0, %4, %8;\n\taddc.cc.u32 %1, %5, %9;\n\taddc.cc.u32 %2, %6, %10;\n\taddc.u32 %3, %7, %11;"
        : "=&r"(s0), "=&r"(s1), "=&r"(s2), "=&r"(s3)
        : "r"((unsigned)ud), "r"((unsigned)(ud >> 32)), "r"((unsigned)uw), "r"((unsigned)(uw >> 32)),
          "r"((unsigned)uw), "r"((unsigned)(uw >> 32)), "r"((unsigned)ud), "r"((unsigned)(ud >> 32)));
    q[9] = ((unsigned long long)s1 << 32) | s0;
    q[10] = ((unsigned long long)s3 << 32) | s2;
    asm("sub.cc.u32 %0, %4, %8;\n\tsubc.cc.u32 %1, %5, %9;\n\tsubc.cc.u32 %2, %6, %10;\n\tsubc.u32 %3, %7, %11;"
        : "=&r"(s0), "=&r"(s1), "=&r"(s2), "=&r"(s3)
        : "r"((unsigned)ud), "r"((unsigned)(ud >> 32)), "r"((unsigned)uw), "r"((unsigned)(uw >> 32)),
          "r"((unsigned)uw), "r"((unsigned)(uw >> 32)), "r"((unsigned)ud), "r"((unsigned)(ud >> 32)));
    q[11] = ((unsigned long long)s1 << 32) | s0;
    q[12] = ((unsigned long long)s3 << 32) | s2;
    // 64 x 64 -> 128-bit product with mad.lo.cc / madc.hi chains.
    unsigned a0 = (unsigned)uw, a1 = (unsigned)(uw >> 32), b0 = (unsigned)ud, b1 = (unsigned)(ud >> 32);
    asm("mul.lo.u32 %0, %4, %6;\n\t"
        "mul.hi.u32 %1, %4, %6;\n\t"
        "mad.lo.cc.u32 %1, %4, %7, %1;\n\t"
        "madc.hi.u32 %2, %4, %7, 0;\n\t"
        "mad.lo.cc.u32 %1, %5, %6, %1;\n\t"
        "madc.hi.cc.u32 %2, %5, %6, %2;\n\t"
        "madc.hi.u32 %3, %5, %7, 0;\n\t"
        "mad.lo.cc.u32 %2, %5, %7, %2;\n\t"
        "addc.u32 %3, %3, 0;"
        : "=&r"(s0), "=&r"(s1), "=&r"(s2), "=&r"(s3) : "r"(a0), "r"(a1), "r"(b0), "r"(b1));
    q[13] = ((unsigned long long)s1 << 32) | s0;
    q[14] = ((unsigned long long)s3 << 32) | s2;
    q[15] = (unsigned long long)llabs(w);
    q[16] = (unsigned long long)min(w, dd);
    q[17] = max(uw, ud);
    q[18] = __brevll(uw) ^ (unsigned long long)__ffsll(w);
    q[19] = (unsigned long long)__umul64hi(uw, ud) + (unsigned long long)__mul64hi(w, dd);
}
