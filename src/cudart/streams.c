/*
 * Streams, events and graphs for the replacement runtime. Work runs in the order the program
 * issues it (streams are in order and synchronous), except on a stream that is capturing: then
 * launches, copies, memsets and host functions are recorded as nodes of a graph, which
 * cudaGraphLaunch runs later in an order that respects its dependencies. Other streams join a
 * capture by waiting on an event recorded in a capturing stream, as in CUDA.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "graph.h"
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK() do { cudaError_t s_ = ptxdbg_sticky(); if (s_ != cudaSuccess) return ptxdbg_fail(s_); } while (0)


/* the legacy and per-thread default streams (0, cudaStreamLegacy, cudaStreamPerThread) */
static struct CUstream_st default_stream;
/* A handle that is no stream of this runtime's (never created, destroyed, or a wild pointer):
   the calls given it return cudaErrorInvalidResourceHandle instead of crashing on it. */
static struct CUstream_st invalid_stream;
int ptxdbg_stream_bad(cudaStream_t s) {
  if ((uintptr_t)s < 0x100) return 0;
  uintptr_t page = (uintptr_t)s & ~(uintptr_t)4095;
  if (msync((void *)page, (uintptr_t)s + sizeof *s - page, MS_ASYNC) != 0 || s->magic != STREAM_MAGIC) {
    static int said;
    if (!said++) fprintf(stderr, "ptxdbg: stream %p is not a stream this program created (or it was destroyed); calls given it return cudaErrorInvalidResourceHandle\n", (void *)s);
    return 1;
  }
  return 0;
}
static struct CUstream_st *stream_of(cudaStream_t s) { return (uintptr_t)s < 0x100 ? &default_stream : ptxdbg_stream_bad(s) ? &invalid_stream : s; }
struct CUstream_st *ptxdbg_stream_of(cudaStream_t s) { return stream_of(s); }

int ptxdbg_capturing(cudaStream_t s) { return stream_of(s)->capture != NULL; }

/* ---- graphs: nodes and dependencies ------------------------------------------------------------ */

#define add_node ptxdbg_add_node
struct CUgraphNode_st *add_node(struct CUgraph_st *g, enum NodeKind kind, const cudaGraphNode_t *deps, size_t ndeps) {
  if (g->n == g->cap) {
    size_t cap = g->cap ? g->cap * 2 : 16;
    struct CUgraphNode_st **nodes = realloc(g->nodes, cap * sizeof *nodes);
    if (!nodes) return NULL;
    g->nodes = nodes; g->cap = cap;
  }
  struct CUgraphNode_st *x = calloc(1, sizeof *x);
  if (!x) return NULL;
  x->kind = kind;
  if (ndeps) {
    x->deps = malloc(ndeps * sizeof *x->deps);
    if (!x->deps) { free(x); return NULL; }
    memcpy(x->deps, deps, ndeps * sizeof *x->deps);
    x->ndeps = ndeps;
  }
  g->nodes[g->n++] = x;
  return x;
}
static void free_node(struct CUgraphNode_st *x) {
  for (unsigned i = 0; x->bodies && i < x->nbodies; i++) cudaGraphDestroy(x->bodies[i]);
  for (unsigned i = 0; x->xbodies && i < x->nbodies; i++) cudaGraphExecDestroy(x->xbodies[i]);
  free(x->bodies); free(x->xbodies); free(x->packed); free(x->deps); free(x);
}

