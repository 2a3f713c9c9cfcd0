#!/usr/bin/env python3
# Inputs and expected results for divergeStress (n = 290, 3 blocks x 100 threads).
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
n, bs = 290, 100
rng = np.random.default_rng(21)
vin = rng.integers(0, 1 << 15, n).astype(np.int32)
out = np.zeros((n, 3), np.int32)
reached = np.zeros(3, np.int32)
for i in range(n):
    v = int(vin[i])
    t = i % bs
    acc = 0
    for o in range(v & 7):
        inner = ((v >> 3) & 7) + o
        for k in range(inner):
            if (k + o + t) % 3 == 0:
                continue
            acc += k * o + 1
            if acc > 200:
                break
        if acc > 300:
            break
    out[i, 0] = acc
    if v & 0x100:
        if v & 0x200:
            out[i, 1:] = [-1, 1]
            continue
        elif t % 7 == 0:
            out[i, 1:] = [-2, 2]
            continue
    sel = (v >> 12) & 7
    x = acc
    if sel == 0:
        x = acc * 2
    elif sel in (1, 2):
        if sel == 1:
            x = -acc
        x += 5
    elif sel in (3, 4):
        x = acc ^ 0x55
    else:
        x = v >> 12
    out[i, 1:] = [x, 3]
    reached[i // bs] += 1
vin.tofile(os.path.join(HERE, "in/in.bin"))
vin.tofile(os.path.join(HERE, "expected/in.bin"))
out.tofile(os.path.join(HERE, "expected/out.bin"))
reached.tofile(os.path.join(HERE, "expected/reached.bin"))
print(reached, np.bincount(out[:, 2]))
