// The most common CUDA shape: an early `return` for out-of-range threads, then __syncthreads().
// Threads that returned must not be waited for at the barrier (they have exited), so the block of
// 64 threads with n = 40 completes; each thread reads its right neighbour's value from shared.
__global__ void earlyReturnSync(const int* in, int* out, int n)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t >= n) return;
    s[t] = in[t] * 2;
    __syncthreads();
    out[t] = s[(t + 1) % n];
}
