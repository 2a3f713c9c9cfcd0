#!/usr/bin/env python3
# Inputs and expected results for vectorMem (n = 100, 2 blocks x 64). All float inputs are small
# multiples of 1/4, so every f32 operation in the kernel is exact; the f64 add is one rounding.
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
n = 100
rng = np.random.default_rng(8)
a = (rng.integers(-400, 400, (n, 4)) / 4.0).astype(np.float32)
b = rng.integers(-2 ** 31, 2 ** 31, (n, 4), dtype=np.int64).astype(np.int32)
c = rng.uniform(-1e6, 1e6, (n, 2))
REC = np.dtype([("tag", "i1"), ("pad0", "u1"), ("s", "<i2"), ("i", "<i4"), ("d", "<f8"),
                ("f", "<f4"), ("b", "u1", (3,)), ("pad1", "u1")])
assert REC.itemsize == 24
recs = np.zeros(n, REC)
recs["tag"] = rng.integers(-128, 128, n)
recs["tag"][0] = 127                         # tag + 1 wraps to -128
recs["s"] = rng.integers(-32768, 32768, n)
recs["s"][1] = -20000                        # s * -2 = 40000 wraps to -25536
recs["i"] = rng.integers(-2 ** 31 + 200, 2 ** 31 - 200, n)
recs["d"] = rng.uniform(-1e300, 1e300, n)
recs["d"][2] = 2.0 ** -1074                  # halving the smallest subnormal gives 0 (tie to even)
recs["f"] = rng.integers(-4000, 4000, n) / 4.0
recs["b"] = rng.integers(0, 256, (n, 3))
recs["pad0"] = 0xAB                          # padding is never written by the kernel
recs["pad1"] = 0xCD
flags = rng.integers(-1000, 1000, n).astype(np.int32)
orecs_in = np.zeros(n, REC)
orecs_in["pad0"] = 0x11
orecs_in["pad1"] = 0x22

oa = np.stack([a[:, 3], a[:, 2] + np.float32(1), a[:, 1] * np.float32(2), a[:, 0]], 1).astype(np.float32)
ob = np.stack([b[:, 0] + b[:, 1], b[:, 1] ^ b[:, 2], b[:, 2] - b[:, 3], b[:, 3] * 3], 1)   # int32 wraps
oc = np.stack([c[:, 1], c[:, 0] + c[:, 1]], 1)
orecs = orecs_in.copy()
orecs["tag"] = (recs["tag"].astype(np.int32) + 1).astype(np.int8)
orecs["s"] = (recs["s"].astype(np.int32) * -2).astype(np.int16)
orecs["i"] = (recs["i"].astype(np.int64) + recs["tag"]).astype(np.int32)
orecs["d"] = recs["d"] * 0.5
orecs["f"] = recs["s"].astype(np.float32) + recs["f"]
orecs["b"] = recs["b"][:, ::-1]
flags_out = (flags * 2 + 1).astype(np.int32)
g = a[(np.arange(n) + 1) % n]
sums = (((g[:, 0] + g[:, 1]) + g[:, 2]) + g[:, 3]) + recs["f"]

files = {"a": a, "b": b, "c": c, "recs": recs, "flags": flags, "orecs": orecs_in}
for k, v in files.items():
    v.tofile(os.path.join(HERE, "in", k + ".bin"))
exp = {"a": a, "b": b, "c": c, "recs": recs, "oa": oa, "ob": ob.astype(np.int32), "oc": oc,
       "orecs": orecs, "flags": flags_out, "sums": sums.astype(np.float32)}
for k, v in exp.items():
    v.tofile(os.path.join(HERE, "expected", k + ".bin"))
