// nvcc-flags: -g
// Three kernels; the second writes out of bounds. The host's table idx[] sends each of gather's
// 8 threads to one element of a (n = 8 ints); idx[5] is 1 << 24, far past a's end and past every
// allocation, so thread 5 of launch 2 (gather<<<1, 8>>>) faults on its store (an illegal
// address: cudaErrorIllegalAddress at the next synchronizing call). Launch 1 (fill) is right:
// a[i] = 10 i. Launch 3 (twice) is never made: the host stops at the error.
// Whole-program sample (ptxdbg ./faulty): `info cuda launches` marks launch 2 with its fault,
// `continue` stops in launch 2 on thread 5's store, and travel works from there.
#include "../check.h"

__global__ void fill(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 10 * i;
}

__global__ void gather(int *a, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[idx[i]] = i;  // idx[5] is out of bounds
}

__global__ void twice(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= 2;
}

int main() {
  const int n = 8;
  int idx[n] = {7, 6, 5, 4, 3, 1 << 24, 1, 0};
  int *d_a, *d_idx;
  CHECK(cudaMalloc(&d_a, n * sizeof(int)));
  CHECK(cudaMalloc(&d_idx, sizeof idx));
  CHECK(cudaMemcpy(d_idx, idx, sizeof idx, cudaMemcpyHostToDevice));
  fill<<<1, 8>>>(d_a, n);  // launch 1
  gather<<<1, 8>>>(d_a, d_idx, n);  // launch 2
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    printf("gather failed: %s\n", cudaGetErrorString(err));
    return 1;
  }
  twice<<<1, 8>>>(d_a, n);  // not reached
  CHECK(cudaDeviceSynchronize());
  return 0;
}
