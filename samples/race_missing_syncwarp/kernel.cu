// BUGGY: the classic unrolled last-warp reduction in shared memory through a volatile pointer but without __syncwarp() between the steps: lanes read partial sums that other lanes are writing (broken since independent thread scheduling).
__global__ void warpReduceRacy(const int* in, int* out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        volatile int* v = s;          // volatile keeps every step in memory, but does not order lanes
        v[t] += v[t + 32];
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