/* A captured operation: a node after the stream's previous one. */
static struct CUgraphNode_st *capture_node(cudaStream_t s, enum NodeKind kind) {
  struct CUstream_st *st = stream_of(s);
  struct CUgraphNode_st *x = add_node(st->capture, kind, st->last ? &st->last : NULL, st->last ? 1 : 0);
  if (x) st->last = x;
  return x;
}
cudaError_t ptxdbg_capture_launch(cudaStream_t s, int func, unsigned char *packed, size_t len) {
  struct CUgraphNode_st *x = capture_node(s, N_KERNEL);
  if (!x) { free(packed); return ptxdbg_fail(cudaErrorMemoryAllocation); }
  x->func = func; x->packed = packed; x->len = len;
  return cudaSuccess;
}
cudaError_t ptxdbg_capture_copy(cudaStream_t s, void *dst, const void *src, size_t n) {
  struct CUgraphNode_st *x = capture_node(s, N_COPY);
  if (!x) return ptxdbg_fail(cudaErrorMemoryAllocation);
  x->dst = dst; x->src = src; x->n = n;
  return cudaSuccess;
}
cudaError_t ptxdbg_capture_memset(cudaStream_t s, void *dst, size_t pitch, unsigned value, unsigned elem, size_t width, size_t height) {
  struct CUgraphNode_st *x = capture_node(s, N_SET);
  if (!x) return ptxdbg_fail(cudaErrorMemoryAllocation);
  x->dst = dst; x->pitch = pitch; x->value = value; x->elem = elem; x->width = width; x->height = height;
  return cudaSuccess;
}

/* memset of `height` rows of `width` elements of 1, 2 or 4 bytes */
static cudaError_t run_memset(const struct CUgraphNode_st *x) {
  if (x->elem == 1) {
    for (size_t r = 0; r < x->height; r++) {
      cudaError_t e = ptxdbg_set((char *)x->dst + r * x->pitch, (int)x->value, x->width);
      if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
  }
  if (x->elem != 2 && x->elem != 4) return cudaErrorInvalidValue;
  unsigned char *row = malloc(x->width * x->elem);
  if (!row) return cudaErrorMemoryAllocation;
  for (size_t i = 0; i < x->width; i++) memcpy(row + i * x->elem, &x->value, x->elem);
  cudaError_t e = cudaSuccess;
  for (size_t r = 0; r < x->height && e == cudaSuccess; r++) e = ptxdbg_copy((char *)x->dst + r * x->pitch, row, x->width * x->elem);
  free(row);
  return e;
}

static cudaError_t run_node(const struct CUgraphNode_st *x) {
  switch (x->kind) {
    case N_KERNEL: return ptxdbg_run_launch(x->packed, x->len);
    case N_COPY: return ptxdbg_copy(x->dst, x->src, x->n);
    case N_COPY3D: return cudaMemcpy3D(&x->p3);
    case N_SET: return run_memset(x);
    case N_HOST: if (x->fn) x->fn(x->data); return cudaSuccess;
    case N_COND: return ptxdbg_run_conditional(x);
    default: return cudaSuccess;
  }
}

cudaError_t cudaGraphCreate(cudaGraph_t *g, unsigned int flags) {
  (void)flags;
  if (!g) return ptxdbg_fail(cudaErrorInvalidValue);
  *g = calloc(1, sizeof **g);
  return *g ? cudaSuccess : ptxdbg_fail(cudaErrorMemoryAllocation);
}
cudaError_t cudaGraphDestroy(cudaGraph_t g) {
  if (!g) return cudaSuccess;
  for (size_t i = 0; i < g->n; i++) free_node(g->nodes[i]);
  free(g->nodes); free(g->joined); free(g->handles); free(g);
  return cudaSuccess;
}

#define kernel_node ptxdbg_kernel_node
cudaError_t kernel_node(struct CUgraphNode_st *x, const struct cudaKernelNodeParams *p) {
  if (!p || p->extra) return cudaErrorInvalidValue;
  int func = ptxdbg_func_index(p->func);
  unsigned char *q = NULL;
  size_t len = 0;
  cudaError_t e = ptxdbg_pack_launch(func, p->gridDim, p->blockDim, p->kernelParams, p->sharedMemBytes, 0, &q, &len);
  if (e != cudaSuccess) return e;
  free(x->packed);
  x->func = func; x->packed = q; x->len = len;
  return cudaSuccess;
}
#define ADD(kind) \
  if (!node || !g) return ptxdbg_fail(cudaErrorInvalidValue); \
  struct CUgraphNode_st *x = add_node(g, kind, deps, ndeps); \
  if (!x) return ptxdbg_fail(cudaErrorMemoryAllocation); \
  *node = x
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *node, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, const struct cudaKernelNodeParams *p) {
  ADD(N_KERNEL);
  return ptxdbg_fail(kernel_node(x, p));
}
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *p) {
  if (!node || node->kind != N_KERNEL) return ptxdbg_fail(cudaErrorInvalidValue);
  return ptxdbg_fail(kernel_node(node, p));
}
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *node, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, const struct cudaMemcpy3DParms *p) {
  if (!p) return ptxdbg_fail(cudaErrorInvalidValue);
  ADD(N_COPY3D);
  x->p3 = *p;
  return cudaSuccess;
}
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *node, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
  (void)kind;
  ADD(N_COPY);
  x->dst = dst; x->src = src; x->n = count;
  return cudaSuccess;
}
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *node, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, const struct cudaMemsetParams *p) {
  if (!p) return ptxdbg_fail(cudaErrorInvalidValue);
  ADD(N_SET);
  x->dst = p->dst; x->pitch = p->pitch; x->value = p->value; x->elem = p->elementSize; x->width = p->width; x->height = p->height ? p->height : 1;
  return cudaSuccess;
}
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *node, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, const struct cudaHostNodeParams *p) {
  if (!p) return ptxdbg_fail(cudaErrorInvalidValue);
  ADD(N_HOST);
  x->fn = p->fn; x->data = p->userData;
  return cudaSuccess;
}
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *node, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps) {
  ADD(N_EMPTY);
  return cudaSuccess;
}
/*
 * Graph memory is allocated when the node is added and lives as long as the program: a free of
 * it (a free node, cudaFree or cudaFreeAsync outside the graph) keeps it, since every launch of
 * the graph allocates it again at the same address.
 */
