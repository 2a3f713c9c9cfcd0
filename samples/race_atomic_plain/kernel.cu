// BUGGY: every thread counts itself with atomicAdd on a global counter, and thread 0 of each block then reads the counter with a plain load while other blocks may still be adding: an atomic/plain race on global memory.
__global__ void countThreads(int* counter, int* seen)
{
    atomicAdd(counter, 1);
    __syncthreads();
    if (threadIdx.x == 0) seen[blockIdx.x] = *counter;
}
