#!/bin/sh
# Regenerate the llvm-dwarfdump reference dumps used by test/dwarf/reference.test.ts.
#
# For every kernel.G.ptx with a kernel.cu beside it (shared conformance cases and the project's
# samples), compile the same source to a cubin exactly like the PTX was produced (in the neutral
# directory /src/<case>/, so DW_AT_comp_dir and the file names match the PTX's) and dump its
# .debug_info. ptxas resolves addresses, so the test compares the trees structurally.
#
# usage: sh test/dwarf/reference/regen.sh [CASE...]     (run from anywhere; needs nvcc and llvm-dwarfdump)
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
CONF=${PTXDBG_CONFORMANCE:-/work/shared/conformance}
# Header paths in .file directives (and thus DW_AT_decl_file names) depend on the path nvcc was
# invoked by (/usr/local/cuda/bin/nvcc vs /usr/local/cuda-13.0/bin/nvcc): pick, per case, the
# nvcc whose bin directory the PTX's own .file directives name; else $NVCC, else nvcc on PATH.
pick_nvcc() {
  bin=$(sed -n 's/^[[:space:]]*\.file[[:space:]].*"\(\/[^"]*\/bin\)\/\.\.\/.*/\1/p' "$1" | head -n 1)
  if [ -n "$bin" ] && [ -x "$bin/nvcc" ]; then echo "$bin/nvcc"; else echo "${NVCC:-nvcc}"; fi
}
for ptx in "$CONF"/*/kernel.G.ptx "$ROOT"/samples/*/kernel.G.ptx; do
  [ -f "$ptx" ] || continue
  dir=$(dirname "$ptx")
  name=$(basename "$dir")
  [ -f "$dir/kernel.cu" ] || continue
  if [ $# -gt 0 ]; then
    case " $* " in *" $name "*) ;; *) continue ;; esac
  fi
  mkdir -p "/src/$name"
  nv=$(pick_nvcc "$ptx")
  cp "$dir/kernel.cu" "/src/$name/kernel.cu"
  (cd "/src/$name" && "$nv" -G -cubin -arch=sm_80 kernel.cu -o kernel.cubin &&
   llvm-dwarfdump --debug-info kernel.cubin 2>/dev/null) > "$HERE/$name.txt"
  echo "regenerated $name.txt"
done
