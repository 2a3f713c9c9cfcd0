/*
 * What the parts of the replacement runtime share (not exported: libcudart.map exports only
 * cuda* and __cuda* names). cudart.c: registration, the wire, memory, launches, device, errors;
 * streams.c: streams, events and graphs (stream capture records into a graph); conditional.c:
 * cudaGraphAddNode and conditional nodes (graph.h: the structures those two share).
 */
#pragma once
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

/* cudart.c */
cudaError_t ptxdbg_fail(cudaError_t e);        /* remember e as the last error; returns it */
cudaError_t ptxdbg_sticky(void);               /* the sticky error of a faulted kernel, or success */
int ptxdbg_func_index(const void *host_stub);  /* the registered kernel of a host stub, or -1 */
cudaError_t ptxdbg_copy(void *dst, const void *src, size_t n);
cudaError_t ptxdbg_set(void *dst, int value, size_t n);
cudaError_t ptxdbg_pack_launch(int func, dim3 g, dim3 b, void **args, size_t shmem, uint32_t flags, unsigned char **out, size_t *len);
cudaError_t ptxdbg_run_launch(const unsigned char *q, size_t qlen);

/* backtrace.c: the program's frames of this call (see there); api: the API function called */
size_t ptxdbg_frames(unsigned char *out, size_t cap, const char **api, uint64_t *inner);

/* streams.c */
int ptxdbg_capturing(cudaStream_t s);
int ptxdbg_stream_bad(cudaStream_t s);
int ptxdbg_graph_memory(const void *p);  /* allocated by a graph: frees keep it */
cudaError_t ptxdbg_capture_launch(cudaStream_t s, int func, unsigned char *packed, size_t len); /* takes packed */
cudaError_t ptxdbg_capture_copy(cudaStream_t s, void *dst, const void *src, size_t n);
cudaError_t ptxdbg_capture_memset(cudaStream_t s, void *dst, size_t pitch, unsigned value, unsigned elem, size_t width, size_t height);
