#!/usr/bin/env python3
# Inputs for bug_misaligned. The expected outcome is a diagnosis (see case.json), so there are no expected buffers.
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(HERE, "in"), exist_ok=True)
rng = np.random.default_rng(0)
rng.integers(0, 256, 256).astype(np.uint8).tofile(os.path.join(HERE, "in/bytes.bin"))
off = (np.arange(48) * 4).astype(np.int32)
off[21] = 86                       # not a multiple of 4
off.tofile(os.path.join(HERE, "in/offsets.bin"))
