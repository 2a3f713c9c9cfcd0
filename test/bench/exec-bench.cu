// npm run bench: the cost the replacement runtime adds per launch (an empty kernel, so the time
// is the runtime's and ptxdbg's per-launch work), the same for a kernel of some hundred PTX
// instructions (its code is compiled once per program and layout, not per launch), and memcpy
// throughput between the program and ptxdbg; and the cost of a launch while 1 GiB of pinned host
// memory is mapped (the host and the kernel each write one word of it per launch).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
__global__ void empty() {}
__device__ float f(float x, int k) {
  for (int i = 0; i < k; i++) x = sinf(x) * 1.5f + cosf(x * 0.5f) + expf(-x * x) + sqrtf(fabsf(x) + 1.0f);
  return x;
}
__global__ void poke(int *p, int i) { p[i] = p[i] + 1; }
__global__ void work(float *out, int k) { int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = f(out[i] + i, k); }
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main() {
  const int launches = 2000;
  empty<<<1, 1>>>();
  cudaDeviceSynchronize();
  double t0 = now();
  for (int i = 0; i < launches; i++) empty<<<1, 1>>>();
  cudaDeviceSynchronize();
  double perLaunch = (now() - t0) / launches;
  float *w;
  cudaMalloc(&w, 64 * sizeof(float));
  cudaMemset(w, 0, 64 * sizeof(float));
  work<<<2, 32>>>(w, 1);
  cudaDeviceSynchronize();
  t0 = now();
  for (int i = 0; i < launches / 10; i++) work<<<2, 32>>>(w, 1);
  cudaDeviceSynchronize();
  double perWork = (now() - t0) / (launches / 10);
  const size_t bytes = 64u << 20;
  char *h = (char *)malloc(bytes), *d;
  memset(h, 7, bytes);
  cudaMalloc(&d, bytes);
  t0 = now();
  for (int i = 0; i < 4; i++) cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
  double up = 4 * bytes / (now() - t0);
  t0 = now();
  for (int i = 0; i < 4; i++) cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
  double down = 4 * bytes / (now() - t0);
  printf("per launch (empty kernel): %.3f ms\nper launch (sin/cos/exp kernel, 2 x 32 threads): %.3f ms\nmemcpy host->device: %.2f GB/s\nmemcpy device->host: %.2f GB/s\n", perLaunch * 1e3, perWork * 1e3, up / 1e9, down / 1e9);
  fflush(stdout);
  const size_t pinnedBytes = (size_t)1 << 30;
  int *pinned;
  if (cudaMallocHost(&pinned, pinnedBytes) != cudaSuccess) { printf("cudaMallocHost of 1 GiB failed\n"); return 1; }
  const int mapped = 5;
  poke<<<1, 1>>>(pinned, 0);
  cudaDeviceSynchronize();
  t0 = now();
  for (int i = 1; i <= mapped; i++) {
    pinned[i * 4096] = i; // a host write on another page each time
    poke<<<1, 1>>>(pinned, i * 4096);
    cudaDeviceSynchronize();
  }
  double perMapped = (now() - t0) / mapped;
  int ok = 1;
  for (int i = 1; i <= mapped; i++) ok &= pinned[i * 4096] == i + 1;
  printf("per launch with 1 GiB pinned (cudaMallocHost; host and kernel write a word each): %.3f ms%s\n", perMapped * 1e3, ok ? "" : " (WRONG RESULT)");
  cudaFreeHost(pinned);
  return cudaGetLastError() != cudaSuccess;
}
