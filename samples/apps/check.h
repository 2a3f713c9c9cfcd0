// Shared by the sample programs: stop with a located message when a CUDA call fails.
#pragma once
#include <cstdio>
#include <cstdlib>
#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_), cudaGetErrorString(e_)); exit(1); } } while (0)
static inline int report(bool ok) { printf(ok ? "PASS\n" : "FAIL\n"); return ok ? 0 : 1; }
