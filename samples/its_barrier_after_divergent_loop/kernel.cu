// Independent thread scheduling: in each chunk only the first `active` threads run a long
// counting loop; the others go straight round the outer loop to the next __syncthreads(). The
// barrier must wait for the counting lanes of their own warp too (they are still running),
// not block the warp with them stranded. (The pattern of cuda-samples' eigenvalues bisection.)
__global__ void chunkedCount(const float *data, int n, int active, int reps, int *out) {
  __shared__ float chunk[64];
  int tid = threadIdx.x;
  int count = 0;
  for (int base = 0; base < n; base += blockDim.x) {
    __syncthreads();
    if (base + tid < n) chunk[tid] = data[base + tid];
    __syncthreads();
    if (tid < active) {
      int m = min(n - base, (int)blockDim.x);
      for (int r = 0; r < reps; r++)
        for (int k = 0; k < m; k++)
          if (chunk[k] < (float)tid) count++;
    }
  }
  out[tid] = count;
}
