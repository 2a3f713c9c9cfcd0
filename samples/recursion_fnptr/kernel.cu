// Recursion through the call ABI (Ackermann, depth of an index-linked binary tree) and indirect calls through a __device__ table of function pointers.
typedef int (*BinOp)(int, int);

__device__ int opAdd(int a, int b) { return a + b; }
__device__ int opSub(int a, int b) { return a - b; }
__device__ int opMul(int a, int b) { return a * b; }
__device__ int opXor(int a, int b) { return a ^ b; }
__device__ int opMax(int a, int b) { return a > b ? a : b; }

__device__ BinOp g_ops[5] = {opAdd, opSub, opMul, opXor, opMax};

__device__ int ackermann(int m, int n)
{
    if (m == 0) return n + 1;
    if (n == 0) return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

__device__ int treeDepth(const int* left, const int* right, int node)
{
    if (node < 0) return 0;
    int l = treeDepth(left, right, left[node]);
    int r = treeDepth(left, right, right[node]);
    return 1 + (l > r ? l : r);
}

__device__ __noinline__ int fold(BinOp f, const int* v, int len, int acc)
{
    for (int k = 0; k < len; ++k) acc = f(acc, v[k]);
    return acc;
}

__global__ void recurseCall(const int* args, const int* left, const int* right, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int* a = args + i * 3;
    int m = a[0], k = a[1], op = a[2] % 5;
    out[i * 4 + 0] = ackermann(m, k);
    out[i * 4 + 1] = treeDepth(left, right, i % 31);
    BinOp f = g_ops[op];
    out[i * 4 + 2] = f(m * 10 + k, op + 3);
    out[i * 4 + 3] = fold(g_ops[(op + 1) % 5], a, 3, i);
}
