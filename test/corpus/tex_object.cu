// Parse-only: texture objects (cudaTextureObject_t) with tex2D, tex1Dfetch, tex2DLod and tex3D.
#include <cuda_runtime.h>

__global__ void sampleTex(cudaTextureObject_t t2d, cudaTextureObject_t t1d, cudaTextureObject_t t3d,
                          float* out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float u = (x + 0.5f) / w, v = (y + 0.5f) / h;
    float a = tex2D<float>(t2d, u, v);
    float b = tex1Dfetch<float>(t1d, y * w + x);
    float c = tex2DLod<float>(t2d, u, v, 1.0f);
    float4 d = tex3D<float4>(t3d, u, v, 0.5f);
    int2 e = tex1Dfetch<int2>(t1d, x);
    out[y * w + x] = a + b + c + d.x + d.w + (float)(e.x ^ e.y);
}
