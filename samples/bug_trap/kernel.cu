// BUGGY: a gather with a sanity check that calls __trap() on an out-of-range index; exactly one thread (i = 45) has a bad index.
__global__ void gatherChecked(const int* idx, const float* src, float* dst, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = idx[i];
        if (j < 0 || j >= m) {
            __trap();
        }
        dst[i] = src[j];
    }
}
