// Grid-wide sum with the threadfence pattern: each block reduces its slice, thread 0 publishes the partial sum, __threadfence(), and the block that draws the last ticket (atomicInc) adds up every partial.
__device__ unsigned int ticket = 0;

__global__ void sumLastBlock(const int* in, int* partial, int* total)
{
    __shared__ int s[64];
    __shared__ bool isLast;
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    for (int stride = 32; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence();
        unsigned int prev = atomicInc(&ticket, gridDim.x);
        isLast = (prev == gridDim.x - 1);
    }
    __syncthreads();
    if (isLast && t == 0) {
        int sum = 0;
        for (int b = 0; b < gridDim.x; ++b) sum += partial[b];
        *total = sum;
    }
}
