#!/usr/bin/env python3
# Inputs and expected results for anyPositive (n = 300, 4 blocks x 96): out[b] = 1 iff any input
# of block b is positive.
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
n, bs, nb = 300, 96, 4
rng = np.random.default_rng(6)
vin = -rng.integers(0, 1000, n).astype(np.int32)      # all <= 0 ...
vin[[3, 40, 41, 90]] = [5, 7, 1, 9]                    # block 0: several positives, in two warps
vin[100:192:2] = 17                                    # block 1: every other thread positive
vin[295] = 1                                           # block 3: one positive in the partial tail
out = np.array([int((vin[b * bs:min(n, (b + 1) * bs)] > 0).any()) for b in range(nb)], np.int32)
assert list(out) == [1, 1, 0, 1]
vin.tofile(os.path.join(HERE, "in/in.bin"))
vin.tofile(os.path.join(HERE, "expected/in.bin"))
out.tofile(os.path.join(HERE, "expected/out.bin"))
