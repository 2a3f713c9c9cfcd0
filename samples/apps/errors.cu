// Error reporting: a launch with too many threads per block fails with
// cudaErrorInvalidConfiguration (not sticky: the next launch works); an unknown pointer to
// cudaFree fails; a call ptxdbg does not implement (IPC between processes) returns an error instead of crashing.
#include "check.h"
__global__ void one(int *x) { *x = 42; }
int main() {
  int *d;
  CHECK(cudaMalloc(&d, 4));
  one<<<1, 2048>>>(d);
  cudaError_t config = cudaGetLastError();
  cudaError_t cleared = cudaGetLastError();
  one<<<1, 1>>>(d);
  CHECK(cudaGetLastError());
  int h = 0;
  CHECK(cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost));
  cudaError_t badFree = cudaFree((void *)0x1234);
  cudaIpcMemHandle_t handle;
  cudaError_t ipcErr = cudaIpcGetMemHandle(&handle, d);  // not implemented by ptxdbg: an error, not a crash
  cudaGetLastError();
  printf("%s / %s / %d / %s / %s\n", cudaGetErrorName(config), cudaGetErrorName(cleared), h, cudaGetErrorName(badFree), ipcErr == cudaSuccess ? "ipc" : "no ipc");
  return report(config == cudaErrorInvalidConfiguration && cleared == cudaSuccess && h == 42 && badFree != cudaSuccess && ipcErr != cudaSuccess);
}
