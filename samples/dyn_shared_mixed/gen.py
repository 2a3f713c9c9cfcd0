#!/usr/bin/env python3
# Inputs and expected results for dynShared (n = 280, 3 blocks x 96, sharedBytes = 96*4 + 96*4).
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
n, bs, nb = 280, 96, 3
rng = np.random.default_rng(17)
vin = (rng.integers(-200, 200, n) / 4.0).astype(np.float32)
out = np.zeros((n, 2), np.float32)
hists = np.zeros((nb, 16), np.int32)
for b in range(nb):
    dyn = np.zeros(bs, np.float32)
    for t in range(bs):
        i = b * bs + t
        dyn[t] = vin[i] if i < n else 0.0
    keys = [int(np.trunc(v)) & 15 for v in dyn]          # (int)v truncates toward zero
    for t in range(bs):
        hists[b, keys[bs - 1 - t]] += 1
        i = b * bs + t
        if i < n:
            out[i] = [dyn[bs - 1 - t], dyn[(t + 1) % bs] + dyn[(t + bs - 1) % bs]]
vin.tofile(os.path.join(HERE, "in/in.bin"))
vin.tofile(os.path.join(HERE, "expected/in.bin"))
out.tofile(os.path.join(HERE, "expected/out.bin"))
hists.tofile(os.path.join(HERE, "expected/hists.bin"))
