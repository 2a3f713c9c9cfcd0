#!/usr/bin/env python3
# Writes in/ and expected/ for inline_frames: out = 3*(x^2 + y^2) + 0.5 for n = 100 (2 blocks x 64, 28 idle).
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(HERE, "in"), exist_ok=True)
os.makedirs(os.path.join(HERE, "expected"), exist_ok=True)
n = 100
i = np.arange(n)
x = ((i % 41) - 20).astype(np.float32)          # -20..20: every product and sum below is exact in f32
y = (((i * 7) % 31) - 15).astype(np.float32)    # -15..15
x.tofile(os.path.join(HERE, "in/x.bin"))
y.tofile(os.path.join(HERE, "in/y.bin"))
r = x.astype(np.float64) ** 2 + y.astype(np.float64) ** 2
out = (r * 3 + 0.5).astype(np.float32)
x.tofile(os.path.join(HERE, "expected/x.bin"))
y.tofile(os.path.join(HERE, "expected/y.bin"))
out.tofile(os.path.join(HERE, "expected/out.bin"))
