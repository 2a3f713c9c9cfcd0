// A value's trip through every kind of storage, for `origin`: in[] (global) -> register ->
// a local array in a callee (local memory) -> shared memory -> another thread -> out[] (global).
__device__ __noinline__ int twice(int v)
{
    int buf[4];
    buf[v & 3] = v * 2;
    return buf[v & 3];
}

__global__ void flow(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int a = in[t] + 1;
    int b = twice(a);
    s[t] = b;
    __syncthreads();
    out[t] = s[(t + 1) % 64];
}
