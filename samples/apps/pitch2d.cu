// cudaMallocPitch, cudaMemcpy2D and cudaMemset2D: a 2D grid over pitched rows.
#include "check.h"
__global__ void addRowCol(int *m, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) { int *row = (int *)((char *)m + y * pitch); row[x] += 100 * y + x; }
}
int main() {
  const int w = 37, h = 19;
  int host[h][w];
  int *d; size_t pitch = 0;
  CHECK(cudaMallocPitch((void **)&d, &pitch, w * sizeof(int), h));
  CHECK(cudaMemset2D(d, pitch, 0, w * sizeof(int), h));
  for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) host[y][x] = 1;
  // copy only a 10-column window, the rest stays zero from the memset
  CHECK(cudaMemcpy2D(d, pitch, host, w * sizeof(int), 10 * sizeof(int), h, cudaMemcpyHostToDevice));
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  addRowCol<<<grid, block>>>(d, pitch, w, h);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy2D(host, w * sizeof(int), d, pitch, w * sizeof(int), h, cudaMemcpyDeviceToHost));
  bool ok = pitch >= w * sizeof(int) && pitch % 256 == 0;
  for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) if (host[y][x] != 100 * y + x + (x < 10 ? 1 : 0)) ok = false;
  printf("pitch=%zu host[18][36]=%d host[2][3]=%d\n", pitch, host[18][36], host[2][3]);
  CHECK(cudaFree(d));
  return report(ok);
}
