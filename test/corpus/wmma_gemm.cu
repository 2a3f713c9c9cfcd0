// Parse-only: warp matrix multiply-accumulate (nvcuda::wmma) with half, bf16, tf32 and double fragments on sm_80.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

__global__ void wmmaHalf(const half* a, const half* b, float* c, int lda, int ldb, int ldc)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    for (int k = 0; k < 64; k += 16) {
        wmma::load_matrix_sync(fa, a + k, lda);
        wmma::load_matrix_sync(fb, b + k, ldb);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    for (int i = 0; i < fc.num_elements; ++i) fc.x[i] *= 0.5f;
    wmma::store_matrix_sync(c, fc, ldc, wmma::mem_row_major);
}

__global__ void wmmaBf16Tf32(const __nv_bfloat16* a, const __nv_bfloat16* b, const float* fa32,
                             const float* fb32, float* c, float* c2)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 1.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_col_major);

    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ta;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> tb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> tc;
    wmma::fill_fragment(tc, 0.0f);
    wmma::load_matrix_sync(ta, fa32, 8);
    wmma::load_matrix_sync(tb, fb32, 8);
    for (int i = 0; i < ta.num_elements; ++i) ta.x[i] = wmma::__float_to_tf32(ta.x[i]);
    wmma::mma_sync(tc, ta, tb, tc);
    wmma::store_matrix_sync(c2, tc, 16, wmma::mem_row_major);
}

__global__ void wmmaDouble(const double* a, const double* b, double* c)
{
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
    wmma::fill_fragment(fc, 0.0);
    wmma::load_matrix_sync(fa, a, 4);
    wmma::load_matrix_sync(fb, b, 4);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 8, wmma::mem_row_major);
}
