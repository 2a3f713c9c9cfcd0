/*
 * Replacement CUDA runtime (libcudart.so.13 ABI) for `ptxdbg exec`.
 *
 * A program built with `nvcc -cudart shared` loads this library instead of NVIDIA's. It records
 * nvcc's registration calls, sends each fatbinary to the ptxdbg process, and forwards every
 * memory call and launch to it over the socket ptxdbg passes in PTXDBG_FD: device memory lives
 * in the ptxdbg process. Frames: request {u32 op, u32 0, u64 length, payload}, reply {i32 status,
 * u32 0, u64 length, payload}; status is a cudaError_t. Calls run in order (streams are in-order
 * and synchronous). Managed and mapped host memory is mapped in this process at the same address
 * as on the device (inside a reserved window), and made coherent at launch boundaries.
 * Calls not implemented (stubs.c, generated) print their name once and return an error.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <cuda_profiler_api.h>
#include <pthread.h>
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"

enum { OP_HELLO = 1, OP_MODULE, OP_MALLOC, OP_FREE, OP_WRITE, OP_READ, OP_COPY, OP_SET, OP_SYMBOL, OP_KERNEL, OP_LAUNCH, OP_RESET, OP_IMAGE, OP_BULK_WRITE, OP_BULK_READ,
       OP_API_ERROR, OP_ALLOC_SITE, OP_MEMINFO, OP_MAP, OP_SYNC_IN, OP_SYNC_OUT, OP_SITE };
enum { PROTOCOL_VERSION = 1 };
/* The device window: the emulator's global address space (Machine GLOBAL_HI << 32, bank 0 of DEVICE_SPAN). */
#define WINDOW_BASE 0x7f0000000000ULL
/* Device addresses: 20 banks of 4 GiB (80 GiB, src/exec/arena.ts); host-visible memory is in the first. */
#define DEVICE_SPAN 0x1400000000ULL
#define CONST_HI 0x7c00ULL

static int fd = -1;
/* This process is a child forked after CUDA was initialised: CUDA cannot be used in it (as
   NVIDIA's runtime answers), and the connection is the parent's. */
static int forked;
static int window_ok;
static cudaError_t last_error = cudaSuccess;
/* A kernel fault corrupts the context, as on a GPU: every later call returns it. */
static cudaError_t sticky = cudaSuccess;

static void note(const char *fmt, const char *what) { fprintf(stderr, fmt, what); }
/* `ptxdbg sanitize`: launches carry the host backtrace and failed calls are reported (PTXDBG_SANITIZE). */
static int sanitizing;
static unsigned long requests;  /* requests sent so far */
/* Whole-program recording (PTXDBG_SITES): each request that changes device memory or launches is
   preceded by OP_SITE, the program's frames of the API call that made it (src/host/program.ts). */
static int sites;
static void report_api_error(cudaError_t e);
static void report_alloc_site(uint64_t ptr);

int ptxdbg_unimplemented(const char *name, int *once) {
  if (!*once) { *once = 1; fprintf(stderr, "ptxdbg: %s is not implemented by the ptxdbg CUDA runtime; it returns cudaErrorNotSupported\n", name); }
  last_error = cudaErrorNotSupported;
  return cudaErrorNotSupported;
}

static cudaError_t fail(cudaError_t e) {
  if (e != cudaSuccess) last_error = e;
  if (e != cudaSuccess && sanitizing) report_api_error(e);
  return e;
}
cudaError_t ptxdbg_fail(cudaError_t e) { return fail(e); }
/* PTXDBG_FD was set: the program runs under ptxdbg, so a missing connection was lost (or refused
   at hello), never a reason to suggest `ptxdbg exec`; every call then returns this. */
static int under_ptxdbg;
#define LOST_ERROR cudaErrorDevicesUnavailable
cudaError_t ptxdbg_sticky(void) { return forked ? cudaErrorInitializationError : fd < 0 ? (under_ptxdbg ? LOST_ERROR : cudaErrorNoDevice) : sticky; }
static cudaError_t no_device(void) {
  static int once;
  if (forked) return fail(cudaErrorInitializationError);
  if (under_ptxdbg) return fail(LOST_ERROR); /* lost() or the hello said why, once */
  if (!once) { once = 1; fprintf(stderr, "ptxdbg: this program uses the ptxdbg CUDA runtime; run it as `ptxdbg exec -- PROGRAM`\n"); }
  return fail(cudaErrorNoDevice);
}
#define func_index ptxdbg_func_index
#define CHECK_STICKY() do { if (sticky != cudaSuccess) return fail(sticky); if (fd < 0) return no_device(); } while (0)

/* ---- the connection to ptxdbg ----------------------------------------------------------- */

