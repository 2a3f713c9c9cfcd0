// Per-thread device malloc/free plus printf with many formats (%d %i %u %x %X %o %c %s %f %e %E %g %G, widths, precision, flags, long long, double), printed in a fixed order.
#include <cstdio>

__global__ void mallocPrintf(const int* in, int* out, int n)
{
    int t = threadIdx.x;
    int v = in[t];
    int len = 4 + (t % 5);
    int* p = (int*)malloc(len * sizeof(int));
    int ok = (p != nullptr);
    int sum = 0;
    if (p) {
        for (int k = 0; k < len; ++k) p[k] = v * (k + 1);
        for (int k = 0; k < len; ++k) sum += p[k];
        free(p);
    }
    out[t] = sum;
    out[n + t] = ok;

    for (int turn = 0; turn < blockDim.x; ++turn) {
        if (t == turn) {
            printf("t=%d v=%i u=%u x=%x X=%X o=%o |%5d|%-5d|%+d|% d|%05d| %c\n",
                   t, v, (unsigned)v, v, v, (unsigned)v & 0777u, sum, t, v, v, t * 7, 'a' + t);
        }
        __syncthreads();
    }
    if (t == 0) {
        float f = 3.14159265f;
        double d = -2.5e-7;
        long long big = -1234567890123LL;
        unsigned long long ubig = 18446744073709551615ULL;
        printf("%s|%10.4f|%-12.3e|%g|%G|%E|%.0f|%#x|%#o|%8.3s|\n", "str", f, d, 0.0001234, 1e20, 12345.678, 2.5, 255, 8, "abcdef");
        printf("%lld %llu %llx %5.2f%% %+.3e %c%c\n", big, ubig, (unsigned long long)big, 99.5, 1.0 / 3.0, 'O', 'K');
    }
}
