// A templated block reduction launched with cudaLaunchKernel for two element types.
#include "check.h"
template <typename T, int BLOCK>
__global__ void blockSum(const T *in, T *out, int n) {
  __shared__ T s[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
template <typename T>
static bool run(int n) {
  const int B = 128, blocks = (n + B - 1) / B;
  T *h = new T[n], *r = new T[blocks], *in, *out;
  for (int i = 0; i < n; i++) h[i] = T(i % 17);
  CHECK(cudaMalloc(&in, n * sizeof(T))); CHECK(cudaMalloc(&out, blocks * sizeof(T)));
  CHECK(cudaMemcpy(in, h, n * sizeof(T), cudaMemcpyHostToDevice));
  void *args[] = { &in, &out, &n };
  CHECK(cudaLaunchKernel((const void *)blockSum<T, B>, dim3(blocks), dim3(B), args, 0, 0));
  CHECK(cudaMemcpy(r, out, blocks * sizeof(T), cudaMemcpyDeviceToHost));
  T total = 0;
  for (int b = 0; b < blocks; b++) total += r[b];
  T want = 0;
  for (int i = 0; i < n; i++) want += T(i % 17);
  printf("n=%d total=%g want=%g\n", n, (double)total, (double)want);
  return total == want;
}
int main() {
  bool ok = run<int>(1000);
  ok = run<double>(2500) && ok;
  return report(ok);
}