/* All n bytes through the socket, one way, across short reads/writes and signals. */
static int transfer(int out, void *p, size_t n) {
  char *c = p;
  while (n > 0) {
    /* a closed connection is an error here, not SIGPIPE killing the program */
    ssize_t k = out ? send(fd, c, n, MSG_NOSIGNAL) : read(fd, c, n);
    if (k < 0 && out && errno == ENOTSOCK) k = write(fd, c, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    c += k; n -= (size_t)k;
  }
  return 0;
}
static int write_all(const void *p, size_t n) { return transfer(1, (void *)p, n); }
static int read_all(void *p, size_t n) { return transfer(0, p, n); }

static void lost(void) {
  static int once;
  /* the kernel refused a buffer of the call's (one not found unmapped beforehand, e.g. read-only) */
  if (errno == EFAULT && !once) fprintf(stderr, "ptxdbg: a CUDA call was given a host buffer the program cannot read or write (EFAULT) while its request was on the wire\n");
  if (!once) { once = 1; fprintf(stderr, "ptxdbg: the connection to ptxdbg was lost (ptxdbg ended or closed it; its messages above say why): this CUDA call and every later one return cudaErrorDevicesUnavailable (46), and device memory is gone\n"); }
  fd = -1;
}

/*
 * One request and its reply. The reply payload goes to `out` (up to `cap` bytes; more is read
 * and dropped) or, when `dyn` is set, to a malloc'd buffer stored there. Returns the status.
 */
/* Programs call CUDA from several threads: one request and its reply at a time on the wire, and
 * the runtime's tables change under the same lock (recursive: a launch holds it across calls). */
static pthread_mutex_t big = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
/* A signal handler that calls CUDA while its thread is inside a call would put its request in the
 * middle of the other's frame (or read the other's reply), and the recursive lock lets it in: the
 * wire then never recovers. So while a thread is in the runtime, the asynchronous signals whose
 * handler is the program's are held back, and delivered when the outermost call returns. Signals
 * left at their default action (SIGINT, SIGTERM, ...) still end the program at once. */
static __thread int depth;
static __thread sigset_t saved_mask;
static void enter(void) {
  if (depth++ == 0) {
    sigset_t hold;
    sigfillset(&hold);
    static const int sync_or_default[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT };
    for (size_t k = 0; k < sizeof sync_or_default / sizeof *sync_or_default; k++) sigdelset(&hold, sync_or_default[k]);
    static const int stopping[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
    for (size_t k = 0; k < sizeof stopping / sizeof *stopping; k++) {
      struct sigaction now;
      if (sigaction(stopping[k], NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_DFL) sigdelset(&hold, stopping[k]);
    }
    pthread_sigmask(SIG_BLOCK, &hold, &saved_mask);
  }
  pthread_mutex_lock(&big);
}
static void leave(void) {
  pthread_mutex_unlock(&big);
  if (--depth == 0) pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
}
#define LOCKED(expr) do { enter(); cudaError_t r_ = (expr); leave(); return r_; } while (0)

static cudaError_t call_unlocked(uint32_t op, const void *a, size_t alen, const void *b, size_t blen,
                        void *out, size_t cap, size_t *got, char **dyn);
/* The requests a recording names the host call site of: memory changes and launches. */
static int site_op(uint32_t op) {
  return op == OP_MALLOC || op == OP_FREE || op == OP_WRITE || op == OP_READ || op == OP_COPY || op == OP_SET || op == OP_LAUNCH
      || op == OP_RESET || op == OP_BULK_WRITE || op == OP_BULK_READ || op == OP_SYNC_IN;
}
static cudaError_t call(uint32_t op, const void *a, size_t alen, const void *b, size_t blen,
                        void *out, size_t cap, size_t *got, char **dyn) {
  LOCKED(call_unlocked(op, a, alen, b, blen, out, cap, got, dyn));
}
static cudaError_t call_unlocked(uint32_t op, const void *a, size_t alen, const void *b, size_t blen,
                        void *out, size_t cap, size_t *got, char **dyn) {
  if (fd < 0) return no_device();
  if (sites && site_op(op)) {
    /* OP_SITE: the frames (backtrace.c's encoding), then the API function's name */
    unsigned char q[4096];
    const char *api = NULL;
    size_t n = ptxdbg_frames(q, sizeof q - 64, &api, NULL);
    size_t al = api ? strlen(api) : 0;
    if (al > 63) al = 63;
    if (api) memcpy(q + n, api, al);
    cudaError_t e = call_unlocked(OP_SITE, q, n + al, NULL, 0, NULL, 0, NULL, NULL);
    if (e == cudaErrorDevicesUnavailable) return e;
  }
  requests++;
  uint32_t head[4] = { op, 0, 0, 0 };
  uint64_t len = alen + blen;
  memcpy(&head[2], &len, 8);
  if (write_all(head, 16) || (alen && write_all(a, alen)) || (blen && write_all(b, blen))) { lost(); return cudaErrorDevicesUnavailable; }
  int32_t rhead[4];
  if (read_all(rhead, 16)) { lost(); return cudaErrorDevicesUnavailable; }
  uint64_t rlen;
  memcpy(&rlen, &rhead[2], 8);
  if (got) *got = (size_t)rlen;
  if (dyn) {
    *dyn = malloc(rlen + 1);
    if (!*dyn || read_all(*dyn, rlen)) { lost(); return cudaErrorDevicesUnavailable; }
    (*dyn)[rlen] = 0;
  } else {
    size_t take = rlen < cap ? (size_t)rlen : cap;
    if (take && read_all(out, take)) { lost(); return cudaErrorDevicesUnavailable; }
    for (uint64_t rest = rlen - take; rest > 0;) {
      char sink[4096];
      size_t k = rest < sizeof sink ? (size_t)rest : sizeof sink;
      if (read_all(sink, k)) { lost(); return cudaErrorDevicesUnavailable; }
      rest -= k;
    }
  }
  return (cudaError_t)rhead[0];
}
static cudaError_t simple(uint32_t op, const void *a, size_t alen, void *out, size_t cap) {
  return call(op, a, alen, NULL, 0, out, cap, NULL, NULL);
}

/* Device memory written and read through the socket, in pieces of at most 1 GiB: a request's
 * frame is at most 2 GiB (protocol.ts MAX_FRAME), and a copy may be up to the device's 4 GiB. */
#define SOCKET_PIECE ((size_t)1 << 30)
static cudaError_t socket_write(uint64_t dst, const void *src, size_t n) {
  for (size_t done = 0; done < n; done += SOCKET_PIECE) {
    uint64_t at = dst + done;
    size_t k = n - done < SOCKET_PIECE ? n - done : SOCKET_PIECE;
    cudaError_t e = call(OP_WRITE, &at, 8, (const char *)src + done, k, NULL, 0, NULL, NULL);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
static cudaError_t socket_read(void *dst, uint64_t src, size_t n) {
  for (size_t done = 0; done < n; done += SOCKET_PIECE) {
    size_t k = n - done < SOCKET_PIECE ? n - done : SOCKET_PIECE;
    uint64_t q[2] = { src + done, k };
    cudaError_t e = call(OP_READ, q, 16, NULL, 0, (char *)dst + done, k, NULL, NULL);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

/* fork: the child lets go of the parent's connection (closing its copy of the socket leaves the
   parent's open) and of the lock, which another thread of the parent may have held. */
static void fork_prepare(void) { pthread_mutex_lock(&big); }
static void fork_parent(void) { pthread_mutex_unlock(&big); }
static void fork_child(void) {
  pthread_mutex_t fresh = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
  memcpy(&big, &fresh, sizeof big);
  if (fd >= 0) { close(fd); fd = -1; forked = 1; sticky = cudaErrorInitializationError; }
  /* a program it execs has no connection of its own: it runs without a device */
  unsetenv("PTXDBG_FD");
}

/*
 * Reserve the device window so managed memory can be mapped at its device address. With address
 * randomization a library may already sit there; then run the program again without it (the
 * same layout every run, which also makes runs reproducible), as rr does.
 */
__attribute__((constructor)) static void start(int argc, char **argv, char **envp) {
  (void)argc;
  const char *s = getenv("PTXDBG_FD");
  if (!s) return;
  fd = atoi(s);
  sanitizing = getenv("PTXDBG_SANITIZE") != NULL;
  sites = getenv("PTXDBG_SITES") != NULL;
  under_ptxdbg = 1;
  /* ptxdbg ended (SIGTERM, a crash, kill -9) while the program runs: the program goes too, as a
     debugger's inferior does; left running it would hold the terminal with no device. A child
     it forks does not inherit this (and has no device). */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  /* large socket buffers: a memcpy of many megabytes crosses in few system calls */
  int big_buf = 8 << 20;
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big_buf, sizeof big_buf);
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big_buf, sizeof big_buf);
  /* the whole device span is reserved (address space only): a host mapping there would read as a device pointer */
  void *w = mmap((void *)WINDOW_BASE, DEVICE_SPAN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (w == (void *)WINDOW_BASE) window_ok = 1;
  else {
    if (w != MAP_FAILED) munmap(w, DEVICE_SPAN);
    int p = personality(0xffffffff);
    if (p != -1 && !(p & ADDR_NO_RANDOMIZE) && personality((unsigned long)p | ADDR_NO_RANDOMIZE) != -1) {
      execve("/proc/self/exe", argv, envp);
    }
    fprintf(stderr, "ptxdbg: the device window at 0x%llx is taken in this process; managed and mapped host memory are unavailable\n", WINDOW_BASE);
  }
  uint32_t v = PROTOCOL_VERSION, peer = 0;
  if (simple(OP_HELLO, &v, 4, &peer, 4) != cudaSuccess || peer != PROTOCOL_VERSION) {
    fprintf(stderr, "ptxdbg: this CUDA runtime does not match the ptxdbg serving it (protocol %u, ptxdbg %u): every CUDA call returns cudaErrorDevicesUnavailable (46)\n", v, peer);
    fd = -1;
  }
  pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* ---- registration ---------------------------------------------------------------------- */

typedef struct { int magic; int version; const unsigned long long *data; void *filename_or_fatbins; } FatbinWrapper;
typedef struct { int module; } Handle;

#define MAX_FUNCS 8192
static struct { const void *host; const char *name; int module; int info_ok; uint32_t nparams, param_bytes, static_shared; uint32_t *slots; } funcs[MAX_FUNCS];
static int nfuncs;
/* cudaFuncAttributeMaxDynamicSharedMemorySize of each kernel, plus 1 (0: not set) */
static long long dyn_limit[MAX_FUNCS];

#define MAX_VARS 8192
static struct { const void *host; const char *name; int module; size_t size; uint64_t dev; int managed; void **managed_ptr; } vars[MAX_VARS];
static int nvars;

/* Host-visible device memory (managed, mapped host): coherent at launch boundaries. */
#define MAX_SHARED 65536
static struct { uint64_t ptr; size_t size; int shared, tracked; } visible[MAX_SHARED];
static int nvisible;

/* Bytes of a fatbinary container: header (magic 0xba55ed50, u16 version, u16 header size,
   u64 payload size) and payload. */
static size_t container_size(const void *p) {
  const unsigned char *blob = p;
  uint16_t hsz; uint64_t size;
  memcpy(&hsz, blob + 6, 2);
  memcpy(&size, blob + 8, 8);
  return (size_t)hsz + (size_t)size;
}

void **__cudaRegisterFatBinary(void *fatCubin) {
  Handle *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->module = -1;
  const FatbinWrapper *w = fatCubin;
  if (fd < 0 || !w || w->magic != 0x466243b1) return (void **)h;
  uint32_t id = (uint32_t)-1;
  if (w->version == 2) {
    /* -rdc: the wrapper's own data is the device-linked cubin; each translation unit's fatbinary
       (with its PTX) is in the NULL-terminated list nvcc's link stub passes, and ptxdbg links
       their PTX as nvlink did. The module is all of them, sent back to back. */
    const void *const *units = (const void *const *)w->filename_or_fatbins;
    size_t total = 0, n = 0;
    for (; units && units[n]; n++) total += container_size(units[n]);
    unsigned char *all = n ? malloc(total) : NULL;
    if (!all) {
      note("ptxdbg: %s: a relocatable device code (-rdc) fatbinary lists no translation units; its kernels cannot be launched\n", "__cudaRegisterFatBinary");
      return (void **)h;
    }
    size_t at = 0;
    for (size_t i = 0; i < n; i++) { size_t sz = container_size(units[i]); memcpy(all + at, units[i], sz); at += sz; }
    if (simple(OP_MODULE, all, total, &id, 4) == cudaSuccess) h->module = (int)id;
    free(all);
    return (void **)h;
  }
  if (w->version != 1) {
    note("ptxdbg: %s: a fatbinary wrapper of a version nvcc does not write; its kernels cannot be launched\n", "__cudaRegisterFatBinary");
    return (void **)h;
  }
  const unsigned char *blob = (const unsigned char *)w->data;
  if (simple(OP_MODULE, blob, container_size(blob), &id, 4) == cudaSuccess) h->module = (int)id;
  return (void **)h;
}
void __cudaRegisterFatBinaryEnd(void **handle) {
  int m = handle ? ((Handle *)handle)->module : -1;
  /* managed variables: map them at their device address, with the module's initial value */
  for (int i = 0; i < nvars; i++) {
    if (!vars[i].managed || vars[i].module != m || m < 0 || vars[i].dev) continue;
    struct { uint32_t module; char name[1024]; } q;
    q.module = (uint32_t)m;
    snprintf(q.name, sizeof q.name, "%s", vars[i].name);
    uint64_t r[2] = { 0, 0 };
    if (simple(OP_SYMBOL, &q, 4 + strlen(q.name), r, 16) != cudaSuccess || !window_ok) continue;
    uint64_t page = r[0] & ~4095ULL;
    size_t span = ((r[0] + r[1] + 4095) & ~4095ULL) - page;
    if (mmap((void *)page, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) continue;
    uint64_t rq[2] = { r[0], r[1] };
    simple(OP_READ, rq, 16, (void *)(uintptr_t)r[0], r[1]);
    vars[i].dev = r[0];
    *vars[i].managed_ptr = (void *)(uintptr_t)r[0];
    if (nvisible < MAX_SHARED) { visible[nvisible].ptr = r[0]; visible[nvisible].size = r[1]; visible[nvisible].shared = visible[nvisible].tracked = 0; nvisible++; }
  }
}
void __cudaUnregisterFatBinary(void **handle) { free(handle); }
char __cudaInitModule(void **handle) { (void)handle; return 1; }

void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int threadLimit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize) {
  (void)deviceFun; (void)threadLimit; (void)tid; (void)bid; (void)bDim; (void)gDim; (void)wSize;
  if (nfuncs >= MAX_FUNCS) return;
  funcs[nfuncs].host = hostFun;
  funcs[nfuncs].name = deviceName;
  funcs[nfuncs].module = handle ? ((Handle *)handle)->module : -1;
  nfuncs++;
}
void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global) {
  (void)deviceAddress; (void)ext; (void)constant; (void)global;
  if (nvars >= MAX_VARS) return;
  vars[nvars].host = hostVar; vars[nvars].name = deviceName; vars[nvars].size = size;
  vars[nvars].module = handle ? ((Handle *)handle)->module : -1;
  nvars++;
}
void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress, char *deviceAddress, const char *deviceName,
                              int ext, size_t size, int constant, int global) {
  (void)deviceAddress; (void)ext; (void)constant; (void)global;
  if (nvars >= MAX_VARS) return;
  vars[nvars].host = hostVarPtrAddress; vars[nvars].name = deviceName; vars[nvars].size = size;
  vars[nvars].module = handle ? ((Handle *)handle)->module : -1;
  vars[nvars].managed = 1; vars[nvars].managed_ptr = hostVarPtrAddress;
  nvars++;
}
void __cudaRegisterTexture(void **h, const void *hostVar, const void **dev, const char *name, int dim, int norm, int ext) {
  (void)h; (void)hostVar; (void)dev; (void)name; (void)dim; (void)norm; (void)ext;
}
void __cudaRegisterSurface(void **h, const void *hostVar, const void **dev, const char *name, int dim, int ext) {
  (void)h; (void)hostVar; (void)dev; (void)name; (void)dim; (void)ext;
}

int ptxdbg_func_index(const void *host) {
  for (int i = 0; i < nfuncs; i++) if (funcs[i].host == host) return i;
  return -1;
}
static int var_index(const void *host) {
  for (int i = 0; i < nvars; i++) if (vars[i].host == host) return i;
  return -1;
}

/* The kernel's parameter layout, asked once. */
static cudaError_t kernel_info(int i) {
  if (funcs[i].info_ok) return cudaSuccess;
  if (funcs[i].module < 0) return cudaErrorInvalidDeviceFunction;
  struct { uint32_t module; char name[4096]; } q;
  q.module = (uint32_t)funcs[i].module;
  snprintf(q.name, sizeof q.name, "%s", funcs[i].name);
  char *r = NULL;
  size_t got = 0;
  cudaError_t e = call(OP_KERNEL, &q, 4 + strlen(q.name), NULL, 0, NULL, 0, &got, &r);
  if (e == cudaSuccess && got >= 12) {
    uint32_t *w = (uint32_t *)r;
    funcs[i].nparams = w[0]; funcs[i].param_bytes = w[1]; funcs[i].static_shared = w[2];
    funcs[i].slots = malloc(sizeof(uint32_t) * 2 * (w[0] + 1));
    if (!funcs[i].slots || got < 12 + 8ULL * w[0]) e = cudaErrorInvalidDeviceFunction;
    else { memcpy(funcs[i].slots, w + 3, 8ULL * w[0]); funcs[i].info_ok = 1; }
  }
  free(r);
  return e;
}

/* ---- memory ------------------------------------------------------------------------------ */

static int visible_index(uint64_t p) {
  for (int i = 0; i < nvisible; i++) if (p >= visible[i].ptr && p < visible[i].ptr + visible[i].size) return i;
  return -1;
}
/* Device memory the program cannot touch directly: the window, less the host-visible blocks. */
static int is_device(const void *p) {
  uint64_t a = (uintptr_t)p;
  if ((a >> 32) == CONST_HI) return 1;
  return a >= WINDOW_BASE && a < WINDOW_BASE + DEVICE_SPAN && visible_index(a) < 0;
}

/*
 * Host-visible allocations are shared with ptxdbg through a memory file each (src/host/mapped.ts):
 * mapped here at the device address, held by ptxdbg, so a launch moves only the pages either side
 * wrote. The pages the host writes are tracked by userfaultfd's asynchronous write protection
 * and collected with PAGEMAP_SCAN (Linux 6.7; no handler thread, no signal, system calls writing
 * the memory are tracked too); without them every page of a shared range counts as written.
 */
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef UFFD_FEATURE_WP_HUGETLBFS_SHMEM
#define UFFD_FEATURE_WP_HUGETLBFS_SHMEM (1 << 12)
#endif
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef PAGEMAP_SCAN
#define PAGE_IS_WRITTEN (1 << 1)
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
struct page_region { uint64_t start, end, categories; };
struct pm_scan_arg { uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages, category_inverted, category_mask, category_anyof_mask, return_mask; };
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif
static int shared_ok = 1, uffd = -2, pagemap = -1;

/* Pages of [ptr, ptr+span) written since the last scan, write-protected again; -1 when unknown. */
static long written_pages(uint64_t ptr, size_t span, struct page_region *out, size_t cap, uint64_t *walk_end) {
  struct pm_scan_arg a = { sizeof a, PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC, ptr, ptr + span, 0, (uintptr_t)out, cap, 0, 0,
                           PAGE_IS_WRITTEN, 0, PAGE_IS_WRITTEN };
  long k = ioctl(pagemap, PAGEMAP_SCAN, &a);
  *walk_end = a.walk_end;
  return k;
}
static int track(uint64_t ptr, size_t span) {
  if (uffd == -2) {
    uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
    struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_HUGETLBFS_SHMEM | UFFD_FEATURE_WP_UNPOPULATED };
    if (uffd >= 0 && (ioctl(uffd, UFFDIO_API, &api) != 0 || (pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) < 0)) { close(uffd); uffd = -1; }
  }
  if (uffd < 0) return 0;
  struct uffdio_register reg = { .range = { ptr, span }, .mode = UFFDIO_REGISTER_MODE_WP };
  struct uffdio_writeprotect wp = { .range = { ptr, span }, .mode = UFFDIO_WRITEPROTECT_MODE_WP };
  struct page_region r[1];
  uint64_t end;
  return ioctl(uffd, UFFDIO_REGISTER, &reg) == 0 && ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) == 0 && written_pages(ptr, span, r, 1, &end) >= 0;
}
/* Map [ptr, ptr+span) as a memory file ptxdbg holds too; 0 when it cannot be (then it is copied). */
static int map_shared(uint64_t ptr, size_t span) {
  if (!shared_ok) return 0;
  int mfd = memfd_create("ptxdbg-mapped", MFD_CLOEXEC);
  if (mfd < 0) { shared_ok = 0; return 0; }
  int ok = ftruncate(mfd, (off_t)span) == 0 && mmap((void *)(uintptr_t)ptr, span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, mfd, 0) != MAP_FAILED;
  if (ok) {
    struct { uint64_t ptr, span; uint32_t fd; } __attribute__((packed)) q = { ptr, span, (uint32_t)mfd };
    cudaError_t e = simple(OP_MAP, &q, sizeof q, NULL, 0);
    if (e != cudaSuccess) { ok = 0; if (e == cudaErrorNotSupported) shared_ok = 0; }
  }
  close(mfd); /* the mapping and ptxdbg's descriptor keep the file */
  return ok;
}
static cudaError_t dev_alloc_locked(void **p, size_t n, uint32_t kind) {
  CHECK_STICKY();
  if (!p) return fail(cudaErrorInvalidValue);
  struct { uint64_t size; uint32_t kind; } __attribute__((packed)) q = { n, kind };
  uint64_t ptr = 0;
  cudaError_t e = simple(OP_MALLOC, &q, sizeof q, &ptr, 8);
  if (e != cudaSuccess) { *p = NULL; return fail(e); }
  if (kind != 0) {
    size_t span = (n + 4095) & ~(size_t)4095;
    if (!span) span = 4096;
    int shared = window_ok && map_shared(ptr, span);
    if (!shared && (!window_ok || mmap((void *)(uintptr_t)ptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)) {
      uint64_t f = ptr;
      simple(OP_FREE, &f, 8, NULL, 0);
      *p = NULL;
      return fail(cudaErrorMemoryAllocation);
    }
    if (nvisible >= MAX_SHARED) return fail(cudaErrorMemoryAllocation);
    visible[nvisible].ptr = ptr; visible[nvisible].size = span;
    visible[nvisible].shared = shared; visible[nvisible].tracked = shared && track(ptr, span);
    nvisible++;
  }
  *p = (void *)(uintptr_t)ptr;
  if (sanitizing) report_alloc_site(ptr);
  return cudaSuccess;
}

static cudaError_t dev_alloc(void **p, size_t n, uint32_t kind) { LOCKED(dev_alloc_locked(p, n, kind)); }
cudaError_t cudaMalloc(void **p, size_t n) { return dev_alloc(p, n, 0); }
cudaError_t cudaMallocManaged(void **p, size_t n, unsigned int flags) { (void)flags; return dev_alloc(p, n, 1); }
cudaError_t cudaMallocHost(void **p, size_t n) { return dev_alloc(p, n, 2); }
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int flags) { (void)flags; return dev_alloc(p, n, 2); }
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s) { (void)s; return dev_alloc(p, n, 0); }
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height) {
  if (!pitch) return fail(cudaErrorInvalidValue);
  *pitch = (width + 511) & ~(size_t)511; /* a GPU aligns rows to its texture pitch alignment */
  return dev_alloc(p, *pitch * height, 0);
}
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pp, struct cudaExtent ext) {
  if (!pp) return fail(cudaErrorInvalidValue);
  size_t pitch = (ext.width + 511) & ~(size_t)511;
  void *p = NULL;
  cudaError_t e = dev_alloc(&p, pitch * ext.height * ext.depth, 0);
  pp->ptr = p; pp->pitch = pitch; pp->xsize = ext.width; pp->ysize = ext.height;
  return e;
}

