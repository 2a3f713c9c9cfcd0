// SAXPY: y[i] = a * x[i] + y[i] for n floats, via a __device__ helper call (the README's demo sample).
__device__ __noinline__ float axpy(float a, float x, float y)
{
    float ax = a * x;        // exact for this sample's inputs (x is a multiple of 1/8)
    float r = ax + y;        // one rounding, so fma contraction gives the same bits
    return r;
}

__global__ void saxpy(int n, float a, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float xi = x[i];
        float yi = y[i];
        y[i] = axpy(a, xi, yi);
    }
}
