// BUGGY: a __syncthreads() inside a branch that only threads 0-15 of the 64-thread block take (barrier divergence: undefined behaviour).
__global__ void partialSync(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t < 16) {
        __syncthreads();
        s[t] += s[t + 16];
    }
    __syncthreads();
    out[t] = s[t];
}
