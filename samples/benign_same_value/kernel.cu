// Sets a per-block shared flag when any input is positive: many threads store the same value 1 to one shared word without synchronisation (a benign race), then the flag is published after a barrier.
__global__ void anyPositive(const int* in, int* out, int n)
{
    __shared__ int flag;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0) flag = 0;
    __syncthreads();
    if (i < n && in[i] > 0) flag = 1;
    __syncthreads();
    if (t == 0) out[blockIdx.x] = flag;
}
