// Cooperative launch: grid.sync() between two phases that read other blocks' results.
#include "check.h"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void twoPhase(int *partial, int *out, int n) {
  cg::grid_group grid = cg::this_grid();
  int b = blockIdx.x;
  if (threadIdx.x == 0) {
    int s = 0;
    for (int i = b * n; i < (b + 1) * n; i++) s += i;
    partial[b] = s;
  }
  grid.sync();
  if (threadIdx.x == 0) {
    int total = 0;
    for (int k = 0; k < gridDim.x; k++) total += partial[k];
    out[b] = total;
  }
}
int main() {
  const int blocks = 4, n = 10;
  int *partial, *out;
  CHECK(cudaMalloc(&partial, blocks * sizeof(int)));
  CHECK(cudaMalloc(&out, blocks * sizeof(int)));
  int nn = n;
  void *args[] = { &partial, &out, &nn };
  CHECK(cudaLaunchCooperativeKernel((void *)twoPhase, blocks, 64, args, 0, 0));
  CHECK(cudaDeviceSynchronize());
  int h[blocks];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  const int want = (blocks * n) * (blocks * n - 1) / 2;  // 0 + 1 + ... + 39 = 780
  bool ok = true;
  for (int b = 0; b < blocks; b++) if (h[b] != want) ok = false;
  printf("every block saw total %d (want %d)\n", h[0], want);
  return report(ok);
}
