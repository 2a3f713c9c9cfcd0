// Inlined device functions, for the debugger's inline frames (bt, up, finish, step/next, break).
// At -O3 -lineinfo nvcc inlines every helper below; at -G it inlines the __forceinline__ ones.
__device__ __forceinline__ int gid()
{
    return blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ float sq(float v)
{
    return v * v;
}

__device__ __forceinline__ float norm2(float a, float b)
{
    float s = sq(a);
    s += sq(b);
    return s;
}

__device__ float scale(float v, int k)
{
    float w = v * (float)k;
    return w + 0.5f;
}

__global__ void inline_frames(const float* x, const float* y, float* out, int n)
{
    int i = gid();
    if (i < n) {
        float a = x[i];
        float b = y[i];
        // a comment line: no code
        float r = norm2(a, b);
        float s = scale(r, 3);
        out[i] = s;
    }
}
