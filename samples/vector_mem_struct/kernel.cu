// Vector and struct memory access: float4/int4/double2 loads and stores, __ldg (ld.global.nc), volatile read-modify-write, and an array of structs with mixed member sizes and padding.
struct Rec {
    char tag;              // offset 0
    short s;               // offset 2
    int i;                 // offset 4
    double d;              // offset 8
    float f;               // offset 16
    unsigned char b[3];    // offset 20 (1 byte of tail padding: sizeof 24)
};

__global__ void vectorMem(const float4* a, const int4* b, const double2* c, const Rec* recs,
                          float4* oa, int4* ob, double2* oc, Rec* orecs, volatile int* flags,
                          float* sums, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    float4 va = a[i];
    int4 vb = __ldg(&b[i]);
    double2 vc = c[i];
    oa[i] = make_float4(va.w, va.z + 1.0f, va.y * 2.0f, va.x);
    ob[i] = make_int4(vb.x + vb.y, vb.y ^ vb.z, vb.z - vb.w, vb.w * 3);
    oc[i] = make_double2(vc.y, vc.x + vc.y);

    Rec r = recs[i];
    Rec* o = &orecs[i];
    o->tag = (char)(r.tag + 1);
    o->s = (short)(r.s * -2);
    o->i = r.i + r.tag;
    o->d = r.d * 0.5;
    o->f = (float)r.s + r.f;
    o->b[0] = r.b[2];
    o->b[1] = r.b[1];
    o->b[2] = r.b[0];

    int old = flags[i];          // ld.volatile
    flags[i] = old * 2 + 1;      // st.volatile
    float4 g = __ldg(&a[(i + 1) % n]);
    sums[i] = g.x + g.y + g.z + g.w + __ldg(&recs[i].f);
}