static void **graph_memory;
static size_t ngraph_memory;
int ptxdbg_graph_memory(const void *p) {
  for (size_t i = 0; i < ngraph_memory; i++) if (graph_memory[i] == p) return 1;
  return 0;
}
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *node, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, struct cudaMemAllocNodeParams *p) {
  if (!p) return ptxdbg_fail(cudaErrorInvalidValue);
  ADD(N_ALLOC);
  cudaError_t e = cudaMalloc(&p->dptr, p->bytesize);
  if (e != cudaSuccess) return e;
  void **m = realloc(graph_memory, (ngraph_memory + 1) * sizeof *m);
  if (!m) return ptxdbg_fail(cudaErrorMemoryAllocation);
  graph_memory = m;
  graph_memory[ngraph_memory++] = p->dptr;
  return cudaSuccess;
}
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *node, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, void *dptr) {
  (void)dptr;
  ADD(N_FREE);
  return cudaSuccess;
}
cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to, const cudaGraphEdgeData *edge, size_t n) {
  (void)g; (void)edge;
  for (size_t i = 0; i < n; i++) {
    struct CUgraphNode_st *t = to[i];
    struct CUgraphNode_st **d = realloc(t->deps, (t->ndeps + 1) * sizeof *d);
    if (!d) return ptxdbg_fail(cudaErrorMemoryAllocation);
    t->deps = d;
    t->deps[t->ndeps++] = from[i];
  }
  return cudaSuccess;
}
cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *num) {
  if (!g || !num) return ptxdbg_fail(cudaErrorInvalidValue);
  if (!nodes) { *num = g->n; return cudaSuccess; }
  size_t k = *num < g->n ? *num : g->n;
  for (size_t i = 0; i < k; i++) nodes[i] = g->nodes[i];
  *num = k;
  return cudaSuccess;
}

