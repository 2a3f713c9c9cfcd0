#!/usr/bin/env python3
# Inputs for race_shared_waw. The expected outcome is a diagnosis (see case.json), so there are no expected buffers.
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(HERE, "in"), exist_ok=True)
rng = np.random.default_rng(0)
keys = rng.integers(0, 1 << 20, 128).astype(np.int32)
keys.tofile(os.path.join(HERE, "in/keys.bin"))
for b in range(2):                  # several threads per bucket, from different warps too
    k = keys[b * 64:(b + 1) * 64] & 15
    assert np.bincount(k, minlength=16).max() > 1
