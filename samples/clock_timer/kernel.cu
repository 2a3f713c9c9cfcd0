// Reads clock(), clock64(), %globaltimer and __nanosleep around a small loop; the raw times are stored but not checked, only the loop results (and completion) are.
__global__ void clockTimer(const int* in, int* out, long long* times, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long t0 = clock64();
    unsigned c0 = (unsigned)clock();
    unsigned long long g0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));

    int v = in[i];
    int acc = 0;
    for (int k = 0; k < (v & 15); ++k) acc += k * v;
    __nanosleep(100);

    long long t1 = clock64();
    unsigned c1 = (unsigned)clock();
    unsigned long long g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    out[i] = acc;
    times[i * 3 + 0] = t1 - t0;
    times[i * 3 + 1] = (long long)(c1 - c0);
    times[i * 3 + 2] = (long long)(g1 - g0);
}
