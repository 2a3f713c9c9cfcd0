// BUGGY: reads 32-bit words from a byte buffer at offsets taken from a table; one offset (thread 21) is not a multiple of 4, so its int load is misaligned.
__global__ void readWords(const unsigned char* bytes, const int* offsets, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const int* p = (const int*)(bytes + offsets[i]);
        out[i] = *p;
    }
}
