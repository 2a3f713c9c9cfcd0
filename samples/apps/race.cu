// A shared-memory race between lanes of one warp: each thread reads its neighbour's element with
// no __syncwarp() between the write and the read. Lanes of a warp usually run together, so the
// result is right (and the program's own check passes), but under independent thread scheduling
// (sm_70+) it is a race: `ptxdbg sanitize --tool racecheck` reports it.
#include "check.h"
__global__ void shiftLeft(const int *in, int *out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = in[t];
  // missing __syncwarp();
  out[t] = s[t ^ 1];
}
int main() {
  int h[128], r[128];
  for (int i = 0; i < 128; i++) h[i] = 10 * i;
  int *in, *out;
  CHECK(cudaMalloc(&in, sizeof h)); CHECK(cudaMalloc(&out, sizeof r));
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  shiftLeft<<<1, 128>>>(in, out);
  CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < 128; i++) if (r[i] != 10 * (i ^ 1)) ok = false;
  printf("r[0]=%d r[127]=%d\n", r[0], r[127]);
  return report(ok);
}
