// 1,000 launches (the whole-program recording's bench, npm run bench): two kernels taking turns
// on one array of 1,024 ints, the host copying it in once and out once. Round r (0..999) runs
// add_round (v[i] += r) when r is even and xor_round (v[i] ^= r) when it is odd; the host
// repeats the rounds on its copy and compares.
#include "../check.h"

__global__ void add_round(int *v, int n, int r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += r;
}

__global__ void xor_round(int *v, int n, int r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] ^= r;
}

int main() {
  const int n = 1024, rounds = 1000;
  static int h[n], want[n];
  for (int i = 0; i < n; i++) h[i] = want[i] = i;
  int *v;
  CHECK(cudaMalloc(&v, sizeof h));
  CHECK(cudaMemcpy(v, h, sizeof h, cudaMemcpyHostToDevice));
  for (int r = 0; r < rounds; r++) {
    if (r % 2 == 0) add_round<<<n / 128, 128>>>(v, n, r);
    else xor_round<<<n / 128, 128>>>(v, n, r);
    for (int i = 0; i < n; i++) want[i] = r % 2 == 0 ? want[i] + r : want[i] ^ r;
  }
  CHECK(cudaMemcpy(h, v, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < n; i++) if (h[i] != want[i]) { printf("v[%d] = %d, expected %d\n", i, h[i], want[i]); ok = false; break; }
  CHECK(cudaFree(v));
  return report(ok);
}
