// Predicate barriers (__syncthreads_count/_and/_or) and named barriers via inline PTX: warps 0-1 produce (bar.sync 2,64 then bar.arrive 1,128), warps 2-3 consume after bar.sync 1,128.
__global__ void barriersNamed(const int* in, int* out, int* counts)
{
    __shared__ int buf[64];
    __shared__ int buf2[64];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    int v = in[g];

    int cnt = __syncthreads_count(v > 0);
    int all = __syncthreads_and(v > -90);
    int any = __syncthreads_or(v > 95);
    if (t == 0) {
        counts[blockIdx.x * 3 + 0] = cnt;
        counts[blockIdx.x * 3 + 1] = all;
        counts[blockIdx.x * 3 + 2] = any;
    }

    if (t < 64) {                                   // producers: warps 0 and 1
        buf[t] = v * 2;
        asm volatile("bar.sync 2, 64;" ::: "memory");      // only the 64 producers
        buf2[t] = buf[63 - t] + cnt;
        asm volatile("bar.arrive 1, 128;" ::: "memory");   // signal the consumers, do not wait
        out[g] = buf2[t] - v;
    } else {                                        // consumers: warps 2 and 3
        asm volatile("bar.sync 1, 128;" ::: "memory");     // waits for the producers' arrive
        out[g] = buf2[t - 64] * 10 + buf[127 - t] + all * 1000 + any * 10000;
    }
}
