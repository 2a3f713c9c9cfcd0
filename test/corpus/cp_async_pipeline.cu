// Parse-only: asynchronous global->shared copies: __pipeline_memcpy_async / commit / wait_prior (cp.async.ca/cg, commit_group, wait_group) in a double-buffered loop, and cuda::memcpy_async with cuda::pipeline.
#include <cuda_pipeline.h>
#include <cuda/pipeline>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void doubleBuffered(const float4* in, float4* out, int tiles)
{
    __shared__ float4 buf[2][128];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&buf[0][t], &in[t], sizeof(float4));
    __pipeline_commit();
    for (int k = 0; k < tiles; ++k) {
        if (k + 1 < tiles) {
            __pipeline_memcpy_async(&buf[(k + 1) & 1][t], &in[(k + 1) * 128 + t], sizeof(float4));
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        float4 v = buf[k & 1][(t + 1) & 127];
        out[k * 128 + t] = make_float4(v.w, v.z, v.y, v.x);
        __syncthreads();
    }
}

__global__ void pipelineCopy(const int* in, int* out, int n)
{
    __shared__ int smem[2][256];
    auto block = cg::this_thread_block();
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    for (int base = 0; base < n; base += 256) {
        pipe.producer_acquire();
        cuda::memcpy_async(&smem[0][threadIdx.x], &in[base + threadIdx.x], sizeof(int), pipe);
        pipe.producer_commit();
        cuda::pipeline_consumer_wait_prior<0>(pipe);
        block.sync();
        out[base + threadIdx.x] = smem[0][255 - threadIdx.x] * 2;
        pipe.consumer_release();
        block.sync();
    }
}
