// Streams, async copies and events: work split over two streams, timed with events.
#include "check.h"
__global__ void scale(float *x, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= f;
}
int main() {
  const int n = 4096, half = n / 2;
  float *h, *d;
  CHECK(cudaMallocHost(&h, n * sizeof(float)));
  for (int i = 0; i < n; i++) h[i] = i;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  cudaStream_t s[2];
  cudaEvent_t start, stop;
  CHECK(cudaStreamCreate(&s[0])); CHECK(cudaStreamCreateWithFlags(&s[1], cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&start)); CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, 0));
  for (int k = 0; k < 2; k++) {
    CHECK(cudaMemcpyAsync(d + k * half, h + k * half, half * sizeof(float), cudaMemcpyHostToDevice, s[k]));
    scale<<<half / 256, 256, 0, s[k]>>>(d + k * half, k ? 3.0f : 2.0f, half);
    CHECK(cudaMemcpyAsync(h + k * half, d + k * half, half * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
  }
  CHECK(cudaEventRecord(stop, 0));
  CHECK(cudaStreamSynchronize(s[0])); CHECK(cudaStreamSynchronize(s[1]));
  CHECK(cudaEventSynchronize(stop));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  bool ok = ms >= 0;
  for (int i = 0; i < n; i++) if (h[i] != (float)i * (i < half ? 2 : 3)) ok = false;
  printf("h[1]=%g h[%d]=%g elapsed %s\n", h[1], half + 1, h[half + 1], ms >= 0 ? "measured" : "missing");
  CHECK(cudaStreamDestroy(s[0])); CHECK(cudaStreamDestroy(s[1]));
  CHECK(cudaEventDestroy(start)); CHECK(cudaEventDestroy(stop));
  CHECK(cudaFreeHost(h)); CHECK(cudaFree(d));
  return report(ok);
}
