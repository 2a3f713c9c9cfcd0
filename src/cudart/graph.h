/*
 * Graphs, streams and events of the replacement runtime, shared by streams.c (graphs, capture,
 * events) and conditional.c (cudaGraphAddNode, conditional nodes, capture into a given graph).
 */
#pragma once
#include "internal.h"
#include <stdint.h>

enum NodeKind { N_EMPTY, N_KERNEL, N_COPY, N_COPY3D, N_SET, N_HOST, N_ALLOC, N_FREE, N_COND };

struct CUgraphNode_st {
  enum NodeKind kind;
  int func; unsigned char *packed; size_t len;          /* kernel: the packed launch request */
  void *dst; const void *src; size_t n;                 /* copy */
  struct cudaMemcpy3DParms p3;                           /* 3D copy */
  size_t pitch, width, height; unsigned value, elem;    /* memset */
  cudaHostFn_t fn; void *data;                           /* host function */
  /* conditional: the handle (a device word), if/while/switch, and its body graphs (the graph
     node owns `bodies`; its copy in an executable graph owns `xbodies`, their instantiations) */
  cudaGraphConditionalHandle handle; enum cudaGraphConditionalNodeType ctype; unsigned nbodies;
  struct CUgraph_st **bodies; struct CUgraphExec_st **xbodies;
  struct CUgraphNode_st **deps; size_t ndeps;
  struct CUgraphNode_st *origin;                         /* in an executable graph: its graph node */
};
/* a conditional handle of a graph: the device word it names and what a launch sets it to */
struct CondHandle { cudaGraphConditionalHandle handle; unsigned value; unsigned flags; };
struct CUgraph_st {
  struct CUgraphNode_st **nodes; size_t n, cap; cudaStream_t *joined; size_t njoined;
  struct CondHandle *handles; size_t nhandles;
};
struct CUgraphExec_st { struct CUgraphNode_st **nodes; size_t n; struct CondHandle *handles; size_t nhandles; };
/* origin: 1 when the capture began on this stream (cudaStreamBeginCapture), 2 when it records
   into a graph the program gave (cudaStreamBeginCaptureToGraph), 0 for a stream that joined */
struct CUstream_st { uint32_t magic; struct CUgraph_st *capture; int origin; struct CUgraphNode_st *last; };
#define STREAM_MAGIC 0x5354524dU
struct CUevent_st { double ms; int recorded; struct CUgraph_st *capture; struct CUgraphNode_st *node; };

/* streams.c */
struct CUstream_st *ptxdbg_stream_of(cudaStream_t s);
struct CUgraphNode_st *ptxdbg_add_node(struct CUgraph_st *g, enum NodeKind kind, const cudaGraphNode_t *deps, size_t ndeps);
cudaError_t ptxdbg_kernel_node(struct CUgraphNode_st *x, const struct cudaKernelNodeParams *p);
cudaError_t ptxdbg_instantiate(cudaGraphExec_t *exec, cudaGraph_t g);
cudaError_t ptxdbg_run_exec(const struct CUgraphExec_st *exec);

/* conditional.c */
cudaError_t ptxdbg_run_conditional(const struct CUgraphNode_st *x);
cudaError_t ptxdbg_apply_defaults(const struct CondHandle *h, size_t n);
