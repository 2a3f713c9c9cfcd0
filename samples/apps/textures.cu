// CUDA arrays with texture and surface objects: point and linear sampling, clamping, and a
// surface written by the kernel and copied back from its array.
#include "check.h"
const int W = 8, H = 4;
__global__ void sample(cudaTextureObject_t point, cudaTextureObject_t linear, cudaSurfaceObject_t surf, float *out) {
  int x = threadIdx.x, y = threadIdx.y;
  float center = tex2D<float>(point, x + 0.5f, y + 0.5f);       // the texel itself
  float clamped = tex2D<float>(point, -3.0f, y + 0.5f);          // x clamps to column 0
  float between = tex2D<float>(linear, x + 1.0f, y + 0.5f);      // halfway to the next column
  int i = y * W + x;
  out[3 * i] = center; out[3 * i + 1] = clamped; out[3 * i + 2] = between;
  surf2Dwrite(center * 2.0f, surf, x * (int)sizeof(float), y);
}
static float v(int x, int y) { return x + 10.0f * y; }
int main() {
  float host[H][W];
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) host[y][x] = v(x, y);
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t in, outArr;
  CHECK(cudaMallocArray(&in, &desc, W, H));
  CHECK(cudaMallocArray(&outArr, &desc, W, H, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(in, 0, 0, host, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray; res.res.array.array = in;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint; td.readMode = cudaReadModeElementType;
  cudaTextureObject_t point, linear;
  CHECK(cudaCreateTextureObject(&point, &res, &td, nullptr));
  td.filterMode = cudaFilterModeLinear;
  CHECK(cudaCreateTextureObject(&linear, &res, &td, nullptr));
  cudaResourceDesc sres = {};
  sres.resType = cudaResourceTypeArray; sres.res.array.array = outArr;
  cudaSurfaceObject_t surf;
  CHECK(cudaCreateSurfaceObject(&surf, &sres));
  float *out;
  CHECK(cudaMalloc(&out, 3 * W * H * sizeof(float)));
  sample<<<1, dim3(W, H)>>>(point, linear, surf, out);
  CHECK(cudaGetLastError());
  float r[3 * W * H], doubled[H][W];
  CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy2DFromArray(doubled, W * sizeof(float), outArr, 0, 0, W * sizeof(float), H, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) {
    int i = y * W + x;
    // linear at x+1.0: the weights are 1/2 and 1/2 between columns x and x+1 (the last column clamps)
    float want = x + 1 < W ? (v(x, y) + v(x + 1, y)) / 2 : v(x, y);
    if (r[3 * i] != v(x, y) || r[3 * i + 1] != v(0, y) || r[3 * i + 2] != want || doubled[y][x] != 2 * v(x, y)) ok = false;
  }
  printf("texel (3,2)=%g clamped=%g between=%g surface=%g\n", r[3 * 19], r[3 * 19 + 1], r[3 * 19 + 2], doubled[2][3]);
  CHECK(cudaDestroyTextureObject(point)); CHECK(cudaDestroyTextureObject(linear)); CHECK(cudaDestroySurfaceObject(surf));
  CHECK(cudaFreeArray(in)); CHECK(cudaFreeArray(outArr)); CHECK(cudaFree(out));
  return report(ok);
}