static cudaError_t dev_free_locked(void *p) {
  CHECK_STICKY();
  if (!p || ptxdbg_graph_memory(p)) return cudaSuccess;
  uint64_t a = (uintptr_t)p;
  int v = visible_index(a);
  if (v >= 0) {
    if (visible[v].ptr != a) return fail(cudaErrorInvalidValue);
    mmap(p, visible[v].size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    visible[v] = visible[--nvisible];
  }
  return fail(simple(OP_FREE, &a, 8, NULL, 0));
}
static cudaError_t dev_free(void *p) { LOCKED(dev_free_locked(p)); }
cudaError_t cudaFree(void *p) { return dev_free(p); }
cudaError_t cudaFreeHost(void *p) { return dev_free(p); }
/* memory freed inside a stream capture stays allocated: the graph may run again */
cudaError_t cudaFreeAsync(void *p, cudaStream_t s) { return ptxdbg_stream_bad(s) ? fail(cudaErrorInvalidResourceHandle) : ptxdbg_capturing(s) ? cudaSuccess : dev_free(p); }
cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned int flags) {
  (void)flags;
  if (!d || visible_index((uintptr_t)h) < 0) return fail(cudaErrorInvalidValue);
  *d = h;
  return cudaSuccess;
}
cudaError_t cudaHostGetFlags(unsigned int *flags, void *h) {
  if (!flags || visible_index((uintptr_t)h) < 0) return fail(cudaErrorInvalidValue);
  *flags = cudaHostAllocMapped;
  return cudaSuccess;
}

