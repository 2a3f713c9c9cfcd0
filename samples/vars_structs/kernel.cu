// Variables for the debugger: a struct with a nested struct, bit fields, an enum, a char, a bool and a short array; shared arrays at file and function scope; __device__ and __constant__ globals; a struct kernel parameter; pointers into global, shared and local memory passed to a __noinline__ function.
enum Color { RED, GREEN = 5, BLUE };
typedef unsigned int u32;

struct Vec2 {
    float x;
    float y;
};

union Bits {
    float f;
    u32 u;
};

struct Particle {
    int id;
    Vec2 pos;
    double mass;
    char tag;
    bool alive;
    Color color;
    u32 flags : 3;
    u32 level : 5;
    short hist[4];
};

__device__ int gCounter = 7;
__constant__ float cScale[4] = {0.5f, 1.0f, 2.0f, 4.0f};
__shared__ int sTile[64];

__device__ __noinline__ float weigh(const Particle* p, const int* tile, int k, float* acc)
{
    float w = p->pos.x * cScale[k & 3] + p->pos.y;
    int t = tile[k];
    *acc += w + (float)t;
    return w * (float)p->mass;
}

__global__ void varsKernel(const float* in, float* out, int* outInt, Vec2 origin, int n)
{
    __shared__ Particle sPart[8];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    Particle p;
    p.id = i;
    p.pos.x = in[i] + origin.x;
    p.pos.y = 0.5f * i + origin.y;
    p.mass = 1.0 + i;
    p.tag = 'A' + (i % 26);
    p.alive = (i % 3) != 0;
    p.color = (i % 3 == 0) ? RED : (i % 3 == 1) ? GREEN : BLUE;
    p.flags = i & 7;
    p.level = i % 32;
    for (int k = 0; k < 4; ++k) p.hist[k] = (short)(i * k - 3);
    int local[12];
    for (int k = 0; k < 12; ++k) local[k] = (k == 11) ? i : 0;
    char label[8];
    for (int k = 0; k < 7; ++k) label[k] = 'a' + (i + k) % 26;
    label[7] = 0;
    Bits bits;
    bits.f = p.pos.x;
    sTile[tid] = i * i;
    if (tid < 8) sPart[tid] = p;
    __syncthreads();
    float acc = 1.0f;
    int* sp = &sTile[(tid + 1) % 64];
    const float* gp = in + i;
    int* lp = &local[11];
    float r = weigh(&p, sTile, (tid + 1) % 64, &acc);
    out[i] = r + acc + *gp;
    outInt[i] = *sp + *lp + gCounter + sPart[tid % 8].id + (int)p.color + label[tid % 7] + (int)(bits.u >> 23);
}
