// BUGGY: tiled transpose through a 2D shared tile with no __syncthreads() between filling the tile and reading it transposed: a shared-memory race on tile[row][col].
#define T 16
__global__ void transposeRacy(const float* in, float* out, int n)
{
    __shared__ float tile[T][T + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * T + tx, y = blockIdx.y * T + ty;
    tile[ty][tx] = in[y * n + x];
    // BUG: a __syncthreads() is missing here
    int ox = blockIdx.y * T + tx, oy = blockIdx.x * T + ty;
    out[oy * n + ox] = tile[tx][ty];
}
