// Warp intrinsics: shfl idx/up/down/xor with widths (32- and 64-bit), ballot/any/all, match_any/match_all, __reduce_*_sync (redux.sync), %lanemask_* registers, and a 20-lane divergent section with __activemask/__syncwarp.
__device__ __forceinline__ unsigned lanemask(int which)
{
    unsigned r;
    switch (which) {
    case 0: asm("mov.u32 %0, %%lanemask_eq;" : "=r"(r)); break;
    case 1: asm("mov.u32 %0, %%lanemask_le;" : "=r"(r)); break;
    case 2: asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r)); break;
    case 3: asm("mov.u32 %0, %%lanemask_ge;" : "=r"(r)); break;
    default: asm("mov.u32 %0, %%lanemask_gt;" : "=r"(r)); break;
    }
    return r;
}

__global__ void warpIntrinsics(const int* in, int* shf, long long* shf64, unsigned* votes,
                               int* red, unsigned* masks, int* part)
{
    const unsigned full = 0xffffffffu;
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    int lane = t & 31;
    int v = in[g];

    int* s = shf + g * 8;
    s[0] = __shfl_sync(full, v, (lane * 3 + 1) & 31);
    s[1] = __shfl_sync(full, v, lane + 5, 8);          // source lane taken modulo the width
    s[2] = __shfl_up_sync(full, v, 3);
    s[3] = __shfl_up_sync(full, v, 2, 8);
    s[4] = __shfl_down_sync(full, v, 5);
    s[5] = __shfl_down_sync(full, v, 3, 16);
    s[6] = __shfl_xor_sync(full, v, 9);
    s[7] = __shfl_xor_sync(full, v, 3, 4);

    long long wide = (long long)v * 0x100000001LL;
    shf64[g * 2 + 0] = __shfl_down_sync(full, wide, 1);
    shf64[g * 2 + 1] = __double_as_longlong(__shfl_xor_sync(full, (double)v * 0.5, 16));

    unsigned* m = masks + g * 5;
    for (int k = 0; k < 5; ++k) m[k] = lanemask(k);

    unsigned* vo = votes + g * 6;
    int p1 = 0, p2 = 0;
    vo[0] = __ballot_sync(full, v & 1);
    vo[1] = __all_sync(full, v > -1000) | (__any_sync(full, v > 900) << 1) | (__all_sync(full, v > 0) << 2);
    vo[2] = __match_any_sync(full, v & 3);
    vo[3] = __match_all_sync(full, g >> 5, &p1);
    vo[4] = __match_all_sync(full, v & 1, &p2);
    vo[5] = p1 | (p2 << 1);

    int* r = red + g * 8;
    r[0] = __reduce_add_sync(full, v);
    r[1] = __reduce_min_sync(full, v);
    r[2] = __reduce_max_sync(full, v);
    r[3] = (int)__reduce_min_sync(full, (unsigned)v);
    r[4] = (int)__reduce_max_sync(full, (unsigned)v);
    r[5] = (int)__reduce_and_sync(full, (unsigned)v);
    r[6] = (int)__reduce_or_sync(full, (unsigned)v);
    r[7] = (int)__reduce_xor_sync(full, (unsigned)v);

    int* q = part + g * 5;
    if (lane < 20) {
        const unsigned sub = (1u << 20) - 1u;
        unsigned act = __activemask();
        int a = __reduce_add_sync(sub, v);
        unsigned b = __ballot_sync(sub, v > 0);
        unsigned mm = __match_any_sync(sub, v & 1);
        __syncwarp(sub);
        int x = __shfl_sync(sub, v, 19 - lane);
        q[0] = (int)act;
        q[1] = a;
        q[2] = (int)b;
        q[3] = (int)mm;
        q[4] = x;
    } else {
        for (int k = 0; k < 5; ++k) q[k] = -1;
    }
}
