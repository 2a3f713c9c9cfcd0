#!/usr/bin/env python3
# Inputs for race_cpasync_no_wait. The expected outcome is a diagnosis (see case.json), so there are no expected buffers.
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(HERE, "in"), exist_ok=True)
rng = np.random.default_rng(0)
rng.integers(-1000, 1000, 256).astype(np.int32).tofile(os.path.join(HERE, "in/in.bin"))