/*
 * Large copies go through a memory file shared with ptxdbg (it reads and writes the file at
 * /proc/PID/fd/N straight into device memory) instead of the socket: one copy on each side.
 * When that fails, the socket carries them.
 */
#define BULK_MIN ((size_t)256 << 10)
static int bulk_fd = -1, bulk_ok = 1;
static unsigned char *bulk;
static size_t bulk_cap;
static int bulk_ready(size_t n) {
  if (!bulk_ok) return 0;
  if (bulk_fd < 0) {
    bulk_fd = memfd_create("ptxdbg-bulk", MFD_CLOEXEC);
    if (bulk_fd < 0) { bulk_ok = 0; return 0; }
  }
  if (n > bulk_cap) {
    size_t cap = (n + ((size_t)64 << 20) - 1) & ~(((size_t)64 << 20) - 1);
    if (bulk) munmap(bulk, bulk_cap);
    bulk = NULL; bulk_cap = 0;
    if (ftruncate(bulk_fd, (off_t)cap) != 0) { bulk_ok = 0; return 0; }
    void *m = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED, bulk_fd, 0);
    if (m == MAP_FAILED) { bulk_ok = 0; return 0; }
    bulk = m; bulk_cap = cap;
  }
  return 1;
}
/* status of a bulk request; -1 when the bulk path is unavailable (then use the socket) */
static int bulk_write(uint64_t dst, const void *src, size_t n) {
  enter();
  int r = -1;
  if (n >= BULK_MIN && bulk_ready(n)) {
    memcpy(bulk, src, n);
    struct { uint64_t dst, n; uint32_t fd; } __attribute__((packed)) q = { dst, n, (uint32_t)bulk_fd };
    cudaError_t e = simple(OP_BULK_WRITE, &q, sizeof q, NULL, 0);
    if (e == cudaErrorNotSupported) bulk_ok = 0; else r = e;
  }
  leave();
  return r;
}
static int bulk_read(void *dst, uint64_t src, size_t n) {
  enter();
  int r = -1;
  if (n >= BULK_MIN && bulk_ready(n)) {
    struct { uint64_t src, n; uint32_t fd; } __attribute__((packed)) q = { src, n, (uint32_t)bulk_fd };
    cudaError_t e = simple(OP_BULK_READ, &q, sizeof q, NULL, 0);
    if (e == cudaSuccess) memcpy(dst, bulk, n);
    if (e == cudaErrorNotSupported) bulk_ok = 0; else r = e;
  }
  leave();
  return r;
}

/*
 * Whether [p, p+n) of host memory is mapped in this process (msync says ENOMEM for a range with a
 * hole). A host buffer that is not would fault inside the runtime (NVIDIA's crashes the program
 * there) or, sent on the socket, leave a request cut short and the connection out of step; it is
 * refused first instead, with a line that says so.
 */
static int host_mapped(const void *p, size_t n, const char *side) {
  uintptr_t a = (uintptr_t)p, page = a & ~(uintptr_t)4095;
  if (a + n >= a && msync((void *)page, a + n - page, MS_ASYNC) == 0) return 1;
  fprintf(stderr, "ptxdbg: a copy's host %s (%zu bytes at %p) is not memory of the program's; the copy returns cudaErrorInvalidValue (NVIDIA's runtime would crash here)\n", side, n, p);
  return 0;
}
/* The copy, whichever side each end is on (the kind is implied by the addresses, as with UVA). */
cudaError_t ptxdbg_copy(void *dst, const void *src, size_t n) {
  CHECK_STICKY();
  if (n == 0) return cudaSuccess;
  if (!dst || !src) return fail(cudaErrorInvalidValue);
  int dd = is_device(dst), sd = is_device(src);
  uint64_t d = (uintptr_t)dst, s = (uintptr_t)src;
  if ((!sd && !host_mapped(src, n, "source")) || (!dd && !host_mapped(dst, n, "destination"))) return fail(cudaErrorInvalidValue);
  if (!dd && !sd) { memmove(dst, src, n); return cudaSuccess; }
  if (dd && !sd) {
    int b = bulk_write(d, src, n);
    if (b >= 0) return fail((cudaError_t)b);
    return fail(socket_write(d, src, n));
  }
  if (!dd && sd) {
    int b = bulk_read(dst, s, n);
    if (b >= 0) return fail((cudaError_t)b);
    return fail(socket_read(dst, s, n));
  }
  uint64_t q[3] = { d, s, n };
  return fail(simple(OP_COPY, q, 24, NULL, 0));
}
#define copy ptxdbg_copy
static int bad_kind(enum cudaMemcpyKind k) { return (unsigned)k > cudaMemcpyDefault; }

/*
 * A copy kind that contradicts its pointers is undefined behaviour (CUDA Runtime API, cudaMemcpy);
 * it is reported, as compute-sanitizer's API checks do, and the copy goes by what the pointers
 * are, as the driver does with unified addressing. Managed and mapped host memory suit either side.
 */
static const char *const kind_names[] = { "cudaMemcpyHostToHost", "cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost", "cudaMemcpyDeviceToDevice", "cudaMemcpyDefault" };
static const char *memory_kind(const void *p) {
  return visible_index((uintptr_t)p) >= 0 ? "managed or mapped host memory" : is_device(p) ? "device memory" : "host memory";
}
static int contradicts(int on_device, const void *p) { return visible_index((uintptr_t)p) < 0 && on_device != is_device(p); }
static void check_kind(const char *call, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind) {
  if (kind == cudaMemcpyDefault || bad_kind(kind) || n == 0 || !dst || !src) return;
  int dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  int src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (!contradicts(dst_dev, dst) && !contradicts(src_dev, src)) return;
  static int reported;
  if (reported++ == 20) fprintf(stderr, "ptxdbg: further copy kinds that contradict their pointers are not reported\n");
  if (reported > 20) return;
  fprintf(stderr, "ptxdbg: %s(dst %p, src %p, %zu bytes, %s): the destination is %s and the source %s, which the kind contradicts (undefined behaviour); ptxdbg copies as the pointers say, as the driver does with unified addressing\n",
          call, dst, src, n, kind_names[kind], memory_kind(dst), memory_kind(src));
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind) {
  if (bad_kind(kind)) return fail(cudaErrorInvalidMemcpyDirection);
  check_kind("cudaMemcpy", dst, src, n, kind);
  return copy(dst, src, n);
}
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s) {
  if (ptxdbg_stream_bad(s)) return fail(cudaErrorInvalidResourceHandle);
  if (ptxdbg_capturing(s)) return ptxdbg_capture_copy(s, dst, src, n);
  if (bad_kind(kind)) return fail(cudaErrorInvalidMemcpyDirection);
  check_kind("cudaMemcpyAsync", dst, src, n, kind);
  return copy(dst, src, n);
}
cudaError_t cudaMemcpyPeer(void *dst, int dd, const void *src, int sd, size_t n) {
  if (dd != 0 || sd != 0) return fail(cudaErrorInvalidDevice);
  return copy(dst, src, n);
}
cudaError_t cudaMemcpyPeerAsync(void *dst, int dd, const void *src, int sd, size_t n, cudaStream_t s) { (void)s; return cudaMemcpyPeer(dst, dd, src, sd, n); }
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind) {
  if (bad_kind(kind)) return fail(cudaErrorInvalidMemcpyDirection);
  if (width > dpitch || width > spitch) return fail(cudaErrorInvalidPitchValue);
  check_kind("cudaMemcpy2D", dst, src, width * height, kind);
  for (size_t r = 0; r < height; r++) {
    cudaError_t e = copy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t s) {
  (void)s; return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
/* A CUDA array: texels row-major in device memory (x fastest, then y, then depth or layer). */
struct cudaArray { uint64_t dev; size_t w, h, d; unsigned flags; struct cudaChannelFormatDesc desc; size_t elem; };
static struct cudaPitchedPtr pitched(const struct cudaArray *a) {
  struct cudaPitchedPtr p = { (void *)(uintptr_t)a->dev, a->w * a->elem, a->w, a->h ? a->h : 1 };
  return p;
}
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p) {
  if (!p) return fail(cudaErrorInvalidValue);
  /* a CUDA array takes part as a pitched pointer over its rows; then the extent and its
     position's x count the array's elements, not bytes */
  struct cudaMemcpy3DParms q = *p;
  const struct cudaArray *arr = p->srcArray ? p->srcArray : p->dstArray;
  if (p->srcArray) { const struct cudaArray *a = p->srcArray; q.srcPtr = pitched(a); q.srcPos.x *= a->elem; }
  if (p->dstArray) { const struct cudaArray *a = p->dstArray; q.dstPtr = pitched(a); q.dstPos.x *= a->elem; }
  if (arr) { q.extent.width *= arr->elem; if (!p->srcArray) q.srcPos.x *= arr->elem; if (!p->dstArray) q.dstPos.x *= arr->elem; }
  p = &q;
  const struct cudaExtent e = p->extent;
  for (size_t z = 0; z < e.depth; z++)
    for (size_t y = 0; y < e.height; y++) {
      size_t sy = p->srcPos.y + y, sz = p->srcPos.z + z, dy = p->dstPos.y + y, dz = p->dstPos.z + z;
      const char *s = (const char *)p->srcPtr.ptr + (sz * p->srcPtr.ysize + sy) * p->srcPtr.pitch + p->srcPos.x;
      char *d = (char *)p->dstPtr.ptr + (dz * p->dstPtr.ysize + dy) * p->dstPtr.pitch + p->dstPos.x;
      cudaError_t r = copy(d, s, e.width);
      if (r != cudaSuccess) return r;
    }
  return cudaSuccess;
}
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t s) { (void)s; return cudaMemcpy3D(p); }

