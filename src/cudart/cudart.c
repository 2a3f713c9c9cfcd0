/*
 * Replacement CUDA runtime (libcudart.so.13 ABI) for ptxdbg exec -- first stage.
 * This stage records nvcc's registration calls (fatbinaries and kernel host stubs) so a program
 * built with `nvcc -cudart shared` loads and starts; launches and memory calls are not yet
 * forwarded to ptxdbg, so they print their name once and return an error (never crash/hang).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorNotSupported = 801, cudaErrorMemoryAllocation = 2 };
typedef struct { unsigned x, y, z; } dim3;

/* nvcc's wrapper around the fatbinary: magic 0x466243b1, version, pointer to the container. */
typedef struct { int magic; int version; const void *data; void *filename_or_fatbins; } FatbinWrapper;

#define MAX_FUNCS 4096
static struct { const void *host; const char *name; void **handle; } funcs[MAX_FUNCS];
static int nfuncs;
static cudaError_t last_error = cudaSuccess;

static void unimplemented(const char *name, int *once) {
  if (!*once) { *once = 1; fprintf(stderr, "ptxdbg cudart: %s is not implemented yet\n", name); }
}
#define UNIMPL(name) do { static int once; unimplemented(name, &once); last_error = cudaErrorNotSupported; return cudaErrorNotSupported; } while (0)

void **__cudaRegisterFatBinary(void *fatCubin) {
  void **handle = calloc(2, sizeof(void *));
  if (handle) handle[0] = fatCubin;
  return handle;
}
void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }
void __cudaUnregisterFatBinary(void **handle) { free(handle); }
char __cudaInitModule(void **handle) { (void)handle; return 0; }

void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int threadLimit, void *tid, void *bid, dim3 *bDim, dim3 *gDim, int *wSize) {
  (void)deviceFun; (void)threadLimit; (void)tid; (void)bid; (void)bDim; (void)gDim; (void)wSize;
  if (nfuncs < MAX_FUNCS) { funcs[nfuncs].host = hostFun; funcs[nfuncs].name = deviceName; funcs[nfuncs].handle = handle; nfuncs++; }
}
void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global) {
  (void)handle; (void)hostVar; (void)deviceAddress; (void)deviceName; (void)ext; (void)size; (void)constant; (void)global;
}
void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress, char *deviceAddress, const char *deviceName,
                              int ext, size_t size, int constant, int global) {
  (void)handle; (void)hostVarPtrAddress; (void)deviceAddress; (void)deviceName; (void)ext; (void)size; (void)constant; (void)global;
}

/* <<<>>> pushes the configuration, the stub pops it and launches. */
static struct { dim3 g, b; size_t shmem; void *stream; } cfg[64];
static int ncfg;
unsigned __cudaPushCallConfiguration(dim3 g, dim3 b, size_t shmem, void *stream) {
  if (ncfg < 64) { cfg[ncfg].g = g; cfg[ncfg].b = b; cfg[ncfg].shmem = shmem; cfg[ncfg].stream = stream; ncfg++; }
  return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3 *g, dim3 *b, size_t *shmem, void *stream) {
  if (ncfg == 0) return cudaErrorNotSupported;
  ncfg--;
  *g = cfg[ncfg].g; *b = cfg[ncfg].b; *shmem = cfg[ncfg].shmem; *(void **)stream = cfg[ncfg].stream;
  return cudaSuccess;
}
/* CUDA 13: the stub asks for a kernel handle; ours is the index into funcs + 1. */
cudaError_t __cudaGetKernel(void **kernel, const void *hostFun) {
  for (int i = 0; i < nfuncs; i++) if (funcs[i].host == hostFun) { *kernel = (void *)(uintptr_t)(i + 1); return cudaSuccess; }
  return cudaErrorNotSupported;
}
cudaError_t __cudaLaunchKernel(void *k, dim3 g, dim3 b, void **args, size_t shmem, void *stream) {
  (void)k; (void)g; (void)b; (void)args; (void)shmem; (void)stream; UNIMPL("__cudaLaunchKernel");
}
cudaError_t __cudaLaunchKernel_ptsz(void *k, dim3 g, dim3 b, void **args, size_t shmem, void *stream) {
  return __cudaLaunchKernel(k, g, b, args, shmem, stream);
}
cudaError_t cudaMalloc(void **p, size_t n) { (void)p; (void)n; UNIMPL("cudaMalloc"); }
cudaError_t cudaDeviceSynchronize(void) { return last_error; }
cudaError_t cudaGetLastError(void) { cudaError_t e = last_error; last_error = cudaSuccess; return e; }
cudaError_t cudaPeekAtLastError(void) { return last_error; }
const char *cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : e == cudaErrorNotSupported ? "operation not supported" : "unknown error"; }
const char *cudaGetErrorName(cudaError_t e) { return e == cudaSuccess ? "cudaSuccess" : e == cudaErrorNotSupported ? "cudaErrorNotSupported" : "cudaErrorUnknown"; }
