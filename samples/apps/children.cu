// nvcc-flags: -rdc=true -lcudadevrt
// Dynamic parallelism: a root kernel splits an array recursively through child grids launched
// from device code (on device-created streams), leaves scale their part by their depth + 1, and a
// tail launch sums the result once every other child grid has finished.
#include "check.h"
__global__ void scale(int *v, int n, int k) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] *= k; }
__global__ void total(const int *v, int n, unsigned long long *sum) {
  unsigned long long s = 0;
  for (int i = 0; i < n; i++) s += v[i];
  *sum = s;
}
__global__ void split(int *v, int n, int depth) {
  if (n <= 64) { scale<<<(n + 31) / 32, 32>>>(v, n, depth + 1); return; }
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  split<<<1, 1, 0, s>>>(v, n / 2, depth + 1);
  split<<<1, 1, 0, s>>>(v + n / 2, n - n / 2, depth + 1);
  cudaStreamDestroy(s);
}
__global__ void root(int *v, int n, unsigned long long *sum, int *status) {
  split<<<1, 1>>>(v, n, 0);
  total<<<1, 1, 0, cudaStreamTailLaunch>>>(v, n, sum);
  *status = cudaGetLastError();
}
// the same recursion on the host: the factor each element is scaled by
static void expect(int *f, int n, int depth) {
  if (n <= 64) { for (int i = 0; i < n; i++) f[i] = depth + 1; return; }
  expect(f, n / 2, depth + 1);
  expect(f + n / 2, n - n / 2, depth + 1);
}
int main() {
  const int n = 1000;
  int h[n], f[n], *v, *status, hs = -1;
  unsigned long long *sum, hsum = 0, want = 0;
  for (int i = 0; i < n; i++) h[i] = i + 1;
  expect(f, n, 0);
  for (int i = 0; i < n; i++) want += (unsigned long long)(i + 1) * f[i];
  CHECK(cudaMalloc(&v, sizeof h)); CHECK(cudaMalloc(&sum, 8)); CHECK(cudaMalloc(&status, 4));
  CHECK(cudaMemcpy(v, h, sizeof h, cudaMemcpyHostToDevice));
  root<<<1, 1>>>(v, n, sum, status);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, v, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&hsum, sum, 8, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&hs, status, 4, cudaMemcpyDeviceToHost));
  bool ok = hs == 0 && hsum == want;
  for (int i = 0; i < n; i++) ok = ok && h[i] == (i + 1) * f[i];
  printf("sum %llu (expected %llu)\n", hsum, want);
  return report(ok);
}