cudaError_t ptxdbg_set(void *dst, int value, size_t n) {
  CHECK_STICKY();
  if (n == 0) return cudaSuccess;
  if (!is_device(dst)) { memset(dst, value, n); return cudaSuccess; }
  struct { uint64_t dst, n; uint32_t value; } __attribute__((packed)) q = { (uintptr_t)dst, n, (uint32_t)value };
  return fail(simple(OP_SET, &q, sizeof q, NULL, 0));
}
cudaError_t cudaMemset(void *p, int v, size_t n) { return ptxdbg_set(p, v, n); }
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s) {
  if (ptxdbg_stream_bad(s)) return fail(cudaErrorInvalidResourceHandle);
  if (ptxdbg_capturing(s)) return ptxdbg_capture_memset(s, p, 0, (unsigned)v & 255, 1, n, 1);
  return ptxdbg_set(p, v, n);
}
cudaError_t cudaMemset2D(void *p, size_t pitch, int v, size_t w, size_t h) {
  for (size_t r = 0; r < h; r++) { cudaError_t e = ptxdbg_set((char *)p + r * pitch, v, w); if (e != cudaSuccess) return e; }
  return cudaSuccess;
}
cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int v, size_t w, size_t h, cudaStream_t s) { (void)s; return cudaMemset2D(p, pitch, v, w, h); }
cudaError_t cudaMemset3D(struct cudaPitchedPtr pp, int v, struct cudaExtent e) {
  for (size_t z = 0; z < e.depth; z++) {
    cudaError_t r = cudaMemset2D((char *)pp.ptr + z * pp.pitch * pp.ysize, pp.pitch, v, e.width, e.height);
    if (r != cudaSuccess) return r;
  }
  return cudaSuccess;
}

/* A module variable's device address, asked once. */
static cudaError_t symbol(const void *sym, uint64_t *addr, size_t *size) {
  int i = var_index(sym);
  if (i < 0 || vars[i].module < 0) return cudaErrorInvalidSymbol;
  if (!vars[i].dev) {
    struct { uint32_t module; char name[1024]; } q;
    q.module = (uint32_t)vars[i].module;
    snprintf(q.name, sizeof q.name, "%s", vars[i].name);
    uint64_t r[2] = { 0, 0 };
    cudaError_t e = simple(OP_SYMBOL, &q, 4 + strlen(q.name), r, 16);
    if (e != cudaSuccess) return e;
    vars[i].dev = r[0];
  }
  *addr = vars[i].dev;
  if (size) *size = vars[i].size;
  return cudaSuccess;
}
cudaError_t cudaMemcpyToSymbol(const void *sym, const void *src, size_t n, size_t off, enum cudaMemcpyKind kind) {
  CHECK_STICKY();
  (void)kind;
  uint64_t a; size_t size;
  cudaError_t e = symbol(sym, &a, &size);
  if (e != cudaSuccess) return fail(e);
  if (off + n > size) return fail(cudaErrorInvalidValue);
  return copy((void *)(uintptr_t)(a + off), src, n);
}
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *sym, size_t n, size_t off, enum cudaMemcpyKind kind) {
  CHECK_STICKY();
  (void)kind;
  uint64_t a; size_t size;
  cudaError_t e = symbol(sym, &a, &size);
  if (e != cudaSuccess) return fail(e);
  if (off + n > size) return fail(cudaErrorInvalidValue);
  return copy(dst, (const void *)(uintptr_t)(a + off), n);
}
cudaError_t cudaMemcpyToSymbolAsync(const void *sym, const void *src, size_t n, size_t off, enum cudaMemcpyKind kind, cudaStream_t s) { (void)s; return cudaMemcpyToSymbol(sym, src, n, off, kind); }
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *sym, size_t n, size_t off, enum cudaMemcpyKind kind, cudaStream_t s) { (void)s; return cudaMemcpyFromSymbol(dst, sym, n, off, kind); }
cudaError_t cudaGetSymbolAddress(void **p, const void *sym) {
  uint64_t a;
  cudaError_t e = symbol(sym, &a, NULL);
  if (e != cudaSuccess) return fail(e);
  *p = (void *)(uintptr_t)a;
  return cudaSuccess;
}
cudaError_t cudaGetSymbolSize(size_t *n, const void *sym) {
  uint64_t a;
  cudaError_t e = symbol(sym, &a, n);
  return fail(e);
}
/* The device's free and total bytes, as ptxdbg's allocator counts them. */
static cudaError_t mem_info(size_t *freeb, size_t *total) {
  uint64_t r[2] = { 0, 0 };
  cudaError_t e = simple(OP_MEMINFO, NULL, 0, r, 16);
  if (e != cudaSuccess) return e;
  if (freeb) *freeb = (size_t)r[0];
  if (total) *total = (size_t)r[1];
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t *freeb, size_t *total) {
  CHECK_STICKY();
  return fail(mem_info(freeb, total));
}
cudaError_t cudaMemPrefetchAsync(const void *p, size_t n, struct cudaMemLocation loc, unsigned int flags, cudaStream_t s) { (void)p; (void)n; (void)loc; (void)flags; (void)s; return cudaSuccess; }
cudaError_t cudaMemAdvise(const void *p, size_t n, enum cudaMemoryAdvise a, struct cudaMemLocation loc) { (void)p; (void)n; (void)a; (void)loc; return cudaSuccess; }
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p) {
  if (!a) return fail(cudaErrorInvalidValue);
  memset(a, 0, sizeof *a);
  uint64_t x = (uintptr_t)p;
  a->device = 0;
  if (visible_index(x) >= 0) { a->type = cudaMemoryTypeManaged; a->devicePointer = (void *)p; a->hostPointer = (void *)p; }
  else if (is_device(p)) { a->type = cudaMemoryTypeDevice; a->devicePointer = (void *)p; }
  else { a->type = cudaMemoryTypeUnregistered; a->hostPointer = (void *)p; }
  return cudaSuccess;
}

/* ---- launches ------------------------------------------------------------------------------ */

static struct { dim3 g, b; size_t shmem; cudaStream_t stream; } cfg[64];
static int ncfg;
unsigned __cudaPushCallConfiguration(dim3 g, dim3 b, size_t shmem, struct CUstream_st *stream) {
  if (ncfg < 64) { cfg[ncfg].g = g; cfg[ncfg].b = b; cfg[ncfg].shmem = shmem; cfg[ncfg].stream = stream; ncfg++; }
  return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3 *g, dim3 *b, size_t *shmem, void *stream) {
  if (ncfg == 0) return cudaErrorMissingConfiguration;
  ncfg--;
  *g = cfg[ncfg].g; *b = cfg[ncfg].b; *shmem = cfg[ncfg].shmem; *(cudaStream_t *)stream = cfg[ncfg].stream;
  return cudaSuccess;
}
/* CUDA 13 stubs ask for a kernel handle first; ours is the registration index + 1. */
cudaError_t __cudaGetKernel(void **kernel, const void *hostFun) {
  int i = func_index(hostFun);
  if (i < 0) return cudaErrorInvalidDeviceFunction;
  *kernel = (void *)(uintptr_t)(i + 1);
  return cudaSuccess;
}

/* Managed memory goes to the device before a launch and comes back after it: a shared range by
   the pages the host wrote (all of them when untracked) and the pages the kernel wrote; others
   (managed variables, or where sharing failed) whole, through the socket. */
static cudaError_t push_visible(void) {
  /* OP_SYNC_IN: u32 count, then (u64 ptr, u64 bytes) per run of written pages */
  unsigned char *q = NULL;
  uint32_t nruns = 0;
  size_t cap = 0;
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < nvisible && e == cudaSuccess; i++) {
    uint64_t d = visible[i].ptr;
    if (!visible[i].shared) { e = socket_write(d, (void *)(uintptr_t)visible[i].ptr, visible[i].size); continue; }
    struct page_region r[256];
    for (uint64_t at = d, end = d + visible[i].size; at < end && e == cudaSuccess;) {
      uint64_t from = at;
      long k = visible[i].tracked ? written_pages(at, end - at, r, 256, &at) : -1;
      if (k >= 0 && at <= from) k = -1; /* a scan that does not advance: take the whole range */
      if (k < 0) { visible[i].tracked = 0; r[0].start = d; r[0].end = end; k = 1; at = end; }
      size_t need = 4 + 16 * ((size_t)nruns + (size_t)k);
      if (need > cap) {
        unsigned char *grown = realloc(q, need * 2);
        if (!grown) { e = cudaErrorMemoryAllocation; break; }
        q = grown; cap = need * 2;
      }
      for (long j = 0; j < k; j++, nruns++) {
        uint64_t run[2] = { r[j].start, r[j].end - r[j].start };
        memcpy(q + 4 + 16 * (size_t)nruns, run, 16);
      }
    }
  }
  if (e == cudaSuccess && nruns) {
    memcpy(q, &nruns, 4);
    e = simple(OP_SYNC_IN, q, 4 + 16 * (size_t)nruns, NULL, 0);
  }
  free(q);
  return e;
}
static cudaError_t pull_visible(void) {
  int any_shared = 0;
  for (int i = 0; i < nvisible; i++) {
    if (visible[i].shared) { any_shared = 1; continue; }
    cudaError_t e = socket_read((void *)(uintptr_t)visible[i].ptr, visible[i].ptr, visible[i].size);
    if (e != cudaSuccess) return e;
  }
  uint64_t written = 0;
  return any_shared ? simple(OP_SYNC_OUT, NULL, 0, &written, 8) : cudaSuccess;
}

/* The dynamic shared memory kernel i may be launched with (its info known): what
   cudaFuncSetAttribute set, else 48 KiB less its static shared memory (CUDA's default). */
static size_t dyn_shared_limit(int i) {
  if (dyn_limit[i]) return (size_t)(dyn_limit[i] - 1);
  return funcs[i].static_shared < 48 * 1024 ? 48 * 1024 - funcs[i].static_shared : 0;
}

