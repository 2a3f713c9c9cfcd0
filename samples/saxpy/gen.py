#!/usr/bin/env python3
# Writes in/ and expected/ for saxpy: y = a*x + y, n = 200 (2 blocks x 128 threads, 56 idle).
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(HERE, "in"), exist_ok=True)
os.makedirs(os.path.join(HERE, "expected"), exist_ok=True)
rng = np.random.default_rng(1234)
n = 200
a = np.float32(2.5)
x = (rng.integers(-64, 65, n) / 8.0).astype(np.float32)        # k/8: a*x is exact in f32
y = rng.uniform(-100.0, 100.0, n).astype(np.float32)
x.tofile(os.path.join(HERE, "in/x.bin"))
y.tofile(os.path.join(HERE, "in/y.bin"))
ax = a * x
assert np.all(ax.astype(np.float64) == 2.5 * x.astype(np.float64))   # product exact
out = (ax + y).astype(np.float32)                                   # single f32 rounding
x.tofile(os.path.join(HERE, "expected/x.bin"))
out.tofile(os.path.join(HERE, "expected/y.bin"))
