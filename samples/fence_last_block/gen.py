#!/usr/bin/env python3
# Inputs and expected results for sumLastBlock: 8 blocks x 64 ints; partial[b] = sum of block b's
# slice, total = sum of everything.
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
rng = np.random.default_rng(13)
vin = rng.integers(-50000, 50000, 512).astype(np.int32)
partial = np.array([int(vin[b * 64:(b + 1) * 64].astype(np.int64).sum()) for b in range(8)], np.int32)
total = np.array([int(partial.astype(np.int64).sum())], np.int32)
vin.tofile(os.path.join(HERE, "in/in.bin"))
vin.tofile(os.path.join(HERE, "expected/in.bin"))
partial.tofile(os.path.join(HERE, "expected/partial.bin"))
total.tofile(os.path.join(HERE, "expected/total.bin"))
