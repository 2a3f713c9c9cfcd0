// Atomics on shared and global memory with order-independent results: CAS loop, exch, inc/dec wrap, min/max s32/u32/s64/u64, and/or/xor, add u32/u64/f32/f64, and red.global.add/or via inline PTX.
#include <climits>

__global__ void atomicsExt(const int* vals, int* gInt, unsigned* gU, long long* gLL,
                           unsigned long long* gULL, float* gF, double* gD, int* slots, int* olds,
                           unsigned long long* blockRes, int n)
{
    __shared__ int sInt[7];
    __shared__ unsigned sU[4];
    __shared__ long long sLL[2];
    __shared__ unsigned long long sULL[2];
    __shared__ float sF;
    __shared__ double sD;

    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0) {
        sInt[0] = 0;        // CAS-loop sum
        sInt[1] = INT_MAX;  // min
        sInt[2] = INT_MIN;  // max
        sInt[3] = -1;       // and
        sInt[4] = 0;        // or
        sInt[5] = 0;        // xor
        sInt[6] = 0;        // add
        sU[0] = 0;          // inc, wraps at 17
        sU[1] = 5;          // dec, wraps at 9
        sU[2] = UINT_MAX;   // min
        sU[3] = 0;          // max
        sLL[0] = LLONG_MAX;
        sLL[1] = LLONG_MIN;
        sULL[0] = ULLONG_MAX;
        sULL[1] = 0;
        sF = 0.0f;
        sD = 0.0;
    }
    __syncthreads();

    if (i < n) {
        int v = vals[i];
        long long w = (long long)v * 1000003LL;
        unsigned long long uw = (unsigned long long)w;

        int old = atomicAdd(&sInt[0], 0), assumed;      // atomic read: no plain load racing with the CASes
        do {
            assumed = old;
            old = atomicCAS(&sInt[0], assumed, assumed + (v & 7));
        } while (old != assumed);
        atomicMin(&sInt[1], v);
        atomicMax(&sInt[2], v);
        atomicAnd(&sInt[3], v | 0x0f0f0f0f);
        atomicOr(&sInt[4], 1 << (v & 31));
        atomicXor(&sInt[5], v);
        atomicAdd(&sInt[6], v);
        atomicInc(&sU[0], 17u);
        atomicDec(&sU[1], 9u);
        atomicMin(&sU[2], (unsigned)v);
        atomicMax(&sU[3], (unsigned)v);
        atomicMin(&sLL[0], w);
        atomicMax(&sLL[1], w);
        atomicMin(&sULL[0], uw);
        atomicMax(&sULL[1], uw);
        atomicAdd(&sF, (float)(v & 255) * 0.25f);
        atomicAdd(&sD, (double)v * 0.5);

        atomicMin(&gInt[0], v);
        atomicMax(&gInt[1], v);
        atomicAnd(&gInt[2], v | 0x00ff00ff);
        atomicOr(&gInt[3], 1 << ((v >> 3) & 31));
        atomicXor(&gInt[4], v);
        atomicAdd(&gInt[5], v);
        atomicInc(&gU[0], 1000u);
        atomicDec(&gU[1], 1000u);
        atomicMin(&gU[2], (unsigned)v);
        atomicMax(&gU[3], (unsigned)v);
        asm volatile("{ .reg .u64 ga; cvta.to.global.u64 ga, %0; red.global.add.u32 [ga], %1; }" :: "l"(&gU[4]), "r"(1u) : "memory");
        asm volatile("{ .reg .u64 ga; cvta.to.global.u64 ga, %0; red.global.or.b32 [ga], %1; }" :: "l"(&gU[5]), "r"(1u << (i & 31)) : "memory");
        atomicMin(&gLL[0], w);
        atomicMax(&gLL[1], w);
        atomicMin(&gULL[0], uw);
        atomicMax(&gULL[1], uw);
        atomicAdd(&gULL[2], uw);
        atomicAdd(gF, (float)(v & 1023) * 0.125f);
        atomicAdd(gD, (double)v * 0.25);

        olds[i] = atomicExch(&slots[i], v);     // one thread per slot: old value is the input
    }
    __syncthreads();

    if (t == 0) {
        unsigned long long* r = blockRes + blockIdx.x * 16;
        for (int k = 0; k < 7; ++k) r[k] = (unsigned long long)(long long)sInt[k];
        for (int k = 0; k < 4; ++k) r[7 + k] = sU[k];
        r[11] = (unsigned long long)sLL[0];
        r[12] = (unsigned long long)sLL[1];
        r[13] = sULL[0] ^ sULL[1];
        r[14] = __float_as_uint(sF);
        r[15] = (unsigned long long)__double_as_longlong(sD);
    }
}
