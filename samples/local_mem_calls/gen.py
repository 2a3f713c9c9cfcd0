#!/usr/bin/env python3
# Inputs and expected results for localMem (n = 70, 2 blocks x 48), following the C source
# (truncating %, 64-bit wrapping product).
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
n = 70
rng = np.random.default_rng(3)
seeds = rng.integers(-2 ** 26, 2 ** 26, n).astype(np.int32)
lens = rng.integers(1, 25, n).astype(np.int32)
lens[0], lens[1], lens[2] = 1, 24, 2
M64 = (1 << 64) - 1


def crem(a, b):
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


out = np.zeros((n, 6), np.int32)
prod = np.zeros(n, np.uint64)
for i in range(n):
    seed, ln = int(seeds[i]), int(lens[i])
    buf = [crem(seed * (k + 3) + 7 * k, 101) - 50 for k in range(ln)]
    buf[(seed & 0x7fffffff) % ln] += 1000
    count = sum(v > 0 for v in buf)
    s = sum(buf)
    p = 1
    for v in buf:
        p = (p * ((v | 1) & M64)) & M64
    mn = min([32767] + buf)
    mx = max([-32768] + buf)
    by = (seed & 0xff) % ln
    tmp = [0] * ln
    for k in range(ln):
        tmp[(k + by) % ln] = buf[k]
    r = sum(tmp[k] * (k + 1) for k in range(ln))
    out[i] = [count, s, mn, mx, r, tmp[(i * 7) % ln]]
    prod[i] = p
for k, v in (("seeds", seeds), ("lens", lens)):
    v.tofile(os.path.join(HERE, "in", k + ".bin"))
    v.tofile(os.path.join(HERE, "expected", k + ".bin"))
out.tofile(os.path.join(HERE, "expected/out.bin"))
prod.tofile(os.path.join(HERE, "expected/outProd.bin"))
