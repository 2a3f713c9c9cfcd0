// IEEE rounding-mode intrinsics: f32 and f64 add/sub/mul/div/fma/sqrt/rcp in rn, rz, ru and rd, on normal, subnormal, overflowing, zero, infinite and NaN operands.
__global__ void roundingModes(const float* a, const float* b, const float* c,
                              const double* da, const double* db, const double* dc,
                              float* rf, double* rd, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], z = c[i];
    double X = da[i], Y = db[i], Z = dc[i];

    float* o = rf + i * 28;
    o[0] = __fadd_rn(x, y);      o[1] = __fadd_rz(x, y);      o[2] = __fadd_ru(x, y);      o[3] = __fadd_rd(x, y);
    o[4] = __fsub_rn(x, y);      o[5] = __fsub_rz(x, y);      o[6] = __fsub_ru(x, y);      o[7] = __fsub_rd(x, y);
    o[8] = __fmul_rn(x, y);      o[9] = __fmul_rz(x, y);      o[10] = __fmul_ru(x, y);     o[11] = __fmul_rd(x, y);
    o[12] = __fdiv_rn(x, y);     o[13] = __fdiv_rz(x, y);     o[14] = __fdiv_ru(x, y);     o[15] = __fdiv_rd(x, y);
    o[16] = __fmaf_rn(x, y, z);  o[17] = __fmaf_rz(x, y, z);  o[18] = __fmaf_ru(x, y, z);  o[19] = __fmaf_rd(x, y, z);
    o[20] = __fsqrt_rn(y);       o[21] = __fsqrt_rz(y);       o[22] = __fsqrt_ru(y);       o[23] = __fsqrt_rd(y);
    o[24] = __frcp_rn(y);        o[25] = __frcp_rz(y);        o[26] = __frcp_ru(y);        o[27] = __frcp_rd(y);

    double* q = rd + i * 28;
    q[0] = __dadd_rn(X, Y);      q[1] = __dadd_rz(X, Y);      q[2] = __dadd_ru(X, Y);      q[3] = __dadd_rd(X, Y);
    q[4] = __dsub_rn(X, Y);      q[5] = __dsub_rz(X, Y);      q[6] = __dsub_ru(X, Y);      q[7] = __dsub_rd(X, Y);
    q[8] = __dmul_rn(X, Y);      q[9] = __dmul_rz(X, Y);      q[10] = __dmul_ru(X, Y);     q[11] = __dmul_rd(X, Y);
    q[12] = __ddiv_rn(X, Y);     q[13] = __ddiv_rz(X, Y);     q[14] = __ddiv_ru(X, Y);     q[15] = __ddiv_rd(X, Y);
    q[16] = __fma_rn(X, Y, Z);   q[17] = __fma_rz(X, Y, Z);   q[18] = __fma_ru(X, Y, Z);   q[19] = __fma_rd(X, Y, Z);
    q[20] = __dsqrt_rn(Y);       q[21] = __dsqrt_rz(Y);       q[22] = __dsqrt_ru(Y);       q[23] = __dsqrt_rd(Y);
    q[24] = __drcp_rn(Y);        q[25] = __drcp_rz(Y);        q[26] = __drcp_ru(Y);        q[27] = __drcp_rd(Y);
}
