#!/usr/bin/env python3
# Inputs for bug_null_deref. The expected outcome is a diagnosis (see case.json), so there are no expected buffers.
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(HERE, "in"), exist_ok=True)
rng = np.random.default_rng(0)
rng.integers(-1000, 1000, 96).astype(np.int32).tofile(os.path.join(HERE, "in/data.bin"))
sel = rng.integers(0, 6, 64).astype(np.int32)
sel[37] = 6                        # rows[6] is nullptr (nrows = 6)
sel.tofile(os.path.join(HERE, "in/sel.bin"))
