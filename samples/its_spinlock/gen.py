#!/usr/bin/env python3
# Writes in/ and expected/ for its_spinlock: each of the 64 threads enters the critical section
# once, so lock = 0 (released), counter = sum(in), entries = 64, done[t] = 1 for every t.
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(HERE, "in"), exist_ok=True)
os.makedirs(os.path.join(HERE, "expected"), exist_ok=True)
inp = [(13 * t + 5) % 97 - 40 for t in range(64)]
files = {
    "in/in.bin": struct.pack("<64i", *inp),
    "expected/in.bin": struct.pack("<64i", *inp),
    "expected/lock.bin": struct.pack("<i", 0),
    "expected/counter.bin": struct.pack("<i", sum(inp)),
    "expected/entries.bin": struct.pack("<i", 64),
    "expected/done.bin": struct.pack("<64i", *([1] * 64)),
}
for name, data in files.items():
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)
