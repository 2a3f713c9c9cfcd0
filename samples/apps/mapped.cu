// Pinned and managed memory across launches, written by either side in scattered pages: by host
// stores, by memset, by a read(2) from a pipe straight into pinned memory (a write the kernel makes
// on the program's behalf), and by kernels; each side sees the other's writes at every launch
// boundary, and a freed and reallocated range starts from zeros.
#include "check.h"
#include <cstring>
#include <unistd.h>

// out[k] = p[idx[k]]; then p[idx[k]] += 1000 (reads before writes: each index once)
__global__ void readAndBump(int *p, const int *idx, int *out, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) { out[k] = p[idx[k]]; p[idx[k]] += 1000; }
}

int main() {
  const size_t words = (size_t)16 << 20; // 64 MiB
  const int n = 6;
  int *pinned, *managed, *idx, *out;
  CHECK(cudaMallocHost(&pinned, words * sizeof(int)));
  CHECK(cudaMallocManaged(&managed, words * sizeof(int)));
  CHECK(cudaMallocManaged(&idx, n * sizeof(int)));
  CHECK(cudaMallocManaged(&out, n * sizeof(int)));
  bool ok = true;
  for (int round = 0; round < 3; round++) {
    // words on pages far apart, different ones each round
    for (int k = 0; k < n; k++) idx[k] = (int)(((size_t)(k * 2 + 1) * 1048573u + (size_t)round * 4099u) % words);
    for (int k = 0; k < n; k++) pinned[idx[k]] = 10 * round + k;
    memset(managed + idx[0], 0, sizeof(int));
    managed[idx[1]] = 77 + round;
    // a system call writes pinned memory: the kernel's write, not a store of this program
    int fds[2];
    int v = 5000 + round;
    if (pipe(fds) != 0 || write(fds[1], &v, sizeof v) != (ssize_t)sizeof v || read(fds[0], &pinned[idx[5]], sizeof v) != (ssize_t)sizeof v) return 1;
    close(fds[0]); close(fds[1]);
    readAndBump<<<1, 32>>>(pinned, idx, out, n);
    CHECK(cudaDeviceSynchronize());
    for (int k = 0; k < 5; k++) ok &= out[k] == 10 * round + k && pinned[idx[k]] == 10 * round + k + 1000;
    ok &= out[5] == 5000 + round && pinned[idx[5]] == 6000 + round;
    readAndBump<<<1, 32>>>(managed, idx, out, 2);
    CHECK(cudaDeviceSynchronize());
    ok &= out[0] == 0 && out[1] == 77 + round && managed[idx[0]] == 1000 && managed[idx[1]] == 1077 + round;
    // the host undoes the kernel's bump on one word: the next launch must see the host's value
    managed[idx[0]] = 0;
  }
  printf("pinned[idx[5]]=%d managed[idx[1]]=%d\n", pinned[idx[5]], managed[idx[1]]);
  // freed and allocated again (likely at the same address): zeros, on both sides
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaMallocHost(&pinned, words * sizeof(int)));
  readAndBump<<<1, 32>>>(pinned, idx, out, n);
  CHECK(cudaDeviceSynchronize());
  for (int k = 0; k < n; k++) ok &= out[k] == 0 && pinned[idx[k]] == 1000;
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(managed));
  return report(ok);
}