/* The launch request for kernel i: header, name, and the parameters packed at the PTX offsets. */
cudaError_t ptxdbg_pack_launch(int i, dim3 g, dim3 b, void **args, size_t shmem, uint32_t flags, unsigned char **out, size_t *len) {
  if (i < 0 || i >= nfuncs) return cudaErrorInvalidDeviceFunction;
  cudaError_t e = kernel_info(i);
  if (e != cudaSuccess) return e;
  /* more than the kernel's limit is refused as on a GPU (the size is never cut to 32 bits) */
  if (shmem > dyn_shared_limit(i)) {
    fprintf(stderr, "ptxdbg: a launch of %s asks for %zu bytes of dynamic shared memory, more than its limit of %zu bytes (%s); it fails with cudaErrorInvalidValue, as on a GPU\n",
            funcs[i].name, shmem, dyn_shared_limit(i), dyn_limit[i] ? "set with cudaFuncAttributeMaxDynamicSharedMemorySize" : "48 KiB less its static shared memory; raise it with cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)");
    return cudaErrorInvalidValue;
  }
  size_t nlen = strlen(funcs[i].name);
  size_t qlen = 48 + nlen + funcs[i].param_bytes;
  unsigned char *q = calloc(1, qlen);
  if (!q) return cudaErrorMemoryAllocation;
  uint32_t head[12] = { (uint32_t)funcs[i].module, g.x, g.y, g.z, b.x, b.y, b.z, (uint32_t)shmem, flags, (uint32_t)nlen, funcs[i].param_bytes, 0 };
  memcpy(q, head, 48);
  memcpy(q + 48, funcs[i].name, nlen);
  for (uint32_t k = 0; k < funcs[i].nparams; k++) {
    uint32_t off = funcs[i].slots[2 * k], size = funcs[i].slots[2 * k + 1];
    if (!args || !args[k]) { free(q); return cudaErrorInvalidValue; }
    memcpy(q + 48 + nlen + off, args[k], size);
  }
  *out = q; *len = qlen;
  return cudaSuccess;
}

/* Run a packed launch: managed memory in, the kernel, its printf output, managed memory out. */
cudaError_t ptxdbg_run_launch(const unsigned char *q, size_t qlen) {
  enter();
  cudaError_t e = sticky;
  if (e != cudaSuccess) { leave(); return fail(e); }
  e = push_visible();
  char *text = NULL;
  size_t got = 0;
  unsigned char frames[4096];
  size_t flen = sanitizing ? ptxdbg_frames(frames, sizeof frames, NULL, NULL) : 0;
  if (e == cudaSuccess) e = call(OP_LAUNCH, q, qlen, frames, flen, NULL, 0, &got, &text);
  if (text && got) { fwrite(text, 1, got, stdout); fflush(stdout); }
  free(text);
  cudaError_t back = pull_visible();
  int faulted = e == cudaErrorIllegalAddress || e == cudaErrorAssert || e == cudaErrorLaunchFailure || e == cudaErrorMisalignedAddress || e == cudaErrorLaunchTimeout;
  if (faulted) sticky = e;
  if (e == cudaSuccess) e = back;
  leave();
  /* a kernel's fault is ptxdbg's report; the calls after it report the sticky error */
  if (faulted) { last_error = e; return e; }
  return fail(e);
}

/* A launch on `stream`: recorded into the graph when the stream is capturing, else run now. */
static cudaError_t launch(int i, dim3 g, dim3 b, void **args, size_t shmem, uint32_t flags, cudaStream_t stream) {
  CHECK_STICKY();
  unsigned char *q = NULL;
  size_t qlen = 0;
  enter();
  cudaError_t e = ptxdbg_pack_launch(i, g, b, args, shmem, flags, &q, &qlen);
  leave();
  if (e != cudaSuccess) return fail(e);
  if (ptxdbg_stream_bad(stream)) { free(q); return fail(cudaErrorInvalidResourceHandle); }
  if (ptxdbg_capturing(stream)) return ptxdbg_capture_launch(stream, i, q, qlen);
  e = ptxdbg_run_launch(q, qlen);
  free(q);
  return e;
}
cudaError_t __cudaLaunchKernel(void *k, dim3 g, dim3 b, void **args, size_t shmem, void *stream) {
  return launch((int)(uintptr_t)k - 1, g, b, args, shmem, 0, (cudaStream_t)stream);
}
cudaError_t __cudaLaunchKernel_ptsz(void *k, dim3 g, dim3 b, void **args, size_t shmem, void *stream) {
  return __cudaLaunchKernel(k, g, b, args, shmem, stream);
}
cudaError_t cudaLaunchKernel(const void *func, dim3 g, dim3 b, void **args, size_t shmem, cudaStream_t s) {
  return launch(func_index(func), g, b, args, shmem, 0, s);
}
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 g, dim3 b, void **args, size_t shmem, cudaStream_t s) {
  return launch(func_index(func), g, b, args, shmem, 1, s);
}
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *c, const void *func, void **args) {
  if (!c) return fail(cudaErrorInvalidValue);
  uint32_t flags = 0;
  for (unsigned k = 0; k < c->numAttrs; k++) if (c->attrs[k].id == cudaLaunchAttributeCooperative && c->attrs[k].val.cooperative) flags = 1;
  return launch(func_index(func), c->gridDim, c->blockDim, args, c->dynamicSmemBytes, flags, c->stream);
}
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *func) {
  int i = func_index(func);
  if (!a || i < 0) return fail(cudaErrorInvalidDeviceFunction);
  cudaError_t e = kernel_info(i);
  if (e != cudaSuccess) return fail(e);
  memset(a, 0, sizeof *a);
  a->sharedSizeBytes = funcs[i].static_shared;
  a->maxThreadsPerBlock = 1024;
  a->numRegs = 32;
  a->ptxVersion = 80;
  a->binaryVersion = 80;
  a->maxDynamicSharedSizeBytes = (int)dyn_shared_limit(i);
  return cudaSuccess;
}
/* The maximum dynamic shared memory is kept per kernel; its sum with the static shared memory
   may be up to the device's opt-in maximum (227 KiB on sm_80), else cudaErrorInvalidValue.
   Other attributes are hints a CPU has no use for. */
cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value) {
  int i = func_index(func);
  /* "If the specified function does not exist, then it is assumed to be a cudaKernel_t" (ours: index + 1) */
  if (i < 0 && (uintptr_t)func >= 1 && (uintptr_t)func <= (uintptr_t)nfuncs) i = (int)(uintptr_t)func - 1;
  if (i < 0) return fail(cudaErrorInvalidDeviceFunction);
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaSuccess;
  enter();
  cudaError_t e = kernel_info(i);
  if (e == cudaSuccess && (value < 0 || (size_t)value + funcs[i].static_shared > 227 * 1024)) e = cudaErrorInvalidValue;
  if (e == cudaSuccess) dyn_limit[i] = (long long)value + 1;
  leave();
  return fail(e);
}
cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache c) { (void)func; (void)c; return cudaSuccess; }
cudaError_t cudaFuncGetName(const char **name, const void *func) {
  int i = func_index(func);
  if (!name || i < 0) return fail(cudaErrorInvalidDeviceFunction);
  *name = funcs[i].name;
  return cudaSuccess;
}
/* A plausible sm_80 answer: 2048 threads and 32 blocks per SM, 164 KiB of shared memory. */
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, const void *func, int bs, size_t dyn, unsigned int flags) {
  (void)flags;
  int i = func_index(func);
  if (!n || i < 0 || bs <= 0) return fail(cudaErrorInvalidValue);
  kernel_info(i);
  int by_threads = 2048 / bs;
  size_t smem = funcs[i].static_shared + dyn;
  int by_smem = smem ? (int)((164 * 1024) / smem) : 32;
  int r = by_threads < by_smem ? by_threads : by_smem;
  *n = r < 32 ? r : 32;
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, const void *func, int bs, size_t dyn) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, func, bs, dyn, 0);
}
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *n, const void *func, int blocks, int bs) {
  (void)func; (void)bs;
  if (!n || blocks <= 0) return fail(cudaErrorInvalidValue);
  *n = (164 * 1024) / (size_t)blocks;
  if (*n > 227 * 1024) *n = 227 * 1024;
  return cudaSuccess;
}

/* ---- device -------------------------------------------------------------------------------- */

