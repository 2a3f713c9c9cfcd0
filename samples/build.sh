#!/bin/sh
# Rebuild the PTX of sample cases exactly like the conformance set: compile in /src/<name>/
# so the .file directive is /src/<name>/kernel.cu, then check both builds with ptxas.
# usage: sh samples/build.sh NAME...   (run from the project root)
set -e
ROOT=$(cd "$(dirname "$0")" && pwd)
for name in "$@"; do
  d="$ROOT/$name"
  mkdir -p "/src/$name"
  cp "$d/kernel.cu" "/src/$name/kernel.cu"
  (cd "/src/$name" &&
   nvcc -G -ptx -arch=sm_80 kernel.cu -o kernel.G.ptx &&
   nvcc -O3 -lineinfo -ptx -arch=sm_80 kernel.cu -o kernel.O3.ptx &&
   ptxas -arch=sm_80 kernel.G.ptx -o /dev/null &&
   ptxas -arch=sm_80 kernel.O3.ptx -o /dev/null)
  cp "/src/$name/kernel.G.ptx" "/src/$name/kernel.O3.ptx" "$d/"
  echo "built $name: $(grep -h '^.*\.entry' "$d/kernel.G.ptx" | tr -s ' ' | tr '\n' ' ')"
done
