// Dynamic shared memory (extern __shared__, carved into a float and an int region) next to a static __shared__ histogram: per-block reversal, neighbour sums and a 16-bin histogram.
__global__ void dynShared(const float* in, float* out, int* hists, int n)
{
    extern __shared__ float dyn[];               // blockDim.x floats, then blockDim.x ints
    __shared__ int hist[16];
    int* keys = (int*)&dyn[blockDim.x];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;

    if (t < 16) hist[t] = 0;
    float v = (i < n) ? in[i] : 0.0f;
    dyn[t] = v;
    keys[t] = (int)v & 15;
    __syncthreads();

    atomicAdd(&hist[keys[blockDim.x - 1 - t]], 1);
    float rev = dyn[blockDim.x - 1 - t];
    float nb = dyn[(t + 1) % blockDim.x] + dyn[(t + blockDim.x - 1) % blockDim.x];
    __syncthreads();

    if (i < n) {
        out[i * 2 + 0] = rev;
        out[i * 2 + 1] = nb;
    }
    if (t < 16) hists[blockIdx.x * 16 + t] = hist[t];
}
