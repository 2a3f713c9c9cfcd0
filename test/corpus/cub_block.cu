// Parse-only: cub::BlockReduce, cub::BlockScan, cub::WarpScan, cub::WarpReduce and cub::BlockLoad/BlockStore (lots of inline asm, .weak .func template instances).
#include <cub/cub.cuh>
#include <cuda/functional>

template <int BLOCK>
__global__ void cubDemo(const int* in, int* out, float* fout, int* totals)
{
    using BlockReduceT = cub::BlockReduce<int, BLOCK>;
    using BlockScanT = cub::BlockScan<int, BLOCK>;
    using WarpScanT = cub::WarpScan<float>;
    using WarpReduceT = cub::WarpReduce<int>;
    using BlockLoadT = cub::BlockLoad<int, BLOCK, 4, cub::BLOCK_LOAD_TRANSPOSE>;
    using BlockStoreT = cub::BlockStore<int, BLOCK, 4, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename BlockReduceT::TempStorage reduce;
        typename BlockScanT::TempStorage scan;
        typename WarpScanT::TempStorage wscan[BLOCK / 32];
        typename WarpReduceT::TempStorage wred[BLOCK / 32];
        typename BlockLoadT::TempStorage load;
        typename BlockStoreT::TempStorage store;
    } tmp;

    int items[4];
    int base = blockIdx.x * BLOCK * 4;
    BlockLoadT(tmp.load).Load(in + base, items);
    __syncthreads();
    int total = BlockReduceT(tmp.reduce).Sum(items);
    __syncthreads();
    int mx = BlockReduceT(tmp.reduce).Reduce(items[0], cuda::maximum<int>());
    __syncthreads();
    BlockScanT(tmp.scan).ExclusiveSum(items, items);
    __syncthreads();
    BlockStoreT(tmp.store).Store(out + base, items);
    __syncthreads();
    int warp = threadIdx.x / 32;
    float f = (float)items[0] * 0.5f, fs;
    WarpScanT(tmp.wscan[warp]).InclusiveSum(f, fs);
    __syncthreads();
    int wsum = WarpReduceT(tmp.wred[warp]).Sum(items[1]);
    fout[blockIdx.x * BLOCK + threadIdx.x] = fs;
    if (threadIdx.x == 0) {
        totals[blockIdx.x * 3 + 0] = total;
        totals[blockIdx.x * 3 + 1] = mx;
        totals[blockIdx.x * 3 + 2] = wsum;
    }
}

template __global__ void cubDemo<128>(const int*, int*, float*, int*);
