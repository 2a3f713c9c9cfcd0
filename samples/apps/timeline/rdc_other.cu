// The second translation unit of rdc_main.cu (built together with -rdc=true).
#include "../check.h"

__device__ int twice_plus_one(int x) { return 2 * x + 1; }

__global__ void bump(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += twice_plus_one(v[i]);
}
