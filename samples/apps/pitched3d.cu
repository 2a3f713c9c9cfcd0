// cudaMalloc3D and cudaMemcpy3D between a host volume and a pitched device volume.
#include "check.h"
__global__ void mark(cudaPitchedPtr v, int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d) {
    char *slice = (char *)v.ptr + z * v.pitch * h;
    float *row = (float *)(slice + y * v.pitch);
    row[x] = row[x] * 2 + z;
  }
}
int main() {
  const int w = 20, h = 6, d = 3;
  float host[d][h][w];
  for (int z = 0; z < d; z++) for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) host[z][y][x] = x + 100 * y;
  cudaExtent ext = make_cudaExtent(w * sizeof(float), h, d);
  cudaPitchedPtr dv;
  CHECK(cudaMalloc3D(&dv, ext));
  cudaMemcpy3DParms up = {0};
  up.srcPtr = make_cudaPitchedPtr(host, w * sizeof(float), w, h);
  up.dstPtr = dv; up.extent = ext; up.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&up));
  mark<<<dim3(h, d), w>>>(dv, w, h, d);
  CHECK(cudaGetLastError());
  cudaMemcpy3DParms down = {0};
  down.srcPtr = dv; down.dstPtr = make_cudaPitchedPtr(host, w * sizeof(float), w, h); down.extent = ext; down.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&down));
  bool ok = true;
  for (int z = 0; z < d; z++) for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) if (host[z][y][x] != 2 * (x + 100 * y) + z) ok = false;
  printf("pitch=%zu host[2][5][19]=%g\n", dv.pitch, host[2][5][19]);
  return report(ok);
}
