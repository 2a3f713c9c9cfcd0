// Parse-only: hand-written inline PTX forms: mma.sync, ldmatrix, lop3, dp4a/dp2a, bmsk, fns, isspacep, prefetch, cache-hinted ld/st, cvt.rna.tf32, szext, multi-statement blocks with local labels and predicates.
#include <cstdint>

__global__ void asmMix(const unsigned* a, unsigned* out, const float* f, int n)
{
    __shared__ __align__(16) unsigned short tile[8 * 8 * 4];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = a[i & (n - 1)], y = a[(i + 7) & (n - 1)], r;
    tile[threadIdx.x] = (unsigned short)x;
    __syncthreads();

    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(x), "r"(y), "r"(i));
    out[i * 12 + 0] = r;
    out[i * 12 + 1] = (unsigned)__dp4a((int)x, (int)y, 5);
    out[i * 12 + 2] = __dp2a_lo(x, y, 7u);
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(r) : "r"(x & 31), "r"(y & 63));
    out[i * 12 + 3] = r;
    asm("fns.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(0u), "r"(3));
    out[i * 12 + 4] = r;
    unsigned isg;
    asm("{ .reg .pred p; isspacep.global p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(isg) : "l"(a));
    out[i * 12 + 5] = isg;
    asm volatile("prefetch.global.L2 [%0];" :: "l"(a + i));
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(a + (i & (n - 1))));
    asm volatile("st.global.cs.u32 [%0], %1;" :: "l"(out + i * 12 + 6), "r"(v));
    unsigned tf;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(tf) : "f"(f[i & (n - 1)]));
    out[i * 12 + 7] = tf;
    asm("szext.clamp.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y & 31));
    out[i * 12 + 8] = r;
    asm("{\n\t.reg .pred p, q;\n\t"
        "setp.lt.u32 p, %1, %2;\n\t"
        "@p bra.uni LBL_SMALL;\n\t"
        "sub.u32 %0, %1, %2;\n\t"
        "bra.uni LBL_DONE;\n"
        "LBL_SMALL:\n\t"
        "sub.u32 %0, %2, %1;\n"
        "LBL_DONE:\n\t"
        "setp.eq.u32 q, %0, 0;\n\t"
        "@q mov.u32 %0, 0xffffffff;\n\t}"
        : "=r"(r) : "r"(x), "r"(y));
    out[i * 12 + 9] = r;

    unsigned m0, m1, m2, m3;
    unsigned saddr = (unsigned)__cvta_generic_to_shared(&tile[(threadIdx.x & 7) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(m0), "=r"(m1), "=r"(m2), "=r"(m3) : "r"(saddr));
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(m0), "r"(m1), "r"(m2), "r"(m3), "r"(x), "r"(y));
    out[i * 12 + 10] = __float_as_uint(d0 + d1 + d2 + d3);
    out[i * 12 + 11] = m0 ^ m1 ^ m2 ^ m3;
}
