/**
 * CUDA graphs under `ptxdbg exec`: programs built with nvcc print what each graph launch left in
 * device memory. Conditional nodes (cuda-samples' graphConditionalNodes): Expected values follow
 * the CUDA Programming Guide ("Conditional Graph Nodes") by hand: an IF node runs body 0 when the
 * value is non-zero and its ELSE body (size 2) when it is zero; a SWITCH node runs body n for
 * value n and none for n >= size; a WHILE node tests before each run of its body; a handle made
 * with cudaGraphCondAssignDefault takes its default at every launch; a graph with conditional
 * nodes cannot be cloned (cudaErrorNotSupported, 801).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { missingTool, ROOT, tempDir, testIf } from '../helpers.js';
import { nvccBuild } from './nvcc.js';

const CLI = join(ROOT, 'dist', 'bin', 'ptxdbg.js');
const RUNTIME = join(ROOT, 'dist', 'cudart', 'libcudart.so.13');
const why = missingTool('nvcc') ?? (existsSync(RUNTIME) ? null : `the ptxdbg runtime is not built (${RUNTIME})`);
const run = testIf(why);

const JOIN = `#include <cstdio>
#include <cuda_runtime.h>
__global__ void add(int *x, int k) { *x += k; }
int main() {
  int *x; cudaMalloc(&x, 4); cudaMemset(x, 0, 4);
  cudaStream_t s1, s2; cudaEvent_t e1, e2;
  cudaStreamCreate(&s1); cudaStreamCreate(&s2); cudaEventCreate(&e1); cudaEventCreate(&e2);
  cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal);
  add<<<1, 1, 0, s1>>>(x, 1);
  cudaEventRecord(e1, s1);
  cudaStreamWaitEvent(s2, e1, 0);   // s2 joins the capture
  add<<<1, 1, 0, s2>>>(x, 10);
  cudaEventRecord(e2, s2);
  cudaStreamWaitEvent(s1, e2, 0);   // and rejoins s1
  printf("destroy joined: %d\\n", cudaStreamDestroy(s2));
  cudaStream_t s3; cudaStreamCreate(&s3);
  cudaGraph_t g; printf("end capture: %d\\n", cudaStreamEndCapture(s1, &g));
  cudaStreamCaptureStatus st; cudaStreamIsCapturing(s3, &st);
  printf("new stream capturing: %d\\n", (int)st);
  cudaGraphExec_t ge; cudaGraphInstantiate(&ge, g, NULL, NULL, 0);
  cudaGraphLaunch(ge, 0); cudaGraphLaunch(ge, 0);
  int r; cudaMemcpy(&r, x, 4, cudaMemcpyDeviceToHost);
  printf("x = %d\\n", r);
  return 0;
}
`;

const PROGRAM = `// Conditional graph nodes (CUDA Programming Guide, "Conditional Graph Nodes"): IF with ELSE,
// WHILE (a loop body captured with cudaStreamBeginCaptureToGraph), SWITCH, default values.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void setCond(cudaGraphConditionalHandle h, const int *v) { cudaGraphSetConditional(h, *v); }
__global__ void add(int *x, int k) { *x += k; }
// the loop body: count down, and stop the loop when the counter reaches 0
__global__ void step(int *counter, int *sum, cudaGraphConditionalHandle h) {
  *sum += *counter;
  if (--*counter == 0) cudaGraphSetConditional(h, 0);
}
static cudaGraphNode_t kernel(cudaGraph_t g, const cudaGraphNode_t *dep, void *f, void **args) {
  cudaGraphNodeParams p = {cudaGraphNodeTypeKernel};
  p.kernel.func = f; p.kernel.gridDim = dim3(1); p.kernel.blockDim = dim3(1); p.kernel.kernelParams = args;
  cudaGraphNode_t n;
  cudaError_t e = cudaGraphAddNode(&n, g, dep, NULL, dep ? 1 : 0, &p);
  if (e) printf("add kernel: %s\\n", cudaGetErrorString(e));
  return n;
}
int main() {
  int *v, *x, *counter, *sum;
  cudaMalloc(&v, 4); cudaMalloc(&x, 4); cudaMalloc(&counter, 4); cudaMalloc(&sum, 4);
  // IF/ELSE and SWITCH on a value a kernel sets from *v
  cudaGraph_t g; cudaGraphCreate(&g, 0);
  cudaGraphConditionalHandle hif, hsw;
  cudaGraphConditionalHandleCreate(&hif, g);
  cudaGraphConditionalHandleCreate(&hsw, g);
  void *a1[] = {&hif, &v}; cudaGraphNode_t s1 = kernel(g, NULL, (void *)setCond, a1);
  void *a2[] = {&hsw, &v}; cudaGraphNode_t s2 = kernel(g, &s1, (void *)setCond, a2);
  cudaGraphNodeParams c = {cudaGraphNodeTypeConditional};
  c.conditional.handle = hif; c.conditional.type = cudaGraphCondTypeIf; c.conditional.size = 2;
  cudaGraphNode_t ifn; printf("if node: %d\\n", cudaGraphAddNode(&ifn, g, &s2, NULL, 1, &c));
  int k1 = 1, k10 = 10, k100 = 100, k1000 = 1000, k10000 = 10000;
  void *b1[] = {&x, &k1}; kernel(c.conditional.phGraph_out[0], NULL, (void *)add, b1);    // then: +1
  void *b2[] = {&x, &k10}; kernel(c.conditional.phGraph_out[1], NULL, (void *)add, b2);   // else: +10
  cudaGraphNodeParams sw = {cudaGraphNodeTypeConditional};
  sw.conditional.handle = hsw; sw.conditional.type = cudaGraphCondTypeSwitch; sw.conditional.size = 3;
  cudaGraphNode_t swn; printf("switch node: %d\\n", cudaGraphAddNode(&swn, g, &ifn, NULL, 1, &sw));
  void *b3[] = {&x, &k100}; kernel(sw.conditional.phGraph_out[0], NULL, (void *)add, b3);   // case 0
  void *b4[] = {&x, &k1000}; kernel(sw.conditional.phGraph_out[1], NULL, (void *)add, b4);  // case 1
  void *b5[] = {&x, &k10000}; kernel(sw.conditional.phGraph_out[2], NULL, (void *)add, b5); // case 2
  cudaGraphExec_t ge; printf("instantiate: %d\\n", cudaGraphInstantiate(&ge, g, NULL, NULL, 0));
  for (int val = 0; val < 4; val++) {
    int zero = 0; cudaMemcpy(x, &zero, 4, cudaMemcpyHostToDevice); cudaMemcpy(v, &val, 4, cudaMemcpyHostToDevice);
    cudaGraphLaunch(ge, 0);
    int r; cudaMemcpy(&r, x, 4, cudaMemcpyDeviceToHost);
    printf("value %d: x = %d\\n", val, r);
  }
  // WHILE with default value 1 assigned at each launch; body captured into the body graph
  cudaGraph_t w; cudaGraphCreate(&w, 0);
  cudaGraphConditionalHandle hw; cudaGraphConditionalHandleCreate(&hw, w, 1, cudaGraphCondAssignDefault);
  cudaGraphNodeParams wp = {cudaGraphNodeTypeConditional};
  wp.conditional.handle = hw; wp.conditional.type = cudaGraphCondTypeWhile; wp.conditional.size = 1;
  cudaGraphNode_t wn; printf("while node: %d\\n", cudaGraphAddNode(&wn, w, NULL, NULL, 0, &wp));
  cudaStream_t s; cudaStreamCreate(&s);
  printf("capture to graph: %d\\n", cudaStreamBeginCaptureToGraph(s, wp.conditional.phGraph_out[0], NULL, NULL, 0, cudaStreamCaptureModeGlobal));
  step<<<1, 1, 0, s>>>(counter, sum, hw);
  printf("end capture: %d\\n", cudaStreamEndCapture(s, NULL));
  cudaGraphExec_t we; cudaGraphInstantiate(&we, w, NULL, NULL, 0);
  for (int n = 4; n <= 5; n++) {
    int zero = 0; cudaMemcpy(sum, &zero, 4, cudaMemcpyHostToDevice); cudaMemcpy(counter, &n, 4, cudaMemcpyHostToDevice);
    printf("while launch: %d\\n", cudaGraphLaunch(we, 0));
    int r; cudaMemcpy(&r, sum, 4, cudaMemcpyDeviceToHost);
    printf("counter %d: sum = %d\\n", n, r);
  }
  cudaGraph_t clone; printf("clone: %d\\n", cudaGraphClone(&clone, g));
  cudaGraphExecDestroy(ge); cudaGraphExecDestroy(we); cudaGraphDestroy(g); cudaGraphDestroy(w);
  printf("last error: %d\\n", cudaGetLastError());
  return 0;
}
`;

let dir = '';
beforeAll(async () => {
  if (why) return;
  dir = tempDir('ptxdbg-graphs-');
  writeFileSync(join(dir, 'cond.cu'), PROGRAM);
  writeFileSync(join(dir, 'join.cu'), JOIN);
  for (const name of ['cond', 'join']) {
    const err = await nvccBuild(join(dir, `${name}.cu`), join(dir, name));
    if (err !== undefined) throw new Error(`nvcc failed: ${err}`);
  }
}, 300_000);
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

run('IF/ELSE, SWITCH and WHILE nodes run the bodies their handle selects, launch after launch', () => {
  const r = spawnSync(process.execPath, [CLI, 'exec', '--', './cond'], { encoding: 'utf8', cwd: dir, timeout: 120_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(r.stdout.trim().split('\n')).toEqual([
    'if node: 0', 'switch node: 0', 'instantiate: 0',
    'value 0: x = 110',   // else (+10), case 0 (+100)
    'value 1: x = 1001',  // then (+1), case 1 (+1000)
    'value 2: x = 10001', // then (+1), case 2 (+10000)
    'value 3: x = 1',     // then (+1), 3 >= size 3: no case
    'while node: 0', 'capture to graph: 0', 'end capture: 0',
    'while launch: 0', 'counter 4: sum = 10', // 4 + 3 + 2 + 1
    'while launch: 0', 'counter 5: sum = 15', // the default 1 again, though the first launch left 0
    'clone: 801', 'last error: 801',
  ]);
}, 150_000);

run('a stream that joined a capture may be destroyed before the capture ends (cuda-samples graphMemoryNodes)', () => {
  // the graph: +1 on s1, then +10 on s2 after it; two launches give 22. CUDA allows destroying s2
  // once it rejoined s1; ptxdbg used to look at the freed stream at cudaStreamEndCapture and say
  // "is not a stream this program created"
  const r = spawnSync(process.execPath, [CLI, 'exec', '--', './join'], { encoding: 'utf8', cwd: dir, timeout: 120_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(r.stdout.trim().split('\n')).toEqual(['destroy joined: 0', 'end capture: 0', 'new stream capturing: 0', 'x = 22']);
}, 150_000);
