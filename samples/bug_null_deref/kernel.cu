// BUGGY: row pointers for rows >= nrows are left null in a shared table, and thread 37 selects row 6 (nrows = 6) without a bounds check: a null-pointer load.
__global__ void rowLookup(const int* data, const int* sel, int* out, int nrows, int n)
{
    __shared__ const int* rows[8];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t < 8) rows[t] = (t < nrows) ? data + t * 16 : nullptr;
    __syncthreads();
    if (i < n) {
        const int* r = rows[sel[i]];
        out[i] = r[i % 16];
    }
}
