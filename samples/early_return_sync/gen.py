#!/usr/bin/env python3
# Writes in/ and expected/ for early_return_sync: out[t] = 2 * in[(t+1) % n] for t < n, else 0.
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(HERE, "in"), exist_ok=True)
os.makedirs(os.path.join(HERE, "expected"), exist_ok=True)
n = 40
inp = [(7 * t + 3) % 101 - 50 for t in range(64)]
out = [2 * inp[(t + 1) % n] if t < n else 0 for t in range(64)]
with open(os.path.join(HERE, "in/in.bin"), "wb") as f:
    f.write(struct.pack("<64i", *inp))
with open(os.path.join(HERE, "expected/in.bin"), "wb") as f:
    f.write(struct.pack("<64i", *inp))
with open(os.path.join(HERE, "expected/out.bin"), "wb") as f:
    f.write(struct.pack("<64i", *out))
