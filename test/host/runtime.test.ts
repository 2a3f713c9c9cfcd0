/**
 * The ptxdbg CUDA runtime answers as a GPU's does: small programs built with nvcc and run under
 * `ptxdbg exec`, each printing what the runtime returned. Expected values come from the CUDA
 * Runtime API documentation (cuda_runtime_api.h of CUDA 13), quoted beside each assertion, or
 * from the arithmetic of the program itself.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingTool, ROOT, testIf } from '../helpers.js';
import { nvccBuildAll } from './nvcc.js';

const CLI = join(ROOT, 'dist', 'bin', 'ptxdbg.js');
const RUNTIME = join(ROOT, 'dist', 'cudart', 'libcudart.so.13');
const why = missingTool('nvcc') ?? (existsSync(RUNTIME) ? null : `the ptxdbg runtime is not built (${RUNTIME})`);
const run = testIf(why);

// cudaError_t values (driver_types.h)
const SUCCESS = 0, INVALID_VALUE = 1, MEMORY_ALLOCATION = 2, INITIALIZATION_ERROR = 3, ILLEGAL_ADDRESS = 700;

/** C: the peak RSS (VmHWM, KiB) of the process that started this one: ptxdbg exec serving the program. */
const PARENT_HWM = `static long parent_hwm_kib() {
  char path[64]; snprintf(path, sizeof path, "/proc/%d/status", (int)getppid());
  FILE *f = fopen(path, "r"); if (!f) return -1;
  char line[256]; long v = -1;
  while (fgets(line, sizeof line, f)) if (sscanf(line, "VmHWM: %ld kB", &v) == 1) break;
  fclose(f); return v;
}`;
const PROGRAMS: Record<string, string> = {
  // cudaMalloc failures, size 0, reuse of freed memory, and what the device says it has
  alloc: `#include <cstdio>
__global__ void fill(int *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = 3 * i; }
int main(int argc, char **argv) {
  void *p = 0;
  printf("max %d\\n", (int)cudaMalloc(&p, (size_t)-1));
  int l1 = (int)cudaGetLastError(), l2 = (int)cudaGetLastError();
  printf("last %d then %d\\n", l1, l2);
  printf("2^50 %d\\n", (int)cudaMalloc(&p, (size_t)1 << 50));
  cudaGetLastError();
  int *d = 0, h[100];
  printf("small %d\\n", (int)cudaMalloc(&d, sizeof h));
  fill<<<1, 128>>>(d, 100);
  int l = (int)cudaGetLastError(), c = (int)cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("launch %d copy %d h[99]=%d\\n", l, c, h[99]);
  void *z = (void *)1;
  int zm = (int)cudaMalloc(&z, 0), zn = z == 0, zf = (int)cudaFree(z);
  printf("zero %d null %d free %d\\n", zm, zn, zf);
  cudaDeviceProp prop; size_t f0, t0, f1, t1;
  cudaGetDeviceProperties(&prop, 0);
  cudaMemGetInfo(&f0, &t0);
  printf("total %zu prop %zu free<=total %d\\n", t0, prop.totalGlobalMem, f0 <= t0);
  size_t sizes[] = { (size_t)256 << 20, (size_t)512 << 20, (size_t)1 << 30 };
  for (size_t s : sizes) { void *q = 0; cudaError_t a = cudaMalloc(&q, s); cudaError_t f = cudaFree(q); printf("%zu MiB %d %d\\n", s >> 20, (int)a, (int)f); }
  cudaMemGetInfo(&f1, &t1);
  printf("free again %d\\n", f1 == f0);
  size_t big = (size_t)atoi(argv[1]) << 20;
  char *b = 0;
  cudaError_t e = cudaMalloc(&b, big);
  char last = 0;
  if (e == cudaSuccess) { cudaMemset(b + big - 1, 7, 1); cudaMemcpy(&last, b + big - 1, 1, cudaMemcpyDeviceToHost); }
  printf("%zu MiB %d last %d\\n", big >> 20, (int)e, (int)last);
  return 0;
}
`,
  // dynamic shared memory above the default 48 KiB, with and without the opt-in
  shmem: `#include <cstdio>
__global__ void k(int *out, int n) {
  __shared__ int fixed[256];
  extern __shared__ int dyn[];
  fixed[threadIdx.x] = threadIdx.x;
  for (int i = threadIdx.x; i < n; i += blockDim.x) dyn[i] = i;
  __syncthreads();
  if (threadIdx.x == 0) *out = dyn[n - 1] + fixed[255];
}
int main() {
  int *d, h = 0;
  cudaMalloc(&d, 4);
  size_t room = 48 * 1024 - 1024;
  k<<<1, 256, room>>>(d, (int)(room / 4));
  int e1 = (int)cudaGetLastError();
  cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost);
  printf("47KiB %d out %d\\n", e1, h);
  k<<<1, 256, room + 4>>>(d, 1);
  printf("47KiB+4 %d\\n", (int)cudaGetLastError());
  k<<<1, 256, 64 * 1024>>>(d, 1);
  printf("64KiB %d\\n", (int)cudaGetLastError());
  k<<<1, 256, ((size_t)1 << 32) + 16>>>(d, 1);
  printf("4GiB+16 %d\\n", (int)cudaGetLastError());
  printf("set 227KiB %d\\n", (int)cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
  cudaGetLastError();
  printf("set 64KiB %d\\n", (int)cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
  cudaFuncAttributes a; cudaFuncGetAttributes(&a, k);
  printf("max %d static %zu\\n", a.maxDynamicSharedSizeBytes, a.sharedSizeBytes);
  k<<<1, 256, 64 * 1024>>>(d, 16384);
  int e2 = (int)cudaGetLastError();
  cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost);
  printf("64KiB %d out %d\\n", e2, h);
  k<<<1, 256, 64 * 1024 + 4>>>(d, 1);
  printf("64KiB+4 %d\\n", (int)cudaGetLastError());
  return 0;
}
`,
  // a child forked after CUDA is initialised cannot use it; the parent goes on
  fork: `#include <cstdio>
#include <unistd.h>
#include <sys/wait.h>
__global__ void add(int *p, int v) { p[threadIdx.x] += v; }
int main() {
  int *d, h[32] = {0};
  cudaMalloc(&d, sizeof h);
  cudaMemset(d, 0, sizeof h);
  add<<<1, 32>>>(d, 1);
  cudaDeviceSynchronize();
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int *c = 0;
    int m = (int)cudaMalloc(&c, 16);
    add<<<1, 32>>>(d, 100);
    int l = (int)cudaGetLastError();
    int cp = (int)cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("child %d %d %d\\n", m, l, cp);
    fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  add<<<1, 32>>>(d, 10);
  int cp = (int)cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("parent %d h[0]=%d h[31]=%d\\n", cp, h[0], h[31]);
  return 0;
}
`,
  // cudaMemcpy kinds that contradict their pointers
  kinds: `#include <cstdio>
int main() {
  int *d, h[4] = {1, 2, 3, 4}, back[4] = {0};
  cudaMalloc(&d, sizeof h);
  int a = (int)cudaMemcpy(d, h, sizeof h, cudaMemcpyDeviceToHost);
  int b = (int)cudaMemcpy(back, d, sizeof h, cudaMemcpyDefault);
  int c = (int)cudaMemcpy(back, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d %d %d back %d %d\\n", a, b, c, back[0], back[3]);
  return 0;
}
`,
  // an access through a pointer whose memory was freed
  uaf: `#include <cstdio>
__global__ void put(int *p) { p[threadIdx.x] = 1; }
int main() {
  int *a, *b;
  cudaMalloc(&a, 1024);
  cudaMalloc(&b, 1024);
  put<<<1, 4>>>(a);
  cudaDeviceSynchronize();
  cudaFree(a);
  put<<<1, 4>>>(a);
  printf("sync %d\\n", (int)cudaDeviceSynchronize());
  return 0;
}
`,
  // a histogram with atomicAdd, built with -G: its atomicAdd wrapper takes its arguments in .param memory
  histG: `#include <cstdio>
__global__ void count(const int *in, int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[in[i] & 7], 1);
}
int main() {
  const int n = 256; int h[n], out[8];
  for (int i = 0; i < n; i++) h[i] = i;
  int *d, *hist;
  cudaMalloc(&d, sizeof h); cudaMalloc(&hist, sizeof out);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(hist, 0, sizeof out);
  count<<<2, 128>>>(d, hist, n);
  cudaMemcpy(out, hist, sizeof out, cudaMemcpyDeviceToHost);
  printf("%d %d\\n", out[0], out[7]);
  return 0;
}
`,
  // 3.2 GB on the device: its last element written by a kernel and read back, stores,
  // loads and atomics past 2 GiB, what cudaMemGetInfo says, and the host memory it all costs
  big: `#include <cstdio>
#include <cstdlib>
#include <unistd.h>
// Allocates 3.2 GB, writes its last int in a kernel, reads it back; reports what the device has
// and the peak host memory of the process serving the device (the program's parent: ptxdbg exec).
__global__ void last(int *p, size_t n) { p[n - 1] = 12345; p[0] = 7; }
// 1024 threads, each writing one int 3.2 MB apart: pages all over the allocation, 4 MiB in all
__global__ void spread(int *p, size_t n) { size_t i = blockIdx.x * blockDim.x + threadIdx.x; p[i * (n / 1024) + 1] = (int)i + 1; atomicAdd(&p[n - 2], 5); }
// loads past 2 GiB: the last element plus the last thread's of spread, and the atomics' sum
__global__ void gather(int *p, size_t n) { p[2] = p[n - 1] + p[1023 * (n / 1024) + 1]; p[3] = p[n - 2]; }
${PARENT_HWM}
int main() {
  size_t f0, t0, f1, t1;
  cudaMemGetInfo(&f0, &t0);
  cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0);
  printf("total %zu prop %zu\\n", t0, prop.totalGlobalMem);
  size_t bytes = 3200000000ull, n = bytes / sizeof(int);
  int *d = 0;
  cudaError_t e = cudaMalloc(&d, bytes);
  cudaMemGetInfo(&f1, &t1);
  printf("malloc %d used %d\\n", (int)e, f0 - f1 >= bytes && f0 - f1 < bytes + (1 << 20));
  cudaMemset(d + n - 2, 0, sizeof(int)); // the atomics add to it
  last<<<1, 1>>>(d, n);
  int h = 0, h0 = 0;
  int l = (int)cudaGetLastError();
  int c = (int)cudaMemcpy(&h, d + n - 1, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(&h0, d, sizeof h0, cudaMemcpyDeviceToHost);
  printf("launch %d copy %d last %d first %d\\n", l, c, h, h0);
  spread<<<8, 128>>>(d, n);
  int s = 0;
  cudaMemcpy(&s, d + 1023 * (n / 1024) + 1, sizeof s, cudaMemcpyDeviceToHost);
  printf("spread %d element %d\\n", (int)cudaGetLastError(), s);
  gather<<<1, 1>>>(d, n);
  int g[2] = { 0, 0 };
  cudaMemcpy(g, d + 2, sizeof g, cudaMemcpyDeviceToHost);
  printf("gather %d sum %d atomics %d\\n", (int)cudaGetLastError(), g[0], g[1]);
  int fr = (int)cudaFree(d);
  size_t f2, t2;
  cudaMemGetInfo(&f2, &t2);
  printf("free %d back %d\\n", fr, f2 == f0 && t2 == t0);
  fprintf(stderr, "ptxdbg exec peak rss %ld MiB\\n", parent_hwm_kib() / 1024);
  return 0;
}
`,
  // 6 GiB in two 3 GiB buffers (past the first 4 GiB of the device): a kernel writes the start and
  // end of each, the host reads them back; a single 5 GiB allocation; host memory it all costs
  six: `#include <cstdio>
#include <unistd.h>
__global__ void mark(int *a, int *b, size_t n, int *flags) {
  a[0] = 11; a[n - 1] = 12; b[0] = 21; b[n - 1] = 22;
  atomicAdd(&b[1], 5); atomicAdd(&b[1], 5);
  flags[0] = __isGlobal(b + n - 1); flags[1] = __isShared(b + n - 1);
}
// 8192 threads, each writing one int 384 KiB apart in b: pages all over bank 1 (on worker threads with --workers)
__global__ void spread(int *b, size_t n) { size_t i = blockIdx.x * blockDim.x + threadIdx.x; b[i * (n / 8192) + 2] = (int)i + 1; }
__global__ void sum(const int *a, const int *b, size_t n, int *out) { *out = a[0] + a[n - 1] + b[0] + b[n - 1] + b[1]; }
${PARENT_HWM}
int main() {
  size_t f0, t0;
  cudaMemGetInfo(&f0, &t0);
  cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0);
  printf("total %zu prop %zu\\n", t0, prop.totalGlobalMem);
  size_t bytes = (size_t)3 << 30, n = bytes / sizeof(int);
  int *a = 0, *b = 0, *flags = 0, *out = 0;
  int ea = (int)cudaMalloc(&a, bytes), eb = (int)cudaMalloc(&b, bytes);
  cudaMalloc(&flags, 8); cudaMalloc(&out, 4);
  printf("malloc %d %d\\n", ea, eb);
  cudaMemset(b + 1, 0, sizeof(int));
  mark<<<1, 1>>>(a, b, n, flags);
  int l = (int)cudaGetLastError();
  int h[5] = { 0, 0, 0, 0, 0 }, fl[2] = { -1, -1 };
  cudaMemcpy(&h[0], a, 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(&h[1], a + n - 1, 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(&h[2], b, 4, cudaMemcpyDefault);
  int c = (int)cudaMemcpy(&h[3], b + n - 1, 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(&h[4], b + 1, 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(fl, flags, 8, cudaMemcpyDeviceToHost);
  printf("launch %d copy %d values %d %d %d %d atomics %d global %d shared %d\\n", l, c, h[0], h[1], h[2], h[3], h[4], fl[0], fl[1]);
  sum<<<1, 1>>>(a, b, n, out);
  int s = 0;
  cudaMemcpy(&s, out, 4, cudaMemcpyDeviceToHost);
  printf("sum %d\\n", s);
  spread<<<64, 128>>>(b, n);
  int sp = 0;
  cudaMemcpy(&sp, b + 8191 * (n / 8192) + 2, 4, cudaMemcpyDeviceToHost);
  printf("spread %d element %d\\n", (int)cudaGetLastError(), sp);
  void *big = 0;
  int e5 = (int)cudaMalloc(&big, (size_t)5 << 30);
  int last = (int)cudaGetLastError();
  int fa = (int)cudaFree(a), fb = (int)cudaFree(b);
  size_t f2, t2;
  cudaMemGetInfo(&f2, &t2);
  printf("5GiB %d last %d free %d %d back %d\\n", e5, last, fa, fb, f0 - f2 < ((size_t)1 << 20));
  fprintf(stderr, "ptxdbg exec peak rss %ld MiB\\n", parent_hwm_kib() / 1024);
  return 0;
}
`,
};
const FLAGS: Record<string, string[]> = { histG: ['-G'] };

