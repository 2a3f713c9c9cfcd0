#!/usr/bin/env python3
# Inputs and expected results for clockTimer (n = 64, 2 blocks x 32). The times buffer is not
# checked (clock/globaltimer values are implementation-defined).
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
n = 64
rng = np.random.default_rng(1)
vin = rng.integers(-1000, 1000, n).astype(np.int32)
m = vin & 15
out = (vin.astype(np.int64) * (m * (m - 1) // 2)).astype(np.int32)
vin.tofile(os.path.join(HERE, "in/in.bin"))
vin.tofile(os.path.join(HERE, "expected/in.bin"))
out.tofile(os.path.join(HERE, "expected/out.bin"))
