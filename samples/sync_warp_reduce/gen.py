#!/usr/bin/env python3
# Inputs and expected results for warpReduceSynced: 4 blocks x 64 ints, out[b] = sum of block b's slice.
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
rng = np.random.default_rng(12)
vin = rng.integers(-100000, 100000, 256).astype(np.int32)
out = np.array([int(vin[b * 64:(b + 1) * 64].astype(np.int64).sum()) for b in range(4)], np.int32)
vin.tofile(os.path.join(HERE, "in/in.bin"))
vin.tofile(os.path.join(HERE, "expected/in.bin"))
out.tofile(os.path.join(HERE, "expected/out.bin"))
