#!/bin/sh
# Regenerate the committed float test fixtures from the C oracle (needs gcc >= 12 on x86-64).
# Run from the project root:  sh test/float/oracle/regen.sh
set -e
D=test/float
gcc -O1 -std=gnu11 -frounding-math -ffp-contract=off -fno-builtin -o /tmp/ptxdbg_float_oracle $D/oracle/gen.c -lm
for s in f32 f64 cvt half; do /tmp/ptxdbg_float_oracle $s > $D/fixtures/$s.txt; done
ls -l $D/fixtures
