// CUDA graphs: a stream capture (memset, two kernels, a copy back, across two streams joined by
// events) launched three times, and a graph built node by node with a dependency.
#include "check.h"
__global__ void addOne(int *v, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] += 1; }
__global__ void scale(int *v, int n, int f) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] *= f; }
int main() {
  const int n = 300;
  int *d, h[n];
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1)); CHECK(cudaStreamCreate(&s2));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreate(&fork)); CHECK(cudaEventCreate(&join));
  // captured: v = 0; v += 1 (on s2, after fork); v *= 5 (on s1, after join); copy to h
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemsetAsync(d, 0, n * sizeof(int), s1));
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  addOne<<<(n + 127) / 128, 128, 0, s2>>>(d, n);
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s1, join, 0));
  scale<<<(n + 127) / 128, 128, 0, s1>>>(d, n, 5);
  CHECK(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s1));
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(s1, &g));
  for (int i = 0; i < n; i++) h[i] = -1;  // nothing ran during the capture
  bool ok = true;
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  for (int run = 0; run < 3; run++) {
    CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    for (int i = 0; i < n; i++) if (h[i] != 5) ok = false;  // (0 + 1) * 5, every time
  }
  // built by hand: scale by 3 after adding one, on whatever d holds (5): (5 + 1) * 3 = 18
  cudaGraph_t m;
  CHECK(cudaGraphCreate(&m, 0));
  int nn = n, three = 3;
  void *a1[] = { &d, &nn }, *a2[] = { &d, &nn, &three };
  cudaKernelNodeParams k1 = {}, k2 = {};
  k1.func = (void *)addOne; k1.gridDim = dim3((n + 127) / 128); k1.blockDim = dim3(128); k1.kernelParams = a1;
  k2.func = (void *)scale; k2.gridDim = k1.gridDim; k2.blockDim = k1.blockDim; k2.kernelParams = a2;
  cudaGraphNode_t first, second;
  CHECK(cudaGraphAddKernelNode(&second, m, nullptr, 0, &k2));
  CHECK(cudaGraphAddKernelNode(&first, m, nullptr, 0, &k1));
  CHECK(cudaGraphAddDependencies(m, &first, &second, nullptr, 1));  // added later, runs first
  cudaGraphExec_t mexec;
  CHECK(cudaGraphInstantiate(&mexec, m, 0));
  CHECK(cudaGraphLaunch(mexec, s1));
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) if (h[i] != 18) ok = false;
  printf("after the manual graph: h[0]=%d h[%d]=%d\n", h[0], n - 1, h[n - 1]);
  CHECK(cudaGraphExecDestroy(exec)); CHECK(cudaGraphExecDestroy(mexec));
  CHECK(cudaGraphDestroy(g)); CHECK(cudaGraphDestroy(m));
  return report(ok);
}
