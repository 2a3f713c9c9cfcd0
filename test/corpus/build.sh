#!/bin/sh
# Rebuild the parse-only corpus: compile each NAME.cu in the neutral directory /src/corpus/
# (so .file directives read /src/corpus/NAME.cu), then check both builds with ptxas.
# usage: sh test/corpus/build.sh [NAME...]   (default: every .cu here)
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p /src/corpus
if [ $# -eq 0 ]; then set -- $(cd "$HERE" && ls *.cu | sed 's/\.cu$//'); fi
for name in "$@"; do
  cp "$HERE/$name.cu" "/src/corpus/$name.cu"
  (cd /src/corpus &&
   nvcc -G -ptx -arch=sm_80 "$name.cu" -o "$name.G.ptx" &&
   nvcc -O3 -lineinfo -ptx -arch=sm_80 "$name.cu" -o "$name.O3.ptx" &&
   ptxas -arch=sm_80 "$name.G.ptx" -o /dev/null &&
   ptxas -arch=sm_80 "$name.O3.ptx" -o /dev/null)
  cp "/src/corpus/$name.G.ptx" "/src/corpus/$name.O3.ptx" "$HERE/"
  echo "built $name ($(wc -l < "$HERE/$name.G.ptx") / $(wc -l < "$HERE/$name.O3.ptx") lines)"
done
