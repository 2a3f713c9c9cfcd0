#!/usr/bin/env python3
# Inputs and expected results for mallocPrintf (one block of 8 threads). The expected stdout is
# produced by the host C library's printf with the same format strings and arguments (gen_stdout.c,
# compiled here with cc), since CUDA's device printf follows C printf formatting.
import os
import subprocess
import tempfile
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
n = 8
v = np.array([5, -3, 1000, -77, 0, 123456, -1, 42], np.int32)
v.tofile(os.path.join(HERE, "in/in.bin"))
v.tofile(os.path.join(HERE, "expected/in.bin"))
out = np.zeros(2 * n, np.int32)
for t in range(n):
    ln = 4 + t % 5
    out[t] = int(v[t]) * ln * (ln + 1) // 2
    out[n + t] = 1
out.tofile(os.path.join(HERE, "expected/out.bin"))

src = os.path.join(HERE, "gen_stdout.c")
with tempfile.TemporaryDirectory() as tmp:
    exe = os.path.join(tmp, "gen_stdout")
    subprocess.check_call(["cc", "-O0", "-o", exe, src])
    args = [str(int(x)) for x in v] + [str(int(x)) for x in out[:n]]
    text = subprocess.check_output([exe] + args)
with open(os.path.join(HERE, "expected/stdout.txt"), "wb") as f:
    f.write(text)
