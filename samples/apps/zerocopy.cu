// Mapped pinned host memory (cudaHostAlloc + cudaHostGetDevicePointer): the kernel writes host
// memory directly; the host sees it after synchronizing.
#include "check.h"
__global__ void iota(int *v, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] = 7 * i; }
int main() {
  const int n = 500;
  int *h, *d;
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  CHECK(cudaHostAlloc(&h, n * sizeof(int), cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer((void **)&d, h, 0));
  iota<<<4, 128>>>(d, n);
  CHECK(cudaDeviceSynchronize());
  bool ok = true;
  for (int i = 0; i < n; i++) if (h[i] != 7 * i) ok = false;
  cudaPointerAttributes at;
  CHECK(cudaPointerGetAttributes(&at, h));
  printf("h[499]=%d\n", h[499]);
  CHECK(cudaFreeHost(h));
  return report(ok);
}
