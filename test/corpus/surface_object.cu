// Parse-only: surface objects with surf2Dread / surf2Dwrite (sust/suld) in clamp and trap modes, plus surf1D.
#include <cuda_runtime.h>

__global__ void blurSurface(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, cudaSurfaceObject_t line,
                            int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            s += surf2Dread<float>(src, (x + dx) * 4, y + dy, cudaBoundaryModeClamp);
    surf2Dwrite(s / 9.0f, dst, x * 4, y);
    uchar4 px = surf2Dread<uchar4>(src, x * 4, y, cudaBoundaryModeZero);
    surf1Dwrite(px, line, x * 4, cudaBoundaryModeTrap);
}
