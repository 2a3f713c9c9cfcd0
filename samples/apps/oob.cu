// A kernel that writes one element past its buffer: the program gets cudaErrorIllegalAddress
// (sticky: later calls return it too), and ptxdbg reports where. The program checks that.
#include "check.h"
__global__ void fill(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = i;  // bug: <= writes out[n]
}
int main() {
  const int n = 256;
  int *d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  fill<<<2, 256>>>(d, n);
  cudaError_t e = cudaDeviceSynchronize();
  cudaError_t later = cudaMemset(d, 0, 4);
  printf("launch: %s; a later call: %s\n", cudaGetErrorName(e), cudaGetErrorName(later));
  return report(e == cudaErrorIllegalAddress && later == cudaErrorIllegalAddress);
}
