// A device-side assert: the program gets cudaErrorAssert and ptxdbg reports the failed condition.
#include "check.h"
#include <cassert>
__global__ void checkPositive(const int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] > 0);
}
int main() {
  int h[64];
  for (int i = 0; i < 64; i++) h[i] = i == 41 ? -1 : i + 1;
  int *d;
  CHECK(cudaMalloc(&d, sizeof h));
  CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  checkPositive<<<1, 64>>>(d, 64);
  cudaError_t e = cudaDeviceSynchronize();
  printf("launch: %s\n", cudaGetErrorName(e));
  return report(e == cudaErrorAssert);
}
