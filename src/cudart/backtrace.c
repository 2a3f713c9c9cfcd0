/*
 * Host backtraces for `ptxdbg sanitize` (compute-sanitizer's "Saved host backtrace up to driver
 * entry point"): the return addresses of the program's own frames, each as the file that holds
 * it and its offset from that file's load base, so ptxdbg can name them from the file's symbols.
 * This library's own frames are left out (compute-sanitizer's short backtrace leaves out CUDART
 * frames); the first of them names the API function the program called.
 *
 * Encoding: u32 count, then per frame { u64 offset, u32 path length, u32 symbol length, path,
 * symbol } (symbol: the dynamic symbol dladdr found, often none in an executable).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdint.h>
#include <string.h>
#include "internal.h"

enum { MAX_FRAMES = 48 };

static int ours(void *pc) {
  Dl_info self, it;
  if (!dladdr((void *)ptxdbg_frames, &self) || !dladdr(pc, &it)) return 0;
  return it.dli_fbase == self.dli_fbase;
}

static size_t put(unsigned char *out, size_t at, size_t cap, const void *p, size_t n) {
  if (at + n <= cap) memcpy(out + at, p, n);
  return at + n;
}

size_t ptxdbg_frames(unsigned char *out, size_t cap, const char **api, uint64_t *inner) {
  void *pcs[MAX_FRAMES];
  int n = backtrace(pcs, MAX_FRAMES);
  int first = 0;
  // skip this library's frames (the innermost ones); the last of them is the API entry point
  uint64_t h = 1469598103934665603ULL;
  while (first < n && ours(pcs[first])) h = (h ^ (uint64_t)(uintptr_t)pcs[first++]) * 1099511628211ULL;
  if (inner) *inner = h;
  if (api) {
    Dl_info at;
    *api = first > 0 && dladdr(pcs[first - 1], &at) && at.dli_sname ? at.dli_sname : NULL;
  }
  uint32_t count = 0;
  size_t len = 4;
  for (int i = first; i < n; i++) {
    Dl_info at;
    if (!dladdr(pcs[i], &at) || !at.dli_fname) continue;
    // the return address (ptxdbg looks up the byte before it: inside the call instruction)
    uint64_t off = (uint64_t)((uintptr_t)pcs[i] - (uintptr_t)at.dli_fbase);
    const char *sym = at.dli_sname ? at.dli_sname : "";
    uint32_t pl = (uint32_t)strlen(at.dli_fname), sl = (uint32_t)strlen(sym);
    size_t need = len + 16 + pl + sl;
    if (need > cap) break;
    len = put(out, len, cap, &off, 8);
    len = put(out, len, cap, &pl, 4);
    len = put(out, len, cap, &sl, 4);
    len = put(out, len, cap, at.dli_fname, pl);
    len = put(out, len, cap, sym, sl);
    count++;
  }
  if (cap >= 4) memcpy(out, &count, 4);
  return len < cap ? len : cap;
}
