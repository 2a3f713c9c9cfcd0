// Local memory: a per-thread array with dynamic indices, a struct kept in local memory, and pointers to both passed to __noinline__ functions that fill, scan and rotate them.
struct Acc {
    int count;
    int sum;
    unsigned long long prod;
    short mn, mx;
};

__device__ __noinline__ void fill(int* buf, int len, int seed)
{
    for (int k = 0; k < len; ++k) {
        buf[k] = (seed * (k + 3) + 7 * k) % 101 - 50;
    }
}

__device__ __noinline__ void accumulate(Acc* acc, const int* buf, int len)
{
    for (int k = 0; k < len; ++k) {
        int v = buf[k];
        acc->count += (v > 0);
        acc->sum += v;
        acc->prod *= (unsigned long long)(long long)(v | 1);
        if (v < acc->mn) acc->mn = (short)v;
        if (v > acc->mx) acc->mx = (short)v;
    }
}

__device__ __noinline__ int rotateSum(int* buf, int len, int by)
{
    int tmp[24];
    for (int k = 0; k < len; ++k) tmp[(k + by) % len] = buf[k];
    int s = 0;
    for (int k = 0; k < len; ++k) {
        buf[k] = tmp[k];
        s += tmp[k] * (k + 1);
    }
    return s;
}

__global__ void localMem(const int* seeds, const int* lens, int* out, unsigned long long* outProd, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int buf[24];
    Acc acc = {0, 0, 1ull, 32767, -32768};
    int seed = seeds[i];
    int len = lens[i];

    fill(buf, len, seed);
    buf[(seed & 0x7fffffff) % len] += 1000;      // store with a dynamic index
    accumulate(&acc, buf, len);
    int r = rotateSum(buf, len, (seed & 0xff) % len);

    int* o = out + i * 6;
    o[0] = acc.count;
    o[1] = acc.sum;
    o[2] = acc.mn;
    o[3] = acc.mx;
    o[4] = r;
    o[5] = buf[(i * 7) % len];                   // load with a dynamic index
    outProd[i] = acc.prod;
}
