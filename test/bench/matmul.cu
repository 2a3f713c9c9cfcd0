// npm run bench: a whole program of the kind users debug, a 256x256 tiled matrix multiply (16x16
// tiles in shared memory, as cuda-samples' matrixMul), checked against the host's product; its
// whole-process time under `ptxdbg exec` is the figure (exec-bench.ts).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#define N 256
#define TILE 16
__global__ void matmul(const float *a, const float *b, float *c, int n) {
  __shared__ float as[TILE][TILE], bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int t = 0; t < n / TILE; t++) {
    as[ty][tx] = a[row * n + t * TILE + tx];
    bs[ty][tx] = b[(t * TILE + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; k++) sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}
int main() {
  size_t bytes = N * N * sizeof(float);
  float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
  for (int i = 0; i < N * N; i++) { a[i] = (float)(i % 7) * 0.5f; b[i] = (float)(i % 5) - 2.0f; }
  float *da, *db, *dc;
  cudaMalloc(&da, bytes); cudaMalloc(&db, bytes); cudaMalloc(&dc, bytes);
  cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
  matmul<<<dim3(N / TILE, N / TILE), dim3(TILE, TILE)>>>(da, db, dc, N);
  cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < N && bad < 5; i++)
    for (int j = 0; j < N; j++) {
      float s = 0.0f;
      for (int k = 0; k < N; k++) s += a[i * N + k] * b[k * N + j];
      if (fabsf(s - c[i * N + j]) > 1e-3f * (fabsf(s) + 1.0f)) { if (bad++ < 5) printf("c[%d][%d] = %g, want %g\n", i, j, c[i * N + j], s); }
    }
  printf(bad ? "matmul: FAILED\n" : "matmul 256x256: PASSED\n");
  return bad ? 1 : 0;
}
