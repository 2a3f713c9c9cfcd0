// Per-block sums where warp 0 finishes the reduction in shared memory with __syncwarp() between every write and read: the race-free form of the classic unrolled warp reduction.
__global__ void warpReduceSynced(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        int v = s[t] + s[t + 32];
        for (int off = 16; off > 0; off >>= 1) {
            s[t] = v;
            __syncwarp();
            v += s[t + off];
            __syncwarp();
        }
        if (t == 0) out[blockIdx.x] = v;
    }
}
