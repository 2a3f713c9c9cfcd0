// nvcc-flags: -g -rdc=true rdc_other.cu
// Two translation units built with -rdc=true (nvcc -rdc=true rdc_main.cu rdc_other.cu), kernels
// in both: fill (this unit) writes v[i] = i, bump (rdc_other.cu) adds twice_plus_one(v[i]) from a
// __device__ function of its own unit, so v[i] = i + (2i + 1) = 3i + 1.
#include "../check.h"

__global__ void bump(int *v, int n);  // rdc_other.cu

__global__ void fill(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = i;
}

int main() {
  const int n = 64;
  int h[n], *v;
  CHECK(cudaMalloc(&v, sizeof h));
  fill<<<2, 32>>>(v, n);  // launch 1
  bump<<<1, 64>>>(v, n);  // launch 2
  CHECK(cudaMemcpy(h, v, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < n; i++) if (h[i] != 3 * i + 1) { printf("v[%d] = %d, expected %d\n", i, h[i], 3 * i + 1); ok = false; }
  CHECK(cudaFree(v));
  return report(ok);
}
