// BUGGY: an in-place shared-memory update where each thread reads its left neighbour and then overwrites its own slot without a barrier in between: a write-after-read race.
__global__ void smoothInPlace(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = in[i];
    __syncthreads();
    int left = s[(t + 63) & 63];
    // BUG: a __syncthreads() is missing here
    s[t] = (left + s[t]) / 2;
    __syncthreads();
    out[i] = s[t];
}
