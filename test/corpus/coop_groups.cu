// Parse-only: cooperative_groups: thread_block, tiled_partition (static and dynamic), tile shuffles/ballot/any, cg::reduce / cg::inclusive_scan, coalesced_threads, labeled_partition, and grid_group::sync.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

__global__ void groupsDemo(const int* in, int* out, int* blockSums)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(warp);
    int v = in[block.group_index().x * block.size() + block.thread_rank()];

    int wsum = cg::reduce(warp, v, cg::plus<int>());
    int tmax = cg::reduce(tile8, v, cg::greater<int>());
    int scan = cg::inclusive_scan(warp, v);
    int up = warp.shfl_up(v, 1);
    unsigned b = warp.ballot(v > 0);
    bool any = tile8.any(v < 0);

    if (v & 1) {
        cg::coalesced_group odd = cg::coalesced_threads();
        int r = odd.thread_rank();
        v += odd.shfl(r, 0);
        cg::coalesced_group byKey = cg::labeled_partition(odd, v & 3);
        v += byKey.size();
    }
    cg::thread_group dyn = cg::tiled_partition(block, 16);
    dyn.sync();
    block.sync();
    out[block.group_index().x * block.size() + block.thread_rank()] = wsum + tmax + scan + up + (int)b + any + v;
    if (block.thread_rank() == 0) atomicAdd(&blockSums[0], wsum);
}

__global__ void gridSync(int* data, int n)
{
    cg::grid_group grid = cg::this_grid();
    int i = grid.thread_rank();
    if (i < n) data[i] += 1;
    grid.sync();
    if (i < n) data[i] += data[(i + 1) % n];
}
