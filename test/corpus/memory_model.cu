// Parse-only: cuda::atomic_ref / cuda::atomic with memory orders and scopes (ld.acquire, st.release, atom.*.acq_rel.gpu, fence.sc/acq_rel), __threadfence variants, a spin lock with nanosleep, and system-scope atomics.
#include <cuda/atomic>

__device__ int g_flag;
__device__ int g_data[64];

__global__ void messagePassing(int* out, unsigned* lock, unsigned long long* counter)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> flag(g_flag);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        for (int k = 0; k < 64; ++k) g_data[k] = k * k;
        flag.store(1, cuda::memory_order_release);
    } else if (threadIdx.x == 0) {
        while (flag.load(cuda::memory_order_acquire) == 0) __nanosleep(32);
        out[blockIdx.x] = g_data[blockIdx.x & 63];
    }
    cuda::atomic_ref<unsigned, cuda::thread_scope_block> l(*lock);
    unsigned expected = 0;
    while (!l.compare_exchange_weak(expected, 1u, cuda::memory_order_acquire, cuda::memory_order_relaxed)) {
        expected = 0;
        __nanosleep(16);
    }
    out[64 + blockIdx.x] += 1;
    l.store(0u, cuda::memory_order_release);

    cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> c(*counter);
    c.fetch_add(1ull, cuda::memory_order_relaxed);
    c.fetch_or(2ull, cuda::memory_order_acq_rel);
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
    __threadfence_block();
    __threadfence();
    __threadfence_system();
    atomicAdd_system((int*)&out[200], 1);
    atomicAdd_block(&out[201], 1);
}
