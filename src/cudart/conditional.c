/*
 * cudaGraphAddNode (nodes described by cudaGraphNodeParams), conditional nodes and capture into a
 * graph the program gives (cudaStreamBeginCaptureToGraph, cudaStreamUpdateCaptureDependencies).
 *
 * A conditional handle is a device word (cudaMalloc'd): a kernel's cudaGraphSetConditional stores
 * the value there (the device runtime call of src/exec/cdp.ts), and the conditional node reads it
 * when it runs. The CUDA Programming Guide's rules: an IF node runs body 0 when the value is
 * non-zero (body 1, its ELSE, when zero and size is 2); a WHILE node tests before each run of its
 * body; a SWITCH node runs body n when the value is n (none when n >= size). A handle created with
 * cudaGraphCondAssignDefault takes its default value at each launch of its graph.
 */
#include "graph.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cudaError_t ptxdbg_apply_defaults(const struct CondHandle *h, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!(h[i].flags & cudaGraphCondAssignDefault)) continue;
    cudaError_t e = ptxdbg_copy((void *)(uintptr_t)h[i].handle, &h[i].value, sizeof h[i].value);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *out, cudaGraph_t g, unsigned int value, unsigned int flags) {
  if (!out || !g) return ptxdbg_fail(cudaErrorInvalidValue);
  void *word;
  cudaError_t e = cudaMalloc(&word, sizeof(unsigned));
  if (e != cudaSuccess) return e;
  /* the value before any launch sets it: the default, whatever the flags */
  e = ptxdbg_copy(word, &value, sizeof value);
  if (e != cudaSuccess) return ptxdbg_fail(e);
  struct CondHandle *h = realloc(g->handles, (g->nhandles + 1) * sizeof *h);
  if (!h) return ptxdbg_fail(cudaErrorMemoryAllocation);
  g->handles = h;
  g->handles[g->nhandles++] = (struct CondHandle){ (cudaGraphConditionalHandle)(uintptr_t)word, value, flags };
  *out = (cudaGraphConditionalHandle)(uintptr_t)word;
  return cudaSuccess;
}

cudaError_t ptxdbg_run_conditional(const struct CUgraphNode_st *x) {
  unsigned v;
  cudaError_t e = ptxdbg_copy(&v, (const void *)(uintptr_t)x->handle, sizeof v);
  if (e != cudaSuccess) return e;
  switch (x->ctype) {
    case cudaGraphCondTypeIf:
      if (v) return ptxdbg_run_exec(x->xbodies[0]);
      return x->nbodies == 2 ? ptxdbg_run_exec(x->xbodies[1]) : cudaSuccess;
    case cudaGraphCondTypeWhile:
      while (v) {
        e = ptxdbg_run_exec(x->xbodies[0]);
        if (e == cudaSuccess) e = ptxdbg_copy(&v, (const void *)(uintptr_t)x->handle, sizeof v);
        if (e != cudaSuccess) return e;
      }
      return cudaSuccess;
    case cudaGraphCondTypeSwitch:
      return v < x->nbodies ? ptxdbg_run_exec(x->xbodies[v]) : cudaSuccess;
    default:
      return cudaErrorInvalidValue;
  }
}

/* A conditional node: its body graphs are made here and handed back in phGraph_out. */
static cudaError_t conditional_node(struct CUgraphNode_st *x, struct cudaConditionalNodeParams *p) {
  unsigned max = p->type == cudaGraphCondTypeIf ? 2 : p->type == cudaGraphCondTypeWhile ? 1 : p->type == cudaGraphCondTypeSwitch ? ~0u : 0;
  if (!p->handle || p->size == 0 || p->size > max) return cudaErrorInvalidValue;
  x->handle = p->handle; x->ctype = p->type; x->nbodies = p->size;
  x->bodies = calloc(p->size, sizeof *x->bodies);
  if (!x->bodies) return cudaErrorMemoryAllocation;
  for (unsigned i = 0; i < p->size; i++) {
    cudaError_t e = cudaGraphCreate(&x->bodies[i], 0);
    if (e != cudaSuccess) return e;
  }
  p->phGraph_out = x->bodies;
  return cudaSuccess;
}

static enum NodeKind kind_of(enum cudaGraphNodeType t) {
  switch (t) {
    case cudaGraphNodeTypeKernel: return N_KERNEL;
    case cudaGraphNodeTypeMemcpy: return N_COPY3D;
    case cudaGraphNodeTypeMemset: return N_SET;
    case cudaGraphNodeTypeHost: return N_HOST;
    case cudaGraphNodeTypeEmpty: return N_EMPTY;
    case cudaGraphNodeTypeConditional: return N_COND;
    default: return (enum NodeKind)-1;
  }
}

