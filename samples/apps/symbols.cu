// __device__ and __constant__ variables, cudaMemcpyToSymbol/FromSymbol, cudaGetSymbolAddress, printf.
#include "check.h"
__device__ int counter = 5;
__constant__ float scale;
__global__ void vecAdd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = (a[i] + b[i]) * scale;
  if (i == 0) { atomicAdd(&counter, 1); printf("hello from thread %d\n", i); }
}
int main() {
  const int n = 1000;
  float a[n], b[n], c[n];
  for (int i = 0; i < n; i++) { a[i] = i; b[i] = 2 * i; }
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, n * 4)); CHECK(cudaMalloc(&db, n * 4)); CHECK(cudaMalloc(&dc, n * 4));
  CHECK(cudaMemcpy(da, a, n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b, n * 4, cudaMemcpyHostToDevice));
  float s = 0.5f;
  CHECK(cudaMemcpyToSymbol(scale, &s, 4));
  vecAdd<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(c, dc, n * 4, cudaMemcpyDeviceToHost));
  int cnt = 0;
  CHECK(cudaMemcpyFromSymbol(&cnt, counter, 4));
  // the symbol's address works as a plain device pointer too
  int *pc = nullptr, viaPtr = 0;
  CHECK(cudaGetSymbolAddress((void **)&pc, counter));
  CHECK(cudaMemcpy(&viaPtr, pc, 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) if (c[i] != 1.5f * i) bad++;
  printf("counter=%d via pointer=%d mismatches=%d\n", cnt, viaPtr, bad);
  return report(bad == 0 && cnt == 6 && viaPtr == 6);
}
