// nvcc-flags: -g
// Three kernels in a row; the host's final check fails. The bug is in the FIRST kernel: prefix
// sums in[0..i-1] where the host expects in[0..i] (the loop stops one element early); scale and
// finish are right and only pass the bad value on. With in[i] = i + 1 (n = 8):
//   prefix (wrong):  a[i] = i(i+1)/2      = 0 1 3 6 10 15 21 28   (right: (i+1)(i+2)/2)
//   scale:           b[i] = 2 a[i]
//   finish:          out[i] = b[i] + 1     (the host expects (i+1)(i+2) + 1)
// Whole-program debugging sample (ptxdbg ./offbyone): from the host's wrong out[i] back through
// finish and scale to prefix's line, and on to the cudaMemcpy of `in`.
#include "../check.h"

__global__ void prefix(const int *in, int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int s = 0;
  for (int j = 0; j < i; j++) s += in[j];  // BUG: j <= i
  a[i] = s;
}

__global__ void scale(const int *a, int *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = 2 * a[i];
}

__global__ void finish(const int *b, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = b[i] + 1;
}

int main() {
  const int n = 8;
  int in[n], out[n];
  for (int i = 0; i < n; i++) in[i] = i + 1;
  int *d_in, *d_a, *d_b, *d_out;
  CHECK(cudaMalloc(&d_in, sizeof in));
  CHECK(cudaMalloc(&d_a, sizeof in));
  CHECK(cudaMalloc(&d_b, sizeof in));
  CHECK(cudaMalloc(&d_out, sizeof in));
  CHECK(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));  // the input
  CHECK(cudaMemset(d_out, 0, sizeof out));
  prefix<<<1, 8>>>(d_in, d_a, n);  // launch 1
  scale<<<2, 4>>>(d_a, d_b, n);  // launch 2
  finish<<<4, 2>>>(d_b, d_out, n);  // launch 3
  CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));  // the result
  bool ok = true;
  for (int i = 0; i < n; i++) {
    int want = (i + 1) * (i + 2) + 1;
    if (out[i] != want) { printf("out[%d] = %d, expected %d\n", i, out[i], want); ok = false; }
  }
  CHECK(cudaFree(d_in)); CHECK(cudaFree(d_a)); CHECK(cudaFree(d_b)); CHECK(cudaFree(d_out));
  return report(ok);
}
