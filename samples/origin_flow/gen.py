#!/usr/bin/env python3
# Writes in/ and expected/ for origin_flow: in[t] = 10*t, out[t] = 2*(in[(t+1)%64] + 1).
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(HERE, "in"), exist_ok=True)
os.makedirs(os.path.join(HERE, "expected"), exist_ok=True)
n = 64
inp = (10 * np.arange(n)).astype(np.int32)
out = np.array([2 * (inp[(t + 1) % n] + 1) for t in range(n)], dtype=np.int32)
inp.tofile(os.path.join(HERE, "in/in.bin"))
inp.tofile(os.path.join(HERE, "expected/in.bin"))
out.tofile(os.path.join(HERE, "expected/out.bin"))