cudaError_t cudaGraphAddNode(cudaGraphNode_t *node, cudaGraph_t g, const cudaGraphNode_t *deps, const cudaGraphEdgeData *edges, size_t ndeps, struct cudaGraphNodeParams *p) {
  (void)edges;
  if (!node || !g || !p || (ndeps && !deps)) return ptxdbg_fail(cudaErrorInvalidValue);
  enum NodeKind kind = kind_of(p->type);
  if ((int)kind < 0) {
    static int once;
    if (!once++) fprintf(stderr, "ptxdbg: cudaGraphAddNode: node type %d is not supported (kernel, memcpy, memset, host, empty and conditional nodes are)\n", (int)p->type);
    return ptxdbg_fail(cudaErrorNotSupported);
  }
  struct CUgraphNode_st *x = ptxdbg_add_node(g, kind, deps, ndeps);
  if (!x) return ptxdbg_fail(cudaErrorMemoryAllocation);
  cudaError_t e = cudaSuccess;
  switch (kind) {
    case N_KERNEL: {
      const struct cudaKernelNodeParamsV2 *k = &p->kernel;
      struct cudaKernelNodeParams v1 = { k->func, k->gridDim, k->blockDim, k->sharedMemBytes, k->kernelParams, k->extra };
      e = ptxdbg_kernel_node(x, &v1);
      break;
    }
    case N_COPY3D: x->p3 = p->memcpy.copyParams; break;
    case N_SET: {
      const struct cudaMemsetParamsV2 *m = &p->memset;
      x->dst = m->dst; x->pitch = m->pitch; x->value = m->value; x->elem = m->elementSize; x->width = m->width; x->height = m->height ? m->height : 1;
      break;
    }
    case N_HOST: x->fn = p->host.fn; x->data = p->host.userData; break;
    case N_COND: e = conditional_node(x, &p->conditional); break;
    default: break;
  }
  if (e != cudaSuccess) { g->n--; x->kind = N_EMPTY; free(x->deps); free(x); return ptxdbg_fail(e); }
  *node = x;
  return cudaSuccess;
}

/* The stream's position in the capture after `deps`: the one node, or an empty node joining them. */
static cudaError_t set_last(struct CUstream_st *st, const cudaGraphNode_t *deps, size_t n) {
  if (n <= 1) { st->last = n ? deps[0] : NULL; return cudaSuccess; }
  struct CUgraphNode_st *join = ptxdbg_add_node(st->capture, N_EMPTY, deps, n);
  if (!join) return ptxdbg_fail(cudaErrorMemoryAllocation);
  st->last = join;
  return cudaSuccess;
}

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t *deps, const cudaGraphEdgeData *edges, size_t ndeps, enum cudaStreamCaptureMode mode) {
  (void)edges; (void)mode;
  if (!g || (ndeps && !deps)) return ptxdbg_fail(cudaErrorInvalidValue);
  if ((uintptr_t)s < 0x100) return ptxdbg_fail(cudaErrorStreamCaptureUnsupported);
  if (ptxdbg_stream_bad(s)) return ptxdbg_fail(cudaErrorInvalidResourceHandle);
  struct CUstream_st *st = ptxdbg_stream_of(s);
  if (st->capture) return ptxdbg_fail(cudaErrorIllegalState);
  st->capture = g; st->origin = 2;
  return set_last(st, deps, ndeps);
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps, const cudaGraphEdgeData *edges, size_t ndeps, unsigned int flags) {
  (void)edges;
  if (ptxdbg_stream_bad(s)) return ptxdbg_fail(cudaErrorInvalidResourceHandle);
  struct CUstream_st *st = ptxdbg_stream_of(s);
  if (!st->capture) return ptxdbg_fail(cudaErrorIllegalState);
  if (ndeps && !deps) return ptxdbg_fail(cudaErrorInvalidValue);
  if (flags == cudaStreamSetCaptureDependencies) return set_last(st, deps, ndeps);
  if (flags != cudaStreamAddCaptureDependencies) return ptxdbg_fail(cudaErrorInvalidValue);
  /* add: the stream's current node and the given ones */
  cudaGraphNode_t *all = malloc((ndeps + 1) * sizeof *all);
  if (!all) return ptxdbg_fail(cudaErrorMemoryAllocation);
  size_t n = 0;
  if (st->last) all[n++] = st->last;
  for (size_t i = 0; i < ndeps; i++) all[n++] = deps[i];
  cudaError_t e = set_last(st, all, n);
  free(all);
  return e;
}
