// Per-lane spinlock (independent thread scheduling, sm_70+): every thread of a 64-thread block
// takes one global lock with atomicCAS, adds its value to a plain (non-atomic) counter, bumps a
// plain entry count, marks itself done, and releases the lock. Lanes of one warp contend: the
// lane that wins must run its critical section while the losers spin, so the scheduler has to
// switch paths. Lost updates would show up in counter/entries.
__global__ void spinlock(int* lock, int* counter, int* entries, int* done, const int* in)
{
    int t = threadIdx.x;
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    *(volatile int*)counter = *(volatile int*)counter + in[t];
    *(volatile int*)entries = *(volatile int*)entries + 1;
    done[t] = 1;
    __threadfence();
    atomicExch(lock, 0);
}
