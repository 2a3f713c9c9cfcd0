#!/usr/bin/env python3
# Writes in/ and expected/ for its_early_return_work:
# out[t] = 3 * in[(t+1) % n] + 1 for t < n, and -1 for the returned threads t >= n.
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(HERE, "in"), exist_ok=True)
os.makedirs(os.path.join(HERE, "expected"), exist_ok=True)
n = 40
inp = [(11 * t + 7) % 89 - 44 for t in range(64)]
out = [3 * inp[(t + 1) % n] + 1 if t < n else -1 for t in range(64)]
with open(os.path.join(HERE, "in/in.bin"), "wb") as f:
    f.write(struct.pack("<64i", *inp))
with open(os.path.join(HERE, "expected/in.bin"), "wb") as f:
    f.write(struct.pack("<64i", *inp))
with open(os.path.join(HERE, "expected/out.bin"), "wb") as f:
    f.write(struct.pack("<64i", *out))
