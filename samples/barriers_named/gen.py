#!/usr/bin/env python3
# Inputs and expected results for barriersNamed (2 blocks x 128 threads).
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
rng = np.random.default_rng(5)
v = rng.integers(-80, 91, 256).astype(np.int32)    # block 0: all > -90, none > 95
v[128 + 17] = -95                                  # block 1: __syncthreads_and false
v[128 + 100] = 99                                  # block 1: __syncthreads_or true
v.tofile(os.path.join(HERE, "in/in.bin"))
out = np.zeros(256, np.int32)
counts = np.zeros(6, np.int32)
for b in range(2):
    x = [int(e) for e in v[b * 128:(b + 1) * 128]]
    cnt = sum(e > 0 for e in x)
    al = int(all(e > -90 for e in x))
    an = int(any(e > 95 for e in x))
    counts[b * 3:b * 3 + 3] = [cnt, al, an]
    for t in range(128):
        if t < 64:
            out[b * 128 + t] = 2 * x[63 - t] + cnt - x[t]
        else:
            out[b * 128 + t] = (2 * x[127 - t] + cnt) * 10 + 2 * x[127 - t] + al * 1000 + an * 10000
v.tofile(os.path.join(HERE, "expected/in.bin"))
out.tofile(os.path.join(HERE, "expected/out.bin"))
counts.tofile(os.path.join(HERE, "expected/counts.bin"))