static size_t index_of(const struct CUgraph_st *g, const struct CUgraphNode_st *x) {
  for (size_t i = 0; i < g->n; i++) if (g->nodes[i] == x) return i;
  return (size_t)-1;
}
/* A copy of node x (its own packed request); dependencies are the caller's to set. */
static struct CUgraphNode_st *copy_node(const struct CUgraphNode_st *x) {
  struct CUgraphNode_st *y = malloc(sizeof *y);
  if (!y) return NULL;
  *y = *x;
  y->deps = NULL; y->ndeps = 0; y->packed = NULL; y->bodies = NULL; y->xbodies = NULL;
  if (x->packed) {
    y->packed = malloc(x->len);
    if (!y->packed) { free(y); return NULL; }
    memcpy(y->packed, x->packed, x->len);
  }
  return y;
}
/* CUDA: a graph with conditional nodes cannot be cloned, be a child graph or update an executable one */
static int has_conditional(const struct CUgraph_st *g) {
  for (size_t i = 0; i < g->n; i++) if (g->nodes[i]->kind == N_COND) return 1;
  return 0;
}
cudaError_t cudaGraphClone(cudaGraph_t *out, cudaGraph_t g) {
  if (!out || !g) return ptxdbg_fail(cudaErrorInvalidValue);
  if (has_conditional(g)) return ptxdbg_fail(cudaErrorNotSupported);
  cudaError_t e = cudaGraphCreate(out, 0);
  if (e != cudaSuccess) return e;
  struct CUgraph_st *c = *out;
  c->nodes = calloc(g->n ? g->n : 1, sizeof *c->nodes);
  if (!c->nodes) return ptxdbg_fail(cudaErrorMemoryAllocation);
  c->cap = g->n ? g->n : 1;
  for (size_t i = 0; i < g->n; i++) {
    c->nodes[i] = copy_node(g->nodes[i]);
    if (!c->nodes[i]) return ptxdbg_fail(cudaErrorMemoryAllocation);
    c->n++;
  }
  for (size_t i = 0; i < g->n; i++) {
    const struct CUgraphNode_st *x = g->nodes[i];
    if (!x->ndeps) continue;
    c->nodes[i]->deps = malloc(x->ndeps * sizeof *x->deps);
    if (!c->nodes[i]->deps) return ptxdbg_fail(cudaErrorMemoryAllocation);
    for (size_t k = 0; k < x->ndeps; k++) c->nodes[i]->deps[k] = c->nodes[index_of(g, x->deps[k])];
    c->nodes[i]->ndeps = x->ndeps;
  }
  return cudaSuccess;
}
/* A child graph's nodes are copied in, after `deps`; the child node itself is an empty node after them. */
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *node, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, cudaGraph_t child) {
  if (!node || !g || !child) return ptxdbg_fail(cudaErrorInvalidValue);
  if (has_conditional(child)) return ptxdbg_fail(cudaErrorNotSupported);
  size_t first = g->n;
  for (size_t i = 0; i < child->n; i++) {
    const struct CUgraphNode_st *x = child->nodes[i];
    struct CUgraphNode_st *y = add_node(g, x->kind, deps, ndeps);
    if (!y) return ptxdbg_fail(cudaErrorMemoryAllocation);
    struct CUgraphNode_st **keep = y->deps; size_t nkeep = y->ndeps;
    struct CUgraphNode_st *c = copy_node(x);
    if (!c) return ptxdbg_fail(cudaErrorMemoryAllocation);
    *y = *c; free(c);
    y->deps = keep; y->ndeps = nkeep;
    for (size_t k = 0; k < x->ndeps; k++) {
      const cudaGraphNode_t from = g->nodes[first + index_of(child, x->deps[k])], to = y;
      cudaGraphAddDependencies(g, &from, &to, NULL, 1);
    }
  }
  struct CUgraphNode_st *x = add_node(g, N_EMPTY, NULL, 0);
  if (!x) return ptxdbg_fail(cudaErrorMemoryAllocation);
  for (size_t i = first; i < g->n - 1; i++) { const cudaGraphNode_t from = g->nodes[i], to = x; cudaGraphAddDependencies(g, &from, &to, NULL, 1); }
  *node = x;
  return cudaSuccess;
}

