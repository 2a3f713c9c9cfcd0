#!/usr/bin/env python3
# Inputs for bug_trap. The expected outcome is a diagnosis (see case.json), so there are no expected buffers.
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(HERE, "in"), exist_ok=True)
rng = np.random.default_rng(0)
idx = rng.integers(0, 100, 128).astype(np.int32)
idx[45] = 100                      # m = 100: the only out-of-range index
idx.tofile(os.path.join(HERE, "in/idx.bin"))
rng.uniform(-1, 1, 100).astype(np.float32).tofile(os.path.join(HERE, "in/src.bin"))
