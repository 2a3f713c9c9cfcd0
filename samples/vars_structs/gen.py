#!/usr/bin/env python3
# Inputs and expected results for varsKernel (n = 128, 2 blocks x 64), following the C source.
# in[] holds small multiples of 1/4 and origin = {1.5, -2.0}, so every f32 operation is exact
# (mul+add and fma agree) and the expected values are exact.
import os
import struct
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
n, block = 128, 64
ox, oy = 1.5, -2.0
rng = np.random.default_rng(55)
inp = (rng.integers(-80, 81, n) / 4.0).astype(np.float32)
SCALE = [0.5, 1.0, 2.0, 4.0]
RED, GREEN, BLUE = 0, 5, 6


def f32(v):
    r = float(np.float32(v))
    assert r == v, v   # every value of this kernel is exact in f32
    return r


def f32bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def particle_id(b, tid):
    return b * block + tid


out = np.zeros(n, np.float32)
out_int = np.zeros(n, np.int32)
for i in range(n):
    b, tid = divmod(i, block)
    x = f32(float(inp[i]) + ox)
    y = f32(0.5 * i + oy)
    mass = 1.0 + i
    color = RED if i % 3 == 0 else GREEN if i % 3 == 1 else BLUE
    label = [ord("a") + (i + k) % 26 for k in range(7)] + [0]
    k = (tid + 1) % 64
    tile_k = (b * block + k) ** 2                  # sTile[k] of this block
    w = f32(x * SCALE[k & 3] + y)
    acc = f32(1.0 + f32(w + tile_k))
    r = f32(w * mass)
    out[i] = f32(f32(r + acc) + float(inp[i]))
    spart_id = particle_id(b, tid % 8)             # sPart[tid % 8].id
    out_int[i] = tile_k + i + 7 + spart_id + color + label[tid % 7] + (f32bits(x) >> 23)
inp.tofile(os.path.join(HERE, "in/in.bin"))
inp.tofile(os.path.join(HERE, "expected/in.bin"))
out.tofile(os.path.join(HERE, "expected/out.bin"))
out_int.tofile(os.path.join(HERE, "expected/outInt.bin"))
