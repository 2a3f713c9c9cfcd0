// A program that abuses the CUDA runtime on purpose (test/host/hostile.test.ts): MODE picks the abuse.
// Every result line is "what: cudaErrorName", so the test compares names from the CUDA docs.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/time.h>
#include <unistd.h>

__global__ void nop() {}
__global__ void chatter(int lines) { for (int i = 0; i < lines; i++) printf("line %05d of thread %d\n", i, threadIdx.x); }
__device__ int rec(int d) { volatile int pad[64]; pad[d & 63] = d; return d == 0 ? pad[0] : rec(d - 1) + pad[d & 63]; }
__global__ void deep(int d, int *out) { *out = rec(d); }

#define SAY(what, e) printf("%s: %s\n", what, cudaGetErrorName(e))
static volatile int handled;
// a handler that calls CUDA, run while the main thread is inside cudaMemcpy
// (at most 40 times: a timer that outruns its handler's calls would starve the main loop, as on a GPU)
static void on_alarm(int) {
  int *p;
  if (cudaMalloc(&p, 64) == cudaSuccess && cudaFree(p) == cudaSuccess) handled++;
  if (handled >= 40) { struct itimerval off = {}; setitimer(ITIMER_REAL, &off, NULL); }
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char *m = argc > 1 ? argv[1] : "";
  int *dev;
  SAY("malloc", cudaMalloc(&dev, 256));
  if (!strcmp(m, "signal")) {
    signal(SIGALRM, on_alarm);
    struct itimerval it = { {0, 1000}, {0, 1000} };
    setitimer(ITIMER_REAL, &it, NULL);
    static int big[1 << 20];
    int *dbig;
    cudaError_t e = cudaMalloc(&dbig, sizeof big);
    for (int k = 0; k < 100 && e == cudaSuccess; k++) e = cudaMemcpy(dbig, big, k % 2 ? sizeof big : 64, cudaMemcpyHostToDevice);
    struct itimerval off = {};
    setitimer(ITIMER_REAL, &off, NULL);
    SAY("copies", e);
    printf("handled %s\n", handled > 0 ? "some" : "none");
  } else if (!strcmp(m, "idle")) {
    printf("pid %d\n", (int)getpid());
    for (;;) pause();
  } else if (!strcmp(m, "wild")) {
    int h[64];
    SAY("from 0x10", cudaMemcpy(dev, (void *)0x10, 64, cudaMemcpyHostToDevice));
    SAY("to 0x10", cudaMemcpy((void *)0x10, dev, 64, cudaMemcpyDeviceToHost));
    SAY("1 TiB in", cudaMemcpy(dev, h, (size_t)1 << 40, cudaMemcpyHostToDevice));
    SAY("SIZE_MAX in", cudaMemcpy(dev, h, (size_t)-1, cudaMemcpyHostToDevice));
    SAY("after", cudaMemcpy(h, dev, sizeof h, cudaMemcpyDeviceToHost));
  } else if (!strcmp(m, "garbage")) {
    char junk[64];
    memset(junk, 0xff, sizeof junk);
    if (write(atoi(getenv("PTXDBG_FD")), junk, sizeof junk) != sizeof junk) return 3;
    cudaError_t e = cudaMemset(dev, 0, 4);
    printf("memset: %s\n", e == cudaSuccess ? "succeeded" : "failed");
    return 0;
  } else if (!strcmp(m, "deep")) {
    deep<<<1, 1>>>(100000, dev);
    SAY("deep", cudaDeviceSynchronize());
  } else if (!strcmp(m, "streams")) {
    cudaStream_t s, wild = (cudaStream_t)0x1234;
    SAY("create", cudaStreamCreate(&s));
    nop<<<1, 1, 0, s>>>(); SAY("launch on it", cudaGetLastError());
    nop<<<1, 1, 0, wild>>>(); SAY("launch on 0x1234", cudaGetLastError());
    SAY("memset on 0x1234", cudaMemsetAsync(dev, 0, 4, wild));
    SAY("synchronize 0x1234", cudaStreamSynchronize(wild));
    SAY("destroy", cudaStreamDestroy(s));
    SAY("synchronize the destroyed one", cudaStreamSynchronize(s));
    SAY("default stream", cudaStreamSynchronize(0));
  } else if (!strcmp(m, "chatter")) {
    chatter<<<1, 1>>>(50000);
    SAY("chatter", cudaDeviceSynchronize());
  } else if (!strcmp(m, "launches")) {
    void *args[] = { &dev };
    SAY("main as a kernel", cudaLaunchKernel((const void *)main, 1, 1, args, 0, 0));
    SAY("null kernel", cudaLaunchKernel((const void *)NULL, 1, 1, args, 0, 0));
    nop<<<dim3(1), dim3(0)>>>(); SAY("block 0", cudaGetLastError());
    nop<<<dim3(1, 65536), dim3(1)>>>(); SAY("grid y 65536", cudaGetLastError());
    nop<<<dim3(1), dim3(1025)>>>(); SAY("block 1025", cudaGetLastError());
    nop<<<1, 1>>>(); SAY("a good launch", cudaDeviceSynchronize());
  }
  return 0;
}