cudaError_t cudaGetDeviceCount(int *n) {
  if (!n) return fail(cudaErrorInvalidValue);
  if (forked) return fail(cudaErrorInitializationError);
  *n = fd >= 0 ? 1 : 0;
  return fd >= 0 ? cudaSuccess : no_device();
}
cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }
cudaError_t cudaGetDevice(int *d) { if (d) *d = 0; return cudaSuccess; }
cudaError_t cudaInitDevice(int d, unsigned int a, unsigned int b) { (void)a; (void)b; return cudaSetDevice(d); }
cudaError_t cudaChooseDevice(int *d, const struct cudaDeviceProp *p) { (void)p; if (d) *d = 0; return cudaSuccess; }
cudaError_t cudaSetDeviceFlags(unsigned int f) { (void)f; return cudaSuccess; }
cudaError_t cudaGetDeviceFlags(unsigned int *f) { if (f) *f = 0; return cudaSuccess; }
cudaError_t cudaSetValidDevices(int *l, int n) { (void)l; (void)n; return cudaSuccess; }
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d) {
  if (!v || d != 0) return fail(cudaErrorInvalidDevice);
  switch (a) {
    case cudaDevAttrMaxThreadsPerBlock: *v = 1024; break;
    case cudaDevAttrMaxBlockDimX: case cudaDevAttrMaxBlockDimY: *v = 1024; break;
    case cudaDevAttrMaxBlockDimZ: *v = 64; break;
    case cudaDevAttrMaxGridDimX: *v = 2147483647; break;
    case cudaDevAttrMaxGridDimY: case cudaDevAttrMaxGridDimZ: *v = 65535; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = 48 * 1024; break;
    case cudaDevAttrTotalConstantMemory: *v = 64 * 1024; break;
    case cudaDevAttrWarpSize: *v = 32; break;
    case cudaDevAttrMaxPitch: *v = 2147483647; break;
    case cudaDevAttrMaxRegistersPerBlock: case cudaDevAttrMaxRegistersPerMultiprocessor: *v = 65536; break;
    case cudaDevAttrClockRate: *v = 1410000; break;
    case cudaDevAttrMemoryClockRate: *v = 1215000; break;
    case cudaDevAttrGlobalMemoryBusWidth: *v = 5120; break;
    case cudaDevAttrTextureAlignment: *v = 512; break;
    case cudaDevAttrTexturePitchAlignment: *v = 32; break;
    case cudaDevAttrMultiProcessorCount: *v = 8; break;
    case cudaDevAttrComputeCapabilityMajor: *v = 8; break;
    case cudaDevAttrComputeCapabilityMinor: *v = 0; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = 2048; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = 164 * 1024; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = 227 * 1024; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *v = 32; break;
    case cudaDevAttrL2CacheSize: *v = 40 << 20; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *v = 1024; break;
    case cudaDevAttrMaxPersistingL2CacheSize: *v = 30 << 20; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: *v = 128 << 20; break;
    case cudaDevAttrUnifiedAddressing: case cudaDevAttrManagedMemory: case cudaDevAttrCanMapHostMemory:
    case cudaDevAttrConcurrentKernels: case cudaDevAttrCooperativeLaunch: case cudaDevAttrConcurrentManagedAccess:
    case cudaDevAttrStreamPrioritiesSupported: case cudaDevAttrComputePreemptionSupported:
    case cudaDevAttrMemoryPoolsSupported: case cudaDevAttrGpuOverlap:
      *v = 1; break;
    case cudaDevAttrAsyncEngineCount: *v = 2; break;
    default: *v = 0;
  }
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d) {
  if (!p || d != 0) return fail(cudaErrorInvalidDevice);
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "ptxdbg emulated GPU (sm_80)");
  if (mem_info(NULL, &p->totalGlobalMem) != cudaSuccess) p->totalGlobalMem = 0;
  p->sharedMemPerBlock = 48 * 1024;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024; p->maxThreadsDim[1] = 1024; p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647; p->maxGridSize[1] = 65535; p->maxGridSize[2] = 65535;
  p->totalConstMem = 64 * 1024;
  p->major = 8; p->minor = 0;
  p->textureAlignment = 512; p->texturePitchAlignment = 32;
  p->multiProcessorCount = 8;
  p->canMapHostMemory = 1;
  p->concurrentKernels = 1;
  p->asyncEngineCount = 2;
  p->unifiedAddressing = 1;
  p->memoryBusWidth = 5120;
  p->l2CacheSize = 40 << 20;
  p->maxThreadsPerMultiProcessor = 2048;
  p->streamPrioritiesSupported = 1;
  p->sharedMemPerMultiprocessor = 164 * 1024;
  p->regsPerMultiprocessor = 65536;
  p->managedMemory = 1;
  p->concurrentManagedAccess = 1;
  p->cooperativeLaunch = 1;
  p->sharedMemPerBlockOptin = 227 * 1024;
  p->maxBlocksPerMultiProcessor = 32;
  p->reservedSharedMemPerBlock = 1024;
  p->memoryPoolsSupported = 1;
  p->persistingL2CacheMaxSize = 30 << 20;
  p->accessPolicyMaxWindowSize = 128 << 20;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetLimit(size_t *v, enum cudaLimit l) {
  if (!v) return fail(cudaErrorInvalidValue);
  *v = l == cudaLimitStackSize ? 1024 : l == cudaLimitPrintfFifoSize ? (1 << 20) : l == cudaLimitMallocHeapSize ? (8 << 20) : 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetLimit(enum cudaLimit l, size_t v) { (void)l; (void)v; return cudaSuccess; }
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache c) { (void)c; return cudaSuccess; }
cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *c) { if (c) *c = cudaFuncCachePreferNone; return cudaSuccess; }
cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) { if (least) *least = 0; if (greatest) *greatest = -5; return cudaSuccess; }
cudaError_t cudaDeviceCanAccessPeer(int *can, int d, int p) { (void)d; (void)p; if (can) *can = 0; return cudaSuccess; }
cudaError_t cudaDeviceEnablePeerAccess(int p, unsigned int f) { (void)p; (void)f; return fail(cudaErrorInvalidDevice); }
cudaError_t cudaDeviceSynchronize(void) { CHECK_STICKY(); return cudaSuccess; }
cudaError_t cudaDeviceReset(void) {
  for (int i = 0; i < nvisible; i++)
    mmap((void *)(uintptr_t)visible[i].ptr, visible[i].size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  nvisible = 0;
  sticky = cudaSuccess;
  last_error = cudaSuccess;
  return simple(OP_RESET, NULL, 0, NULL, 0);
}
cudaError_t cudaDriverGetVersion(int *v) { if (v) *v = 13000; return cudaSuccess; }
cudaError_t cudaRuntimeGetVersion(int *v) { if (v) *v = 13000; return cudaSuccess; }

/* ---- streams and events: in order, synchronous ------------------------------------------------- */

/* ---- errors ---------------------------------------------------------------------------------- */

/*
 * A failed call, for `ptxdbg sanitize` (compute-sanitizer's "Program hit ... on CUDA API call to"):
 * the error, the API function and the program's frames. A call failing inside another (fail()
 * again on the way out, no request in between) is one report: same app frames, other frames here.
 */
static void report_api_error(cudaError_t e) {
  if (fd < 0) return;
  static unsigned char prev[4096];
  static size_t prev_len;
  static cudaError_t prev_e;
  static unsigned long prev_seq;
  static uint64_t prev_inner;
  unsigned char q[4 + 4096];
  const char *api = NULL;
  uint64_t inner = 0;
  uint32_t code = (uint32_t)e;
  memcpy(q, &code, 4);
  size_t n = ptxdbg_frames(q + 4, sizeof q - 4, &api, &inner);
  if (e == prev_e && requests == prev_seq && inner != prev_inner && n == prev_len && memcmp(prev, q + 4, n) == 0) return;
  char names[512];
  int alen = snprintf(names, sizeof names, "%s%c%s%c%s", api ? api : "", 0, cudaGetErrorName(e), 0, cudaGetErrorString(e));
  call(OP_API_ERROR, q, 4 + n, names, alen < 0 ? 0 : (size_t)alen < sizeof names ? (size_t)alen : sizeof names - 1, NULL, 0, NULL, NULL);
  memcpy(prev, q + 4, n); prev_len = n; prev_e = e; prev_seq = requests; prev_inner = inner;
}

/* Where an allocation was made, for `ptxdbg sanitize --leak-check full`: its pointer and frames. */
static void report_alloc_site(uint64_t ptr) {
  unsigned char q[8 + 4096];
  memcpy(q, &ptr, 8);
  size_t n = ptxdbg_frames(q + 8, sizeof q - 8, NULL, NULL);
  call(OP_ALLOC_SITE, q, 8 + n, NULL, 0, NULL, 0, NULL, NULL);
}

cudaError_t cudaGetLastError(void) {
  cudaError_t e = last_error;
  last_error = sticky;
  return e;
}
cudaError_t cudaPeekAtLastError(void) { return last_error; }

static const struct { cudaError_t code; const char *name, *text; } errors[] = {
  { cudaSuccess, "cudaSuccess", "no error" },
  { cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument" },
  { cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory" },
  { cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error" },
  { cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration", "__global__ function call is not configured" },
  { cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument" },
  { cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument" },
  { cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol" },
  { cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer" },
  { cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy" },
  { cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function" },
  { cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected" },
  { cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal" },
  { cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device" },
  { cudaErrorInvalidPtx, "cudaErrorInvalidPtx", "a PTX JIT compilation failed" },
  { cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle" },
  { cudaErrorNotReady, "cudaErrorNotReady", "device not ready" },
  { cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered" },
  { cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated" },
  { cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered" },
  { cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address" },
  { cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure" },
  { cudaErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch" },
  { cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported" },
  { cudaErrorDevicesUnavailable, "cudaErrorDevicesUnavailable", "CUDA-capable device(s) is/are busy or unavailable" },
};
const char *cudaGetErrorString(cudaError_t e) {
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) if (errors[i].code == e) return errors[i].text;
  return "unrecognized error code";
}
const char *cudaGetErrorName(cudaError_t e) {
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) if (errors[i].code == e) return errors[i].name;
  return "cudaErrorUnknown";
}

/* ---- no-ops a CPU device can honour ------------------------------------------------------------ */

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f) {
  struct cudaChannelFormatDesc d = { x, y, z, w, f };
  return d;
}
cudaError_t cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID a, const cudaStreamAttrValue *v) { (void)s; (void)a; (void)v; return cudaSuccess; }
cudaError_t cudaStreamGetAttribute(cudaStream_t s, cudaStreamAttrID a, cudaStreamAttrValue *v) { (void)s; (void)a; if (v) memset(v, 0, sizeof *v); return cudaSuccess; }
cudaError_t cudaCtxResetPersistingL2Cache(void) { return cudaSuccess; }

/* ---- host memory the program registers: copies work, the device cannot reach it ------------- */

cudaError_t cudaHostRegister(void *p, size_t n, unsigned int flags) {
  (void)p; (void)n;
  static int once;
  if ((flags & cudaHostRegisterMapped) && !once) {
    once = 1;
    fprintf(stderr, "ptxdbg: cudaHostRegister: registered memory is used for copies; kernels cannot read it directly (use cudaHostAlloc or cudaMallocManaged)\n");
  }
  return cudaSuccess;
}
cudaError_t cudaHostUnregister(void *p) { (void)p; return cudaSuccess; }

/* ---- CUDA arrays, texture and surface objects ----------------------------------------------- */



static size_t elem_bytes(const struct cudaChannelFormatDesc *d) {
  return (size_t)(d->x + d->y + d->z + d->w) / 8;
}
static cudaError_t array_alloc(cudaArray_t *a, const struct cudaChannelFormatDesc *desc, size_t w, size_t h, size_t d, unsigned flags) {
  CHECK_STICKY();
  if (!a || !desc || w == 0) return fail(cudaErrorInvalidValue);
  struct cudaArray *x = calloc(1, sizeof *x);
  if (!x) return fail(cudaErrorMemoryAllocation);
  x->w = w; x->h = h; x->d = d; x->flags = flags; x->desc = *desc; x->elem = elem_bytes(desc);
  if (x->elem == 0) { free(x); return fail(cudaErrorInvalidChannelDescriptor); }
  void *p = NULL;
  cudaError_t e = dev_alloc(&p, x->elem * w * (h ? h : 1) * (d ? d : 1), 0);
  if (e != cudaSuccess) { free(x); return e; }
  x->dev = (uintptr_t)p;
  *a = x;
  return cudaSuccess;
}
cudaError_t cudaMallocArray(cudaArray_t *a, const struct cudaChannelFormatDesc *desc, size_t w, size_t h, unsigned int flags) {
  return array_alloc(a, desc, w, h, 0, flags);
}
cudaError_t cudaMalloc3DArray(cudaArray_t *a, const struct cudaChannelFormatDesc *desc, struct cudaExtent e, unsigned int flags) {
  return array_alloc(a, desc, e.width, e.height, e.depth, flags);
}
cudaError_t cudaFreeArray(cudaArray_t a) {
  if (!a) return cudaSuccess;
  cudaError_t e = dev_free((void *)(uintptr_t)a->dev);
  free(a);
  return e;
}
cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t a) {
  if (!desc || !a) return fail(cudaErrorInvalidValue);
  *desc = a->desc;
  return cudaSuccess;
}
cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *ext, unsigned int *flags, cudaArray_t a) {
  if (!a) return fail(cudaErrorInvalidValue);
  if (desc) *desc = a->desc;
  if (ext) { ext->width = a->w; ext->height = a->h; ext->depth = a->d; }
  if (flags) *flags = a->flags;
  return cudaSuccess;
}
static size_t row_bytes(cudaArray_const_t a) { return a->w * a->elem; }
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wo, size_t ho, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind) {
  if (!dst) return fail(cudaErrorInvalidValue);
  if (wo + width > row_bytes(dst) || ho + height > (dst->h ? dst->h : 1)) return fail(cudaErrorInvalidValue);
  return cudaMemcpy2D((char *)(uintptr_t)dst->dev + ho * row_bytes(dst) + wo, row_bytes(dst), src, spitch, width, height, kind);
}
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wo, size_t ho, size_t width, size_t height, enum cudaMemcpyKind kind) {
  if (!src) return fail(cudaErrorInvalidValue);
  if (wo + width > row_bytes(src) || ho + height > (src->h ? src->h : 1)) return fail(cudaErrorInvalidValue);
  return cudaMemcpy2D(dst, dpitch, (const char *)(uintptr_t)src->dev + ho * row_bytes(src) + wo, row_bytes(src), width, height, kind);
}
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wo, size_t ho, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t s) {
  (void)s; return cudaMemcpy2DToArray(dst, wo, ho, src, spitch, width, height, kind);
}
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wo, size_t ho, size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t s) {
  (void)s; return cudaMemcpy2DFromArray(dst, dpitch, src, wo, ho, width, height, kind);
}
/* The linear forms: `count` bytes from (wOffset, hOffset) on, row after row. */
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wo, size_t ho, const void *src, size_t count, enum cudaMemcpyKind kind) {
  if (!dst) return fail(cudaErrorInvalidValue);
  size_t off = ho * row_bytes(dst) + wo;
  if (off + count > row_bytes(dst) * (dst->h ? dst->h : 1) * (dst->d ? dst->d : 1)) return fail(cudaErrorInvalidValue);
  return cudaMemcpy((char *)(uintptr_t)dst->dev + off, src, count, kind);
}
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wo, size_t ho, size_t count, enum cudaMemcpyKind kind) {
  if (!src) return fail(cudaErrorInvalidValue);
  size_t off = ho * row_bytes(src) + wo;
  if (off + count > row_bytes(src) * (src->h ? src->h : 1) * (src->d ? src->d : 1)) return fail(cudaErrorInvalidValue);
  return cudaMemcpy(dst, (const char *)(uintptr_t)src->dev + off, count, kind);
}

/* An image as ptxdbg's texture unit sees it (src/host/device.ts createImage). */
struct ImageMsg {
  uint64_t base;
  uint32_t surface, kind, bits, channels, dims, width, height, depth, layers, cube, row_pitch;
  uint32_t address[3], filter, normalized, read_mode;
  float border[4];
};
static int format_of(const struct cudaChannelFormatDesc *d, struct ImageMsg *m) {
  int n = (d->x > 0) + (d->y > 0) + (d->z > 0) + (d->w > 0);
  if (n == 3 || d->x <= 0 || (d->y && d->y != d->x) || (d->z && d->z != d->x) || (d->w && d->w != d->x)) return 0;
  m->channels = (uint32_t)n; m->bits = (uint32_t)d->x;
  m->kind = d->f == cudaChannelFormatKindFloat ? 2 : d->f == cudaChannelFormatKindSigned ? 1 : d->f == cudaChannelFormatKindUnsigned ? 0 : 9;
  return m->kind != 9 && (m->bits == 8 || m->bits == 16 || m->bits == 32);
}
static cudaError_t image_of(const struct cudaResourceDesc *r, struct ImageMsg *m) {
  memset(m, 0, sizeof *m);
  m->depth = 1; m->layers = 1; m->height = 1;
  if (r->resType == cudaResourceTypeArray) {
    cudaArray_t a = r->res.array.array;
    if (!a || !format_of(&a->desc, m)) return cudaErrorInvalidChannelDescriptor;
    m->base = a->dev; m->width = (uint32_t)a->w;
    m->height = a->h ? (uint32_t)a->h : 1;
    m->dims = a->h ? 2 : 1;
    if (a->flags & cudaArrayCubemap) { m->cube = 1; m->layers = a->d ? (uint32_t)(a->d / 6) : 1; m->dims = 2; }
    else if (a->flags & cudaArrayLayered) { m->layers = a->d ? (uint32_t)a->d : 1; }
    else if (a->d) { m->dims = 3; m->depth = (uint32_t)a->d; }
    m->row_pitch = (uint32_t)row_bytes(a);
  } else if (r->resType == cudaResourceTypeLinear) {
    if (!format_of(&r->res.linear.desc, m)) return cudaErrorInvalidChannelDescriptor;
    m->base = (uintptr_t)r->res.linear.devPtr; m->dims = 1;
    m->width = (uint32_t)(r->res.linear.sizeInBytes / (m->bits / 8 * m->channels));
    m->row_pitch = (uint32_t)r->res.linear.sizeInBytes;
  } else if (r->resType == cudaResourceTypePitch2D) {
    if (!format_of(&r->res.pitch2D.desc, m)) return cudaErrorInvalidChannelDescriptor;
    m->base = (uintptr_t)r->res.pitch2D.devPtr; m->dims = 2;
    m->width = (uint32_t)r->res.pitch2D.width; m->height = (uint32_t)r->res.pitch2D.height;
    m->row_pitch = (uint32_t)r->res.pitch2D.pitchInBytes;
  } else return cudaErrorNotSupported;
  return cudaSuccess;
}
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *obj, const struct cudaResourceDesc *r, const struct cudaTextureDesc *t, const struct cudaResourceViewDesc *v) {
  CHECK_STICKY();
  (void)v;
  if (!obj || !r || !t) return fail(cudaErrorInvalidValue);
  struct ImageMsg m;
  cudaError_t e = image_of(r, &m);
  if (e != cudaSuccess) return fail(e);
  for (int k = 0; k < 3; k++) m.address[k] = (uint32_t)t->addressMode[k];
  m.filter = (uint32_t)t->filterMode; m.normalized = (uint32_t)t->normalizedCoords; m.read_mode = (uint32_t)t->readMode;
  for (int k = 0; k < 4; k++) m.border[k] = t->borderColor[k];
  uint64_t h = 0;
  e = simple(OP_IMAGE, &m, sizeof m, &h, 8);
  if (e == cudaSuccess) *obj = h;
  return fail(e);
}
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *obj, const struct cudaResourceDesc *r) {
  CHECK_STICKY();
  if (!obj || !r || r->resType != cudaResourceTypeArray) return fail(cudaErrorInvalidValue);
  struct ImageMsg m;
  cudaError_t e = image_of(r, &m);
  if (e != cudaSuccess) return fail(e);
  m.surface = 1;
  uint64_t h = 0;
  e = simple(OP_IMAGE, &m, sizeof m, &h, 8);
  if (e == cudaSuccess) *obj = h;
  return fail(e);
}
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t o) { (void)o; return cudaSuccess; }
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t o) { (void)o; return cudaSuccess; }

/* ---- memory pools: one device heap; a pool's settings are kept and have no effect --------------- */

struct CUmemPoolHandle_st { unsigned long long threshold; };
static struct CUmemPoolHandle_st default_pool;
static struct CUmemPoolHandle_st *current_pool = &default_pool;
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *p, int d) {
  if (!p || d != 0) return fail(cudaErrorInvalidValue);
  *p = &default_pool;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *p, int d) {
  if (!p || d != 0) return fail(cudaErrorInvalidValue);
  *p = current_pool;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetMemPool(int d, cudaMemPool_t p) {
  if (!p || d != 0) return fail(cudaErrorInvalidValue);
  current_pool = p;
  return cudaSuccess;
}
cudaError_t cudaMemPoolCreate(cudaMemPool_t *p, const struct cudaMemPoolProps *props) {
  (void)props;
  if (!p) return fail(cudaErrorInvalidValue);
  *p = calloc(1, sizeof **p);
  return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}
cudaError_t cudaMemPoolDestroy(cudaMemPool_t p) { if (p && p != &default_pool) free(p); return cudaSuccess; }
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t p, enum cudaMemPoolAttr a, void *v) {
  if (!p || !v) return fail(cudaErrorInvalidValue);
  if (a == cudaMemPoolAttrReleaseThreshold) p->threshold = *(unsigned long long *)v;
  return cudaSuccess;
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t p, enum cudaMemPoolAttr a, void *v) {
  if (!p || !v) return fail(cudaErrorInvalidValue);
  if (a == cudaMemPoolAttrReleaseThreshold) *(unsigned long long *)v = p->threshold;
  else if (a == cudaMemPoolReuseFollowEventDependencies || a == cudaMemPoolReuseAllowOpportunistic || a == cudaMemPoolReuseAllowInternalDependencies) *(int *)v = 1;
  else *(unsigned long long *)v = 0;
  return cudaSuccess;
}
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t p, size_t keep) { (void)p; (void)keep; return cudaSuccess; }
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t p, const struct cudaMemAccessDesc *d, size_t n) { (void)p; (void)d; (void)n; return cudaSuccess; }
cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t n, cudaMemPool_t p, cudaStream_t s) { (void)p; (void)s; return dev_alloc(ptr, n, 0); }
