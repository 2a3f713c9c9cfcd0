// Large copies both ways (they take ptxdbg's shared-memory path, not the socket), a large
// device-to-device copy and memset, checked element by element.
#include "check.h"
#include <vector>
__global__ void addIndex(unsigned *v, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) v[i] += (unsigned)i;
}
int main() {
  const size_t n = 4 << 20;  // 16 MiB of unsigned
  std::vector<unsigned> h(n), back(n);
  for (size_t i = 0; i < n; i++) h[i] = (unsigned)(i * 2654435761u);
  unsigned *a, *b;
  CHECK(cudaMalloc(&a, n * 4)); CHECK(cudaMalloc(&b, n * 4));
  CHECK(cudaMemcpy(a, h.data(), n * 4, cudaMemcpyHostToDevice));
  addIndex<<<64, 256>>>(a, n);
  CHECK(cudaMemcpy(b, a, n * 4, cudaMemcpyDeviceToDevice));
  CHECK(cudaMemset(a, 0xab, n * 4));
  CHECK(cudaMemcpy(back.data(), b, n * 4, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (size_t i = 0; i < n; i++) if (back[i] != (unsigned)(i * 2654435761u) + (unsigned)i) { ok = false; break; }
  CHECK(cudaMemcpy(back.data(), a, n * 4, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++) if (back[i] != 0xababababu) { ok = false; break; }
  printf("%zu elements checked both ways\n", n);
  return report(ok);
}
