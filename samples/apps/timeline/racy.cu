// nvcc-flags: -g
// Three kernels; only the second has a data race: every thread adds its a[i] into one global
// counter with a plain `+=` (a load and a store of *total, not atomicAdd), so threads of its two
// warps read and write *total unordered. The first and third write only their own a[i].
#include "../check.h"

__global__ void fill(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i + 1;
}

__global__ void count(const int *a, int *total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) *total += a[i];  // RACE: should be atomicAdd(total, a[i])
}

__global__ void twice(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= 2;
}

int main() {
  const int n = 64;
  int *d_a, *d_total, total = 0;
  CHECK(cudaMalloc(&d_a, n * sizeof(int)));
  CHECK(cudaMalloc(&d_total, sizeof(int)));
  CHECK(cudaMemset(d_total, 0, sizeof(int)));
  fill<<<1, n>>>(d_a, n);  // launch 1
  count<<<1, n>>>(d_a, d_total, n);  // launch 2
  twice<<<1, n>>>(d_a, n);  // launch 3
  CHECK(cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost));
  printf("total = %d (%d with atomicAdd)\n", total, n * (n + 1) / 2);
  CHECK(cudaFree(d_a)); CHECK(cudaFree(d_total));
  return report(total == n * (n + 1) / 2);
}
