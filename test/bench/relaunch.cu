// npm run bench (test/bench/exec-bench.ts): ten launches of the same kernel, for the time of each
// launch under `ptxdbg exec --stats` (the first compiles and warms the code; later ones should
// not warm it again). Prints the sum of the output, which the bench does not check.
#include <cstdio>
__global__ void k(float *out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = out[i] + i;
  for (int j = 0; j < iters; j++) x = x * 1.0001f + 0.5f - (float)(j & 3);
  out[i] = x;
}
int main() {
  const int n = 4096;
  float *d, h[n];
  cudaMalloc(&d, n * sizeof(float));
  cudaMemset(d, 0, n * sizeof(float));
  for (int l = 0; l < 10; l++) k<<<n / 128, 128>>>(d, n, 200);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  double s = 0;
  for (int i = 0; i < n; i++) s += h[i];
  printf("sum %g\n", s);
  return cudaGetLastError() != cudaSuccess;
}