/* Nodes in an order that respects dependencies (Kahn's, by insertion order among the ready). */
static struct CUgraphNode_st **sorted(const struct CUgraph_st *g) {
  struct CUgraphNode_st **out = malloc((g->n ? g->n : 1) * sizeof *out);
  char *done = calloc(g->n ? g->n : 1, 1);
  if (!out || !done) { free(out); free(done); return NULL; }
  size_t k = 0;
  while (k < g->n) {
    size_t before = k;
    for (size_t i = 0; i < g->n; i++) {
      if (done[i]) continue;
      int ready = 1;
      for (size_t d = 0; d < g->nodes[i]->ndeps && ready; d++) {
        size_t j = index_of(g, g->nodes[i]->deps[d]);
        if (j != (size_t)-1 && !done[j]) ready = 0;
      }
      if (ready) { done[i] = 1; out[k++] = g->nodes[i]; }
    }
    if (k == before) { free(out); free(done); return NULL; } /* a cycle */
  }
  free(done);
  return out;
}
#define instantiate ptxdbg_instantiate
cudaError_t instantiate(cudaGraphExec_t *exec, cudaGraph_t g) {
  if (!exec || !g) return ptxdbg_fail(cudaErrorInvalidValue);
  struct CUgraphNode_st **order = sorted(g);
  if (!order) return ptxdbg_fail(cudaErrorInvalidValue);
  struct CUgraphExec_st *x = calloc(1, sizeof *x);
  if (!x) { free(order); return ptxdbg_fail(cudaErrorMemoryAllocation); }
  x->nodes = order; x->n = g->n;
  for (size_t i = 0; i < x->n; i++) {
    struct CUgraphNode_st *c = copy_node(order[i]);
    if (!c) return ptxdbg_fail(cudaErrorMemoryAllocation);
    c->origin = order[i];
    x->nodes[i] = c;
    if (c->kind == N_COND) {
      /* each body graph is instantiated with its conditional node */
      c->xbodies = calloc(c->nbodies, sizeof *c->xbodies);
      if (!c->xbodies) return ptxdbg_fail(cudaErrorMemoryAllocation);
      for (unsigned b = 0; b < c->nbodies; b++) {
        cudaError_t e = instantiate(&c->xbodies[b], c->origin->bodies[b]);
        if (e != cudaSuccess) return e;
      }
    }
  }
  if (g->nhandles) {
    x->handles = malloc(g->nhandles * sizeof *x->handles);
    if (!x->handles) return ptxdbg_fail(cudaErrorMemoryAllocation);
    memcpy(x->handles, g->handles, g->nhandles * sizeof *x->handles);
    x->nhandles = g->nhandles;
  }
  *exec = x;
  return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t g, unsigned long long flags) { (void)flags; return instantiate(exec, g); }
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *exec, cudaGraph_t g, unsigned long long flags) { (void)flags; return instantiate(exec, g); }
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t s) { (void)exec; (void)s; return cudaSuccess; }
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  if (!exec) return cudaSuccess;
  for (size_t i = 0; i < exec->n; i++) free_node(exec->nodes[i]);
  free(exec->nodes); free(exec->handles); free(exec);
  return cudaSuccess;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s) {
  CHECK();
  if (!exec) return ptxdbg_fail(cudaErrorInvalidValue);
  if (ptxdbg_capturing(s)) {
    static int once;
    if (!once) { once = 1; fprintf(stderr, "ptxdbg: cudaGraphLaunch into a capturing stream is not supported\n"); }
    return ptxdbg_fail(cudaErrorNotSupported);
  }
  cudaError_t e = ptxdbg_run_exec(exec);
  return e == cudaSuccess ? e : ptxdbg_fail(e);
}
/* One run of an executable graph: its handles take their launch values, then its nodes run. */
cudaError_t ptxdbg_run_exec(const struct CUgraphExec_st *exec) {
  cudaError_t e = ptxdbg_apply_defaults(exec->handles, exec->nhandles);
  for (size_t i = 0; i < exec->n && e == cudaSuccess; i++) e = run_node(exec->nodes[i]);
  return e;
}
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node, const struct cudaKernelNodeParams *p) {
  if (!exec) return ptxdbg_fail(cudaErrorInvalidValue);
  for (size_t i = 0; i < exec->n; i++)
    if (exec->nodes[i]->origin == node) return ptxdbg_fail(kernel_node(exec->nodes[i], p));
  return ptxdbg_fail(cudaErrorInvalidValue);
}
/* The executable graph takes the parameters of a graph of the same shape. */
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t g, cudaGraphExecUpdateResultInfo *info) {
  if (info) memset(info, 0, sizeof *info);
  if (!exec || !g) return ptxdbg_fail(cudaErrorInvalidValue);
  if (has_conditional(g)) return ptxdbg_fail(cudaErrorNotSupported);
  struct CUgraphNode_st **order = sorted(g);
  int same = order && g->n == exec->n;
  for (size_t i = 0; same && i < g->n; i++) if (order[i]->kind != exec->nodes[i]->kind) same = 0;
  if (!same) {
    free(order);
    if (info) info->result = cudaGraphExecUpdateErrorTopologyChanged;
    return ptxdbg_fail(cudaErrorGraphExecUpdateFailure);
  }
  for (size_t i = 0; i < g->n; i++) {
    struct CUgraphNode_st *c = copy_node(order[i]);
    if (!c) { free(order); return ptxdbg_fail(cudaErrorMemoryAllocation); }
    c->origin = order[i];
    free_node(exec->nodes[i]);
    exec->nodes[i] = c;
  }
  free(order);
  if (info) info->result = cudaGraphExecUpdateSuccess;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value) {
  (void)device; (void)attr;
  if (value) *(unsigned long long *)value = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceGraphMemTrim(int device) { (void)device; return cudaSuccess; }

/* ---- streams and stream capture ----------------------------------------------------------------- */

cudaError_t cudaStreamCreate(cudaStream_t *s) {
  if (!s) return ptxdbg_fail(cudaErrorInvalidValue);
  *s = calloc(1, sizeof **s);
  if (*s) (*s)->magic = STREAM_MAGIC;
  return *s ? cudaSuccess : ptxdbg_fail(cudaErrorMemoryAllocation);
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int f) { (void)f; return cudaStreamCreate(s); }
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int f, int p) { (void)f; (void)p; return cudaStreamCreate(s); }
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  if (ptxdbg_stream_bad(s)) return ptxdbg_fail(cudaErrorInvalidResourceHandle);
  if ((uintptr_t)s >= 0x100) {
    /* a stream that joined a capture may be destroyed before it ends (cuda-samples'
       graphMemoryNodes): the capture forgets it, so cudaStreamEndCapture touches no freed stream */
    struct CUgraph_st *g = s->capture;
    for (size_t i = 0; g && i < g->njoined; i++)
      if (g->joined[i] == s) { g->joined[i] = g->joined[--g->njoined]; break; }
    s->magic = 0; free(s);
  }
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) { if (ptxdbg_stream_bad(s)) return ptxdbg_fail(cudaErrorInvalidResourceHandle); CHECK(); return cudaSuccess; }
cudaError_t cudaStreamQuery(cudaStream_t s) { if (ptxdbg_stream_bad(s)) return ptxdbg_fail(cudaErrorInvalidResourceHandle); CHECK(); return cudaSuccess; }
cudaError_t cudaStreamGetPriority(cudaStream_t s, int *p) { (void)s; if (p) *p = 0; return cudaSuccess; }
cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned int *f) { (void)s; if (f) *f = 0; return cudaSuccess; }
cudaError_t cudaStreamAttachMemAsync(cudaStream_t s, void *p, size_t n, unsigned int f) { (void)s; (void)p; (void)n; (void)f; return cudaSuccess; }
cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *u, unsigned int f) {
  (void)f; if (cb) cb(s, ptxdbg_sticky(), u); return cudaSuccess;
}
cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *u) {
  if (ptxdbg_capturing(s)) {
    struct CUgraphNode_st *x = capture_node(s, N_HOST);
    if (!x) return ptxdbg_fail(cudaErrorMemoryAllocation);
    x->fn = fn; x->data = u;
    return cudaSuccess;
  }
  if (fn) fn(u);
  return cudaSuccess;
}
cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode) {
  (void)mode;
  struct CUstream_st *st = stream_of(s);
  if (st == &default_stream) return ptxdbg_fail(cudaErrorStreamCaptureUnsupported);
  if (st->capture) return ptxdbg_fail(cudaErrorIllegalState);
  cudaGraph_t g;
  cudaError_t e = cudaGraphCreate(&g, 0);
  if (e != cudaSuccess) return e;
  st->capture = g; st->origin = 1; st->last = NULL;
  return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *out) {
  struct CUstream_st *st = stream_of(s);
  /* a capture into the program's graph (cudaStreamBeginCaptureToGraph) may pass no out */
  if ((!out && st->origin != 2) || !st->capture || !st->origin) return ptxdbg_fail(cudaErrorIllegalState);
  struct CUgraph_st *g = st->capture;
  for (size_t i = 0; i < g->njoined; i++) { struct CUstream_st *j = stream_of(g->joined[i]); j->capture = NULL; j->last = NULL; }
  free(g->joined); g->joined = NULL; g->njoined = 0;
  st->capture = NULL; st->origin = 0; st->last = NULL;
  if (out) *out = g;
  return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *status) {
  if (!status) return ptxdbg_fail(cudaErrorInvalidValue);
  *status = ptxdbg_capturing(s) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, enum cudaStreamCaptureStatus *status, unsigned long long *id, cudaGraph_t *graph,
                                     const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges, size_t *ndeps) {
  struct CUstream_st *st = stream_of(s);
  if (status) *status = st->capture ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  if (id) *id = (uintptr_t)st->capture;
  if (graph) *graph = st->capture;
  if (deps) *deps = st->last ? (const cudaGraphNode_t *)&st->last : NULL;
  if (edges) *edges = NULL;
  if (ndeps) *ndeps = st->last ? 1 : 0;
  return cudaSuccess;
}

