// Several kernels sharing device memory: produce, transform, reduce; device-to-device copies,
// cudaMemset, and blocks malloc'd in one launch and read in the next.
#include "check.h"
__device__ int *scratch;  // set by one launch, used by the next
__global__ void produce(int *v, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] = 3 * i + 1; }
__global__ void transform(const int *in, int *out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[n - 1 - i] - 1; }
__global__ void keep(int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) { scratch = (int *)malloc(n * sizeof(int)); for (int i = 0; i < n; i++) scratch[i] = i * i; }
}
__global__ void sumInto(const int *v, int n, unsigned long long *sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, (unsigned long long)(v[i] + scratch[i % 8]));
  __syncthreads();
}
__global__ void release() { if (threadIdx.x == 0) free(scratch); }
int main() {
  const int n = 777;
  int *a, *b, *c;
  unsigned long long *sum, h = 0;
  CHECK(cudaMalloc(&a, n * 4)); CHECK(cudaMalloc(&b, n * 4)); CHECK(cudaMalloc(&c, n * 4)); CHECK(cudaMalloc(&sum, 8));
  CHECK(cudaMemset(sum, 0, 8));
  CHECK(cudaMemset(c, 0xff, n * 4));
  produce<<<(n + 127) / 128, 128>>>(a, n);
  transform<<<(n + 127) / 128, 128>>>(a, b, n);
  CHECK(cudaMemcpy(c, b, n * 4, cudaMemcpyDeviceToDevice));
  keep<<<1, 1>>>(8);
  sumInto<<<(n + 127) / 128, 128>>>(c, n, sum);
  release<<<1, 1>>>();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(&h, sum, 8, cudaMemcpyDeviceToHost));
  // b[i] = a[n-1-i] - 1 = 3(n-1-i); the sum over i is 3 * n(n-1)/2; scratch adds sum_i (i%8)^2
  unsigned long long want = 3ULL * n * (n - 1) / 2, extra = 0;
  for (int i = 0; i < n; i++) extra += (i % 8) * (i % 8);
  printf("sum=%llu want=%llu\n", h, want + extra);
  return report(h == want + extra);
}
