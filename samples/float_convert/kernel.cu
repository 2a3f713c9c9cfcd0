// Float<->integer and f64->f32 conversions in every rounding mode (cvt.rni/rzi/rpi/rmi, cvt.rn/rz/rp/rm), with ties, negative values, saturation at the integer range and infinities.
__global__ void convertModes(const float* xs, const double* ds, const int* ks, const long long* Ks,
                             int* ci, long long* cl, float* cf, double* cd, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = xs[i];
    double d = ds[i];
    int k = ks[i];
    unsigned uk = (unsigned)k;
    long long K = Ks[i];
    unsigned long long UK = (unsigned long long)K;

    int* a = ci + i * 12;
    a[0] = __float2int_rn(x);   a[1] = __float2int_rz(x);   a[2] = __float2int_ru(x);   a[3] = __float2int_rd(x);
    a[4] = (int)__float2uint_rn(x); a[5] = (int)__float2uint_rz(x); a[6] = (int)__float2uint_ru(x); a[7] = (int)__float2uint_rd(x);
    a[8] = __double2int_rn(d);  a[9] = __double2int_rz(d);  a[10] = __double2int_ru(d); a[11] = __double2int_rd(d);

    long long* b = cl + i * 12;
    b[0] = __float2ll_rn(x);    b[1] = __float2ll_rz(x);    b[2] = __float2ll_ru(x);    b[3] = __float2ll_rd(x);
    b[4] = (long long)__float2ull_rn(x); b[5] = (long long)__float2ull_rz(x);
    b[6] = (long long)__float2ull_ru(x); b[7] = (long long)__float2ull_rd(x);
    b[8] = __double2ll_rn(d);   b[9] = __double2ll_rz(d);   b[10] = __double2ll_ru(d);  b[11] = __double2ll_rd(d);

    float* f = cf + i * 20;
    f[0] = __int2float_rn(k);   f[1] = __int2float_rz(k);   f[2] = __int2float_ru(k);   f[3] = __int2float_rd(k);
    f[4] = __uint2float_rn(uk); f[5] = __uint2float_rz(uk); f[6] = __uint2float_ru(uk); f[7] = __uint2float_rd(uk);
    f[8] = __ll2float_rn(K);    f[9] = __ll2float_rz(K);    f[10] = __ll2float_ru(K);   f[11] = __ll2float_rd(K);
    f[12] = __ull2float_rn(UK); f[13] = __ull2float_rz(UK); f[14] = __ull2float_ru(UK); f[15] = __ull2float_rd(UK);
    f[16] = __double2float_rn(d); f[17] = __double2float_rz(d); f[18] = __double2float_ru(d); f[19] = __double2float_rd(d);

    double* e = cd + i * 12;
    e[0] = __ll2double_rn(K);   e[1] = __ll2double_rz(K);   e[2] = __ll2double_ru(K);   e[3] = __ll2double_rd(K);
    e[4] = __ull2double_rn(UK); e[5] = __ull2double_rz(UK); e[6] = __ull2double_ru(UK); e[7] = __ull2double_rd(UK);
    e[8] = __int2double_rn(k);  e[9] = __uint2double_rn(uk); e[10] = (double)x;         e[11] = (double)(float)d;
}
