// BUGGY: within one warp, lane i reads the shared slot that lane i+1 has just written, without __syncwarp(): an intra-warp race under independent thread scheduling.
__global__ void neighbourInWarp(const int* in, int* out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    s[lane] = in[lane] * 3;
    // BUG: a __syncwarp() is missing here
    int v = s[(lane + 1) & 31];
    out[lane] = v + lane;
}
