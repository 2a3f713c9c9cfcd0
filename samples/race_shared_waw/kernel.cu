// BUGGY: threads record "who was last" in a shared bucket indexed by their key with a plain store; several threads with the same key write different values: a write-write race.
__global__ void lastWriter(const int* keys, int* owner)
{
    __shared__ int bucket[16];
    int t = threadIdx.x;
    if (t < 16) bucket[t] = -1;
    __syncthreads();
    bucket[keys[blockIdx.x * blockDim.x + t] & 15] = t;
    __syncthreads();
    if (t < 16) owner[blockIdx.x * 16 + t] = bucket[t];
}
