// Records every thread's 3D ids (%tid, %ntid, %ctaid, %nctaid in x/y/z) and %laneid in a 3D grid of 3D blocks with a partial warp.
__device__ __forceinline__ unsigned laneId()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
    return r;
}

__device__ __forceinline__ unsigned warpId()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(r));
    return r;
}

__device__ __forceinline__ unsigned smId()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

__global__ void gridIds3d(unsigned* ids, unsigned* lanes, unsigned* hw)
{
    unsigned block = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
    unsigned t = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
    unsigned nt = blockDim.x * blockDim.y * blockDim.z;
    unsigned g = block * nt + t;

    unsigned* o = ids + g * 4;
    o[0] = threadIdx.x | (threadIdx.y << 8) | (threadIdx.z << 16);
    o[1] = blockDim.x | (blockDim.y << 8) | (blockDim.z << 16);
    o[2] = blockIdx.x | (blockIdx.y << 8) | (blockIdx.z << 16);
    o[3] = gridDim.x | (gridDim.y << 8) | (gridDim.z << 16);

    unsigned lane = laneId();
    unsigned active = __activemask();
    lanes[g] = lane | (__popc(active) << 8) | ((t >> 5) << 16) | ((lane == (t & 31)) << 24);

    hw[g * 2 + 0] = warpId();   // hardware-dependent: not compared
    hw[g * 2 + 1] = smId();     // hardware-dependent: not compared
}
