// BUGGY: every block adds its partial sum to a global total with a plain load and store instead of atomicAdd, so blocks race on the same global word.
__global__ void sumBlocks(const int* in, int* partial, int* total)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    for (int stride = 32; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        int old = *total;
        *total = old + s[0];
    }
}
