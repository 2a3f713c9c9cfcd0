// Every thread runs the same loop with two cg::sync(cta) per round; between them an `if` lets
// some threads do extra work (an inner loop). In a -G build cg::sync is a call to a function that
// executes barrier.sync, so a warp's threads can reach the barrier inside that function while
// others of the same warp are still in the `if`: they must all get there (no deadlock).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define TB 64
__global__ void rounds(int *out) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ int ex[TB + 1];
  const int tid = threadIdx.x;
  int v[5];
  for (int i = 0; i < 4; i++) v[i] = tid * 4 + i;
  v[4] = 0;
  if (tid == 0) ex[TB] = 7;
  int fin = max(0, tid * 4 - 1);
  for (int i = 4 * TB; i > 0; --i) {
    ex[tid] = v[0];
    cg::sync(cta);
    v[4] = ex[tid + 1];
    cg::sync(cta);
    if (i > fin) {
      for (int j = 0; j < 4; ++j) v[j] = (v[j + 1] + 3 * v[j]) & 0xffff;
    }
  }
  out[tid] = v[0];
}
