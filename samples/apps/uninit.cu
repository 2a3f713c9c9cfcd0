// A read of device memory the program never wrote: only the first half of `in` is copied, but
// the kernel reads all of it. The program checks the half it knows; `ptxdbg sanitize --tool
// initcheck` finds the read of in[64] by block 1, thread 0 (each block handles 64 elements).
#include "check.h"
__global__ void twice(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 2 * in[i];
}
int main() {
  const int n = 128, half = 64;
  int h[n], r[n];
  for (int i = 0; i < n; i++) h[i] = i + 1;
  int *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(int))); CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMemcpy(in, h, half * sizeof(int), cudaMemcpyHostToDevice));  // bug: half, not n
  twice<<<n / 64, 64>>>(in, out);
  CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < half; i++) if (r[i] != 2 * (i + 1)) ok = false;
  printf("r[0]=%d r[63]=%d\n", r[0], r[63]);
  return report(ok);
}
