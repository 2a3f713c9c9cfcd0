// bfloat16 and half2 arithmetic: f32->bf16 in rn/rz/rd/ru, bf16 add/sub/mul/fma, bf16x2 packing, half2 add/mul/fma/min/max, and half <-> float round trips.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void halfBf16(const float* xs, const float* ys, const __half* ha, const __half* hb,
                         unsigned short* bf, float* bff, __half* h2out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = xs[i], y = ys[i];

    __nv_bfloat16 bx = __float2bfloat16(x);          // round to nearest even
    __nv_bfloat16 by = __float2bfloat16(y);
    unsigned short* o = bf + i * 10;
    o[0] = __bfloat16_as_ushort(bx);
    o[1] = __bfloat16_as_ushort(__float2bfloat16_rz(x));
    o[2] = __bfloat16_as_ushort(__float2bfloat16_rd(x));
    o[3] = __bfloat16_as_ushort(__float2bfloat16_ru(x));
    o[4] = __bfloat16_as_ushort(__hadd(bx, by));
    o[5] = __bfloat16_as_ushort(__hsub(bx, by));
    o[6] = __bfloat16_as_ushort(__hmul(bx, by));
    o[7] = __bfloat16_as_ushort(__hfma(bx, by, __float2bfloat16(1.0f)));
    __nv_bfloat162 pair = __floats2bfloat162_rn(x, y);
    o[8] = __bfloat16_as_ushort(pair.x);
    o[9] = __bfloat16_as_ushort(pair.y);
    bff[i * 2 + 0] = __bfloat162float(__hadd(bx, by));
    bff[i * 2 + 1] = __bfloat162float(bx) * 2.0f;

    __half2 p = __halves2half2(ha[i], hb[i]);
    __half2 q = __halves2half2(hb[i], ha[i]);
    __half2 r0 = __hadd2(p, q);
    __half2 r1 = __hmul2(p, q);
    __half2 r2 = __hfma2(p, q, p);
    __half2 r3 = __hmin2(p, q);
    __half2 r4 = __hmax2(p, __hneg2(q));
    __half* h = h2out + i * 12;
    h[0] = __low2half(r0);  h[1] = __high2half(r0);
    h[2] = __low2half(r1);  h[3] = __high2half(r1);
    h[4] = __low2half(r2);  h[5] = __high2half(r2);
    h[6] = __low2half(r3);  h[7] = __high2half(r3);
    h[8] = __low2half(r4);  h[9] = __high2half(r4);
    h[10] = __float2half_rn(__half2float(ha[i]) * 3.0f);
    h[11] = __float2half_rz(x);
}
