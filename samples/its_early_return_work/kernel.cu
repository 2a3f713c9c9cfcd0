// Early return after work, then __syncthreads(): threads t >= n write a marker and return; the
// others pass the barrier and read a neighbour's value from shared memory. The returned threads
// have exited, so bar.sync waits only for the 40 live ones. Their warp (threads 32..63) diverges
// with work on both paths, so the barrier path may run first and must not wait for lanes of its
// own warp that are on the other path on their way to exit.
__global__ void earlyReturnWork(const int* in, int* out, int n)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t >= n) {
        out[t] = -1;
        return;
    }
    s[t] = in[t] * 3;
    __syncthreads();
    out[t] = s[(t + 1) % n] + 1;
}
