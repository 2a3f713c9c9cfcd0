// Float special values: fminf/fmaxf with NaN, copysignf, negation and fabsf of -0/NaN, inf arithmetic, subnormal add/mul, floor/ceil/trunc/rint/round to -0.0, fmodf, fdimf, nextafterf, and NaN-aware comparisons.
#include <cmath>

__global__ void floatSpecial(const float* xs, const float* ys, float* res, int* flags, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = xs[i], y = ys[i];
    float* r = res + i * 16;
    r[0] = fminf(x, y);
    r[1] = fmaxf(x, y);
    r[2] = copysignf(x, y);
    r[3] = fabsf(x);
    r[4] = -x;
    r[5] = x + y;
    r[6] = x * y;
    r[7] = x - y;
    r[8] = floorf(x);
    r[9] = ceilf(x);
    r[10] = truncf(x);
    r[11] = rintf(x);
    r[12] = roundf(x);
    r[13] = fmodf(x, y);
    r[14] = fdimf(x, y);
    r[15] = nextafterf(x, y);

    int f = 0;
    f |= isnan(x) ? 1 : 0;
    f |= isinf(x) ? 2 : 0;
    f |= isfinite(x) ? 4 : 0;
    f |= signbit(x) ? 8 : 0;
    f |= (x == y) ? 16 : 0;
    f |= (x < y) ? 32 : 0;
    f |= (x != y) ? 64 : 0;
    f |= (x >= y) ? 128 : 0;
    f |= !(x < y) ? 256 : 0;           // unordered compare: true when either is NaN
    flags[i] = f;
}
