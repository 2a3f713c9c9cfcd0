#!/usr/bin/env python3
# Inputs for race_tile_2d (32x32 floats). The expected outcome is a diagnosis (see case.json), so there are no expected buffers.
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(HERE, "in"), exist_ok=True)
rng = np.random.default_rng(11)
rng.uniform(-1, 1, 32 * 32).astype(np.float32).tofile(os.path.join(HERE, "in/in.bin"))
