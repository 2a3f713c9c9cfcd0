// Device queries: count, properties, attributes, kernel attributes and occupancy, versions.
#include "check.h"
__global__ void k(float *x) { __shared__ float s[256]; s[threadIdx.x] = x[threadIdx.x]; __syncthreads(); x[threadIdx.x] = s[255 - threadIdx.x]; }
int main() {
  int count = 0, dev = -1, major = 0, minor = 0, warp = 0, rt = 0, drv = 0;
  CHECK(cudaGetDeviceCount(&count));
  CHECK(cudaSetDevice(0));
  CHECK(cudaGetDevice(&dev));
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  CHECK(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0));
  CHECK(cudaRuntimeGetVersion(&rt)); CHECK(cudaDriverGetVersion(&drv));
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, k));
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, 256, 0));
  int minGrid = 0, bestBlock = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &bestBlock, k, 0, 0));
  size_t freeB = 0, totalB = 0;
  CHECK(cudaMemGetInfo(&freeB, &totalB));
  printf("%d device(s); device %d: %s, sm_%d%d, warp %d, %d SMs, %zu bytes global\n", count, dev, p.name, p.major, p.minor, warp, p.multiProcessorCount, p.totalGlobalMem);
  printf("k: %zu bytes static shared, %d max threads; %d blocks of 256 per SM; best block %d\n", fa.sharedSizeBytes, fa.maxThreadsPerBlock, blocks, bestBlock);
  bool ok = count == 1 && dev == 0 && major == p.major && minor == p.minor && warp == 32 && fa.sharedSizeBytes == 1024 &&
            blocks >= 1 && bestBlock >= 32 && bestBlock <= 1024 && totalB >= freeB && rt >= 13000;
  return report(ok);
}
