// BUGGY: each thread stages in[i] into shared memory with an asynchronous copy, then reads another warp's slot after __syncthreads() but without waiting for the copies (__pipeline_wait_prior(0) is missing before the barrier): the copy may land after the read, a read-after-write race.
#include <cuda_pipeline.h>
__global__ void stageAsync(const int* in, int* out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    __pipeline_memcpy_async(&s[t], &in[i], sizeof(int));
    __pipeline_commit();
    // BUG: __pipeline_wait_prior(0) belongs here, before the barrier
    __syncthreads();
    int v = s[(t + 32) & 127];
    __pipeline_wait_prior(0);
    out[i] = v - in[i];
}