let bin: string;

beforeAll(async () => {
  if (why) return;
  bin = mkdtempSync(join(tmpdir(), 'ptxdbg-runtime-'));
  const jobs = Object.entries(PROGRAMS).map(([name, text]) => {
    writeFileSync(join(bin, `${name}.cu`), text);
    return { name, source: join(bin, `${name}.cu`), out: join(bin, name), flags: FLAGS[name] ?? [] };
  });
  const failures = await nvccBuildAll(jobs);
  if (failures.size) throw new Error(`nvcc failed: ${[...failures].map(([n, e]) => `${n}: ${e}`).join('\n')}`);
}, 600_000);
afterAll(() => { if (bin) rmSync(bin, { recursive: true, force: true }); });

function exec(args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, 'exec', ...args], { encoding: 'utf8', cwd: bin, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

run('cudaMalloc of an impossible size is cudaErrorMemoryAllocation and every later call works', () => {
  // "cudaMalloc() returns cudaErrorMemoryAllocation in case of failure"; the error is not sticky:
  // cudaGetLastError "resets it to cudaSuccess"
  const r = exec(['--', './alloc', '1536']);
  expect(r.code).toBe(0);
  const lines = r.out.split('\n');
  expect(lines.slice(0, 5)).toEqual([
    `max ${MEMORY_ALLOCATION}`, `last ${MEMORY_ALLOCATION} then ${SUCCESS}`, `2^50 ${MEMORY_ALLOCATION}`, `small ${SUCCESS}`,
    `launch ${SUCCESS} copy ${SUCCESS} h[99]=297`,
  ]);
  expect(r.err).toContain('ptxdbg: cudaMalloc: out of device memory allocating 18446744073709551615 bytes');
  expect(r.err).not.toContain('connection');
});

run('cudaMalloc of 0 bytes succeeds with the null pointer, and cudaFree of it is a no-op', () => {
  // cudaFree: "If devPtr is 0, no operation is performed"
  const r = exec(['--', './alloc', '16']);
  expect(r.out).toContain(`zero ${SUCCESS} null 1 free ${SUCCESS}\n`);
});

run('freed device memory is one block again: 256 MiB, 512 MiB, 1 GiB in turn, then 1.5 GiB; the device reports what it has', () => {
  const r = exec(['--', './alloc', '1536']);
  // totalGlobalMem and cudaMemGetInfo's total agree: an A100 40GB's 40 GiB
  expect(r.out).toContain(`total ${40 * 2 ** 30} prop ${40 * 2 ** 30} free<=total 1\n`);
  expect(r.out).toContain(`256 MiB ${SUCCESS} ${SUCCESS}\n512 MiB ${SUCCESS} ${SUCCESS}\n1024 MiB ${SUCCESS} ${SUCCESS}\nfree again 1\n`);
  // its last byte is usable (cudaMemset 7 read back)
  expect(r.out).toContain(`1536 MiB ${SUCCESS} last 7\n`);
});

run('--device-memory sets the device memory the program sees and gets', () => {
  const r = exec(['--device-memory', '1G', '--', './alloc', '768']);
  expect(r.out).toContain(`total ${2 ** 30} prop ${2 ** 30} free<=total 1\n`);
  expect(r.out).toContain(`1024 MiB ${MEMORY_ALLOCATION} ${SUCCESS}\n`);
  expect(r.out).toContain(`768 MiB ${SUCCESS} last 7\n`);
  const bad = exec(['--device-memory', 'lots', '--', './alloc', '1']);
  expect(bad.code).toBe(2);
  expect(bad.err).toContain('--device-memory lots: expected a size');
  // an A100 80GB's 80 GiB is the most; one line says so past it
  const most = exec(['--device-memory', '80G', '--', './alloc', '1']);
  expect(most.out).toContain(`total ${80 * 2 ** 30} prop ${80 * 2 ** 30} free<=total 1\n`);
  const big = exec(['--device-memory', '81G', '--', './alloc', '1']);
  expect(big.code).toBe(2);
  expect(big.err.trim().split('\n')).toHaveLength(1);
  expect(big.err).toContain('--device-memory 81G: more than the 80 GiB ptxdbg can emulate');
  // past 2 GiB: a device of 3 GiB holds 2.5 GiB in one piece
  const three = exec(['--device-memory', '3G', '--', './alloc', '2560']);
  expect(three.out).toContain(`total ${3 * 2 ** 30} prop ${3 * 2 ** 30} free<=total 1\n`);
  expect(three.out).toContain(`2560 MiB ${SUCCESS} last 7\n`);
});

run('3.2 GB of device memory: a kernel writes its last element and it is read back; untouched memory costs the host nothing', () => {
  const r = exec(['--', './big']);
  expect(r.code).toBe(0);
  // cudaMemGetInfo: total as totalGlobalMem; free drops by the allocation (rounded up to at most
  // 1 MiB more) and is back after cudaFree; element values from the kernels' code: thread i of
  // spread writes i + 1 (1024 for the last), each of its 1024 threads adds 5
  expect(r.out.split('\n')).toEqual([
    `total ${40 * 2 ** 30} prop ${40 * 2 ** 30}`, `malloc ${SUCCESS} used 1`, `launch ${SUCCESS} copy ${SUCCESS} last 12345 first 7`,
    `spread ${SUCCESS} element 1024`, `gather ${SUCCESS} sum ${12345 + 1024} atomics ${1024 * 5}`, `free ${SUCCESS} back 1`, '',
  ]);
  // the process serving the device (the program's parent) touched a few MiB of the 3.2 GB:
  // measured 270 MiB peak with worker threads; a whole copy would be over 3 GiB
  const rss = Number(/peak rss (\d+) MiB/.exec(r.err)?.[1]);
  expect(rss).toBeGreaterThan(0);
  expect(rss).toBeLessThan(1536);
});

run('6 GiB in two 3 GiB buffers: kernels and copies reach both, at little host memory; one 5 GiB allocation is refused in words', () => {
  const r = exec(['--', './six']);
  expect(r.code).toBe(0);
  // values from the kernels' code: 11 + 12 + 21 + 22 + two atomic adds of 5; __isGlobal of a
  // cudaMalloc pointer is 1, __isShared 0. cudaMalloc "returns cudaErrorMemoryAllocation in case
  // of failure" (5 GiB: more than ptxdbg can place in one piece), and cudaGetLastError returns it;
  // the calls after it work (cudaFree 0, the memory is back)
  expect(r.out.split('\n')).toEqual([
    `total ${40 * 2 ** 30} prop ${40 * 2 ** 30}`, `malloc ${SUCCESS} ${SUCCESS}`,
    `launch ${SUCCESS} copy ${SUCCESS} values 11 12 21 22 atomics 10 global 1 shared 0`, `sum ${11 + 12 + 21 + 22 + 10}`, `spread ${SUCCESS} element 8192`,
    `5GiB ${MEMORY_ALLOCATION} last ${MEMORY_ALLOCATION} free ${SUCCESS} ${SUCCESS} back 1`, '',
  ]);
  const notice = r.err.split('\n').filter((l) => l.includes('5368709120'));
  expect(notice).toHaveLength(1);
  expect(notice[0]).toMatch(/^ptxdbg: cudaMalloc: 5368709120 bytes in one allocation: ptxdbg cannot emulate a single allocation over 4 GiB \(the device has 42949672960 bytes/);
  // a few pages of the 6 GiB were touched: the process serving the device stays far below it
  const rss = Number(/peak rss (\d+) MiB/.exec(r.err)?.[1]);
  expect(rss).toBeGreaterThan(0);
  expect(rss).toBeLessThan(1536);
  // the same on two worker threads, which share bank 1 as they share bank 0
  const two = exec(['--workers', '2', '--stats', '--', './six']);
  expect(two.out).toBe(r.out);
  expect(two.err).toMatch(/spread<<<.*threads: 2/);
  // the race checker cannot follow memory past the first 4 GiB yet: it says so, in one located line
  const races = exec(['--races', '--', './six']);
  expect(races.err).toContain('cannot follow device memory past the first 4 GiB yet');
  expect(races.err).toContain('at instruction');
  // a launch whose memory a capture bundle cannot hold (a region is at most 1 GiB, launch.ts):
  // --break says so in one line and the program runs on as without it (it used to copy all 6 GiB
  // into host memory, then end in an internal error writing the bundle)
  const brk = exec(['--break', 'sum', '--batch', '--', './six']);
  expect(brk.code).toBe(0);
  expect(brk.out).toBe(r.out);
  expect(brk.err).toContain(`ptxdbg: launch 2 sum<<<(1,1,1),(1,1,1)>>>: cannot open the debugger on it: its device memory holds an allocation of ${3 * 2 ** 30} bytes, more than the 1 GiB one region of a capture bundle holds; it runs on without the debugger`);
});

run('3.2 GB under the sanitizer: memcheck and the race checker both check it, at little host memory', () => {
  const sanitize = (tool: string): { code: number; out: string; err: string } => {
    const r = spawnSync(process.execPath, [CLI, 'sanitize', '--tool', tool, '--', './big'], { encoding: 'utf8', cwd: bin, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
  };
  const m = sanitize('memcheck');
  expect(m.out).toContain(`gather ${SUCCESS} sum ${12345 + 1024} atomics ${1024 * 5}\n`);
  expect(m.out + m.err).toContain('ERROR SUMMARY: 0 errors');
  expect(Number(/peak rss (\d+) MiB/.exec(m.err)?.[1])).toBeLessThan(1536);
  // the race checker's shadow (9 bytes per byte, in three arrays of 3 bytes per byte: each under
  // a typed array's 2^32 elements) costs only the chunks touched. The kernels: one thread, then
  // distinct words plus atomics to one word, then one thread: no hazard
  const r = sanitize('racecheck');
  expect(r.out).toContain(`launch ${SUCCESS} copy ${SUCCESS} last 12345 first 7\n`);
  expect(r.out).toContain(`gather ${SUCCESS} sum ${12345 + 1024} atomics ${1024 * 5}\n`);
  expect(r.out + r.err).toContain('RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)');
  expect(r.err).not.toContain('cannot check it');
  expect(Number(/peak rss (\d+) MiB/.exec(r.err)?.[1])).toBeLessThan(1536);
});

run('dynamic shared memory over 48 KiB needs cudaFuncAttributeMaxDynamicSharedMemorySize; sizes are not cut to 32 bits', () => {
  // the kernel has 1 KiB of static shared memory; by default static + dynamic may be 48 KiB; the
  // attribute plus sharedSizeBytes "cannot exceed ... cudaDevAttrMaxSharedMemoryPerBlockOptin"
  // (227 KiB on sm_80), "if the value is incorrect, then cudaErrorInvalidValue is returned"
  const r = exec(['--', './shmem']);
  expect(r.code).toBe(0);
  expect(r.out.split('\n')).toEqual([
    `47KiB ${SUCCESS} out ${12031 + 255}`, `47KiB+4 ${INVALID_VALUE}`, `64KiB ${INVALID_VALUE}`, `4GiB+16 ${INVALID_VALUE}`,
    `set 227KiB ${INVALID_VALUE}`, `set 64KiB ${SUCCESS}`, `max ${64 * 1024} static 1024`,
    `64KiB ${SUCCESS} out ${16383 + 255}`, `64KiB+4 ${INVALID_VALUE}`, '',
  ]);
  expect(r.err).toContain('ptxdbg: a launch of _Z1kPii asks for 65536 bytes of dynamic shared memory, more than its limit of 48128 bytes');
});

run('a child forked after CUDA is initialised gets cudaErrorInitializationError; the parent is unaffected', () => {
  const r = exec(['--', './fork']);
  expect(r.code).toBe(0);
  expect(r.out).toContain(`child ${INITIALIZATION_ERROR} ${INITIALIZATION_ERROR} ${INITIALIZATION_ERROR}\n`);
  // the parent's elements: 1 from the first launch, 10 from the second; nothing from the child
  expect(r.out).toContain(`parent ${SUCCESS} h[0]=11 h[31]=11\n`);
});

run('a copy kind that contradicts its pointers is reported; cudaMemcpyDefault and a right kind are not', () => {
  // "Calling cudaMemcpy() with dst and src pointers that do not match the direction of the copy
  // results in an undefined behavior": reported, and the copy goes by the pointers
  const r = exec(['--', './kinds']);
  expect(r.out).toBe(`${SUCCESS} ${SUCCESS} ${SUCCESS} back 1 4\n`);
  const lines = r.err.split('\n').filter((l) => l.startsWith('ptxdbg: cudaMemcpy'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^ptxdbg: cudaMemcpy\(dst 0x7f[0-9a-f]+, src 0x[0-9a-f]+, 16 bytes, cudaMemcpyDeviceToHost\): the destination is device memory and the source host memory, which the kind contradicts/);
});

run('an access to freed memory names the freed allocation and when it was freed', () => {
  const r = exec(['--', './uaf']);
  expect(r.out).toBe(`sync ${ILLEGAL_ADDRESS}\n`);
  // a is cudaMalloc #1, freed between launch 1 and launch 2; b (#2) is the nearest live one
  expect(r.err).toMatch(/out-of-bounds global write of 4 bytes .*0 bytes into `cudaMalloc #1` \(1024 bytes\), which was freed by cudaFree after launch 1: a use after free/);
  expect(r.err).not.toContain('cudaMalloc #2');
});

run('initcheck of a correct -G program using atomicAdd finds nothing (its wrapper\'s arguments pass through .param memory)', () => {
  const r = spawnSync(process.execPath, [CLI, 'sanitize', '--tool', 'initcheck', '--', './histG'], { encoding: 'utf8', cwd: bin, timeout: 120_000 });
  // 256 values i & 7: 32 in each of the 8 bins
  // compute-sanitizer writes its records to stdout, around the program's own output
  expect(r.stdout).toBe('========= COMPUTE-SANITIZER\n32 32\n========= ERROR SUMMARY: 0 errors\n');
  expect(r.status).toBe(0);
});
