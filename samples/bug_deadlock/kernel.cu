// BUGGY: each warp waits at its own named barrier (id 1 + warp index) that expects 64 threads, but only that warp's 32 threads ever arrive there, so the block deadlocks.
__global__ void pairedBarrier(const int* in, int* data)
{
    int t = threadIdx.x;
    unsigned id = 1 + (t >> 5);
    data[t] = in[t] * 2;
    asm volatile("bar.sync %0, 64;" :: "r"(id) : "memory");
    data[t] += data[t ^ 32];
}
