// Divergence stress in partial warps (blocks of 100 threads): nested loops with per-thread trip counts, continue/break, early returns inside nested ifs, and a switch with fallthrough.
__global__ void divergeStress(const int* in, int* out, int* reached, int n)
{
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (i >= n) return;
    int v = in[i];
    int acc = 0;

    int outer = v & 7;
    for (int o = 0; o < outer; ++o) {
        int inner = ((v >> 3) & 7) + o;
        for (int k = 0; k < inner; ++k) {
            if ((k + o + t) % 3 == 0) continue;
            acc += k * o + 1;
            if (acc > 200) break;
        }
        if (acc > 300) break;
    }
    out[i * 3 + 0] = acc;

    if (v & 0x100) {
        if (v & 0x200) {
            out[i * 3 + 1] = -1;
            out[i * 3 + 2] = 1;
            return;
        } else if (t % 7 == 0) {
            out[i * 3 + 1] = -2;
            out[i * 3 + 2] = 2;
            return;
        }
    }

    int x = acc;
    switch ((v >> 12) & 7) {
    case 0:
        x = acc * 2;
        break;
    case 1:
        x = -acc;
        // fall through
    case 2:
        x += 5;
        break;
    case 3:
    case 4:
        x = acc ^ 0x55;
        break;
    default:
        x = v >> 12;
        break;
    }
    out[i * 3 + 1] = x;
    out[i * 3 + 2] = 3;
    atomicAdd(&reached[blockIdx.x], 1);
}
