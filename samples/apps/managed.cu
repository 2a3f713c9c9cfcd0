// cudaMallocManaged and __managed__ variables: the host reads results without a copy.
#include "check.h"
__managed__ int total = 100;
__global__ void square(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { v[i] = v[i] * v[i]; atomicAdd(&total, 1); }
}
int main() {
  const int n = 300;
  int *v;
  CHECK(cudaMallocManaged(&v, n * sizeof(int)));
  for (int i = 0; i < n; i++) v[i] = i;
  square<<<3, 128>>>(v, n);
  CHECK(cudaDeviceSynchronize());
  square<<<3, 128>>>(v, 10);  // the second launch sees the first one's results
  CHECK(cudaDeviceSynchronize());
  bool ok = total == 100 + n + 10;
  for (int i = 0; i < n; i++) {
    long want = (long)i * i;
    if (i < 10) want = want * want;
    if (v[i] != want) ok = false;
  }
  printf("total=%d v[3]=%d v[20]=%d\n", total, v[3], v[20]);
  CHECK(cudaFree(v));
  return report(ok);
}
