// Dynamic shared memory (extern __shared__, size at launch): reverse each block's slice.
#include "check.h"
__global__ void reverseBlocks(int *v) {
  extern __shared__ int tile[];
  int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  tile[t] = v[base + t];
  __syncthreads();
  v[base + t] = tile[blockDim.x - 1 - t];
}
int main() {
  const int block = 96, blocks = 5, n = block * blocks;
  int h[n];
  for (int i = 0; i < n; i++) h[i] = i;
  int *d;
  CHECK(cudaMalloc(&d, sizeof h));
  CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  reverseBlocks<<<blocks, block, block * sizeof(int)>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int b = 0; b < blocks; b++) for (int t = 0; t < block; t++) if (h[b * block + t] != b * block + block - 1 - t) ok = false;
  printf("h[0]=%d h[95]=%d h[96]=%d\n", h[0], h[95], h[96]);
  CHECK(cudaFree(d));
  return report(ok);
}
