// BUGGY: each thread stages a value in shared memory and reads the value of the thread 32 places ahead (another warp) with no __syncthreads() in between: a read-after-write race.
__global__ void rotateByWarp(const int* in, int* out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = in[i] * 3;
    // BUG: a __syncthreads() is missing here
    int v = s[(t + 32) & 127];
    out[i] = v - in[i];
}