/* ---- events ------------------------------------------------------------------------------------------ */

static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
cudaError_t cudaEventCreate(cudaEvent_t *e) {
  if (!e) return ptxdbg_fail(cudaErrorInvalidValue);
  *e = calloc(1, sizeof **e);
  return *e ? cudaSuccess : ptxdbg_fail(cudaErrorMemoryAllocation);
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int f) { (void)f; return cudaEventCreate(e); }
cudaError_t cudaEventDestroy(cudaEvent_t e) { free(e); return cudaSuccess; }
/* In a capturing stream an event marks a point of the capture other streams can wait for. */
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (!e) return ptxdbg_fail(cudaErrorInvalidResourceHandle);
  struct CUstream_st *st = stream_of(s);
  if (st->capture) { e->capture = st->capture; e->node = st->last; return cudaSuccess; }
  e->capture = NULL;
  e->ms = now_ms(); e->recorded = 1;
  return cudaSuccess;
}
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int f) { (void)f; return cudaEventRecord(e, s); }
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int f) {
  (void)f;
  if (!e) return ptxdbg_fail(cudaErrorInvalidResourceHandle);
  struct CUstream_st *st = stream_of(s);
  if (e->capture && st != &default_stream) {
    if (!st->capture) {
      /* this stream joins the capture, after the event's point */
      struct CUgraph_st *g = e->capture;
      cudaStream_t *j = realloc(g->joined, (g->njoined + 1) * sizeof *j);
      if (!j) return ptxdbg_fail(cudaErrorMemoryAllocation);
      g->joined = j; g->joined[g->njoined++] = s;
      st->capture = g;
    }
    st->last = e->node ? e->node : st->last;
  }
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) { (void)e; CHECK(); return cudaSuccess; }
cudaError_t cudaEventQuery(cudaEvent_t e) { (void)e; CHECK(); return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  if (!ms || !a || !b) return ptxdbg_fail(cudaErrorInvalidValue);
  if (!a->recorded || !b->recorded) return ptxdbg_fail(cudaErrorInvalidResourceHandle);
  *ms = (float)(b->ms - a->ms);
  return cudaSuccess;
}
