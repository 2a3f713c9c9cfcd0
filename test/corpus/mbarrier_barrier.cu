// Parse-only: cuda::barrier<thread_scope_block> (mbarrier.init / arrive / test_wait / try_wait), arrive_and_drop, and cuda::memcpy_async completing on a barrier (cp.async.mbarrier.arrive).
#pragma nv_diag_suppress static_var_with_dynamic_init
#include <cuda/barrier>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void barrierStages(const float* in, float* out, int n)
{
    using barrier_t = cuda::barrier<cuda::thread_scope_block>;
    __shared__ barrier_t bar;
    __shared__ float tile[256];
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();

    cuda::memcpy_async(block, tile, in, sizeof(float) * 256, bar);
    bar.arrive_and_wait();
    float v = tile[(threadIdx.x + 1) & 255];
    barrier_t::arrival_token tok = bar.arrive();
    bar.wait(std::move(tok));
    out[threadIdx.x] = v * 2.0f;
    if (threadIdx.x >= 128) {
        bar.arrive_and_drop();
        return;
    }
    bar.arrive_and_wait();
    out[256 + threadIdx.x] = tile[threadIdx.x];
}
