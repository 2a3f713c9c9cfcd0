#!/usr/bin/env python3
# Inputs and order-independent expected results for atomicsExt (2 blocks x 96 threads, n = 180).
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
M32, M64 = (1 << 32) - 1, (1 << 64) - 1
rng = np.random.default_rng(7)
n, bs, nb = 180, 96, 2
vals = rng.integers(-1000, 1001, n).astype(np.int32)
vals[5] = -1000
vals[77] = 999
slots = rng.integers(-(1 << 31), 1 << 31, n, dtype=np.int64).astype(np.int32)
INT_MAX, INT_MIN = 2**31 - 1, -2**31
gInt0 = np.array([INT_MAX, INT_MIN, -1, 0, 0, 0], np.int32)
gU0 = np.array([0, 500, M32, 0, 0, 0], np.uint32)
gLL0 = np.array([2**63 - 1, -2**63], np.int64)
gULL0 = np.array([M64, 0, 0], np.uint64)
gF0 = np.array([1.5], np.float32)
gD0 = np.array([-2.0], np.float64)


def w(name, arr, sub):
    arr.tofile(os.path.join(HERE, sub, name + ".bin"))


for name, arr in [("vals", vals), ("gInt", gInt0), ("gU", gU0), ("gLL", gLL0), ("gULL", gULL0),
                  ("gF", gF0), ("gD", gD0), ("slots", slots)]:
    w(name, arr, "in")

v = [int(x) for x in vals]
sx = lambda x: x - (1 << 32) if x & (1 << 31) else x          # u32 -> s32

# ---- global results (all threads of both blocks)
gInt = [min(v), max(v), 0, 0, 0, 0]
a, o, x = -1, 0, 0
for e in v:
    a &= e | 0x00ff00ff
    o |= 1 << ((e >> 3) & 31)
    x ^= e
gInt[2], gInt[3], gInt[4], gInt[5] = sx(a & M32), sx(o & M32), sx(x & M32), sx(sum(v) & M32)
inc = 0
dec = 500
for _ in v:
    inc = 0 if inc >= 1000 else inc + 1
    dec = 1000 if (dec == 0 or dec > 1000) else dec - 1
uv = [e & M32 for e in v]
gU = [inc, dec, min(uv), max(uv), n, 0]
for i in range(n):
    gU[5] |= 1 << (i & 31)
ws = [e * 1000003 for e in v]
uws = [e & M64 for e in ws]
gLL = [min(ws), max(ws)]
gULL = [min(uws), max(uws), sum(uws) & M64]
gF = np.float32(1.5 + sum((e & 1023) * 0.125 for e in v))        # exact: multiples of 1/8 < 2^17
gD = np.float64(-2.0 + sum(e * 0.25 for e in v))
assert float(gF) == 1.5 + sum((e & 1023) * 0.125 for e in v)

# ---- per-block shared results
blockRes = np.zeros(nb * 16, np.uint64)
for b in range(nb):
    bv = v[b * bs:min(n, (b + 1) * bs)]
    r = [0] * 16
    r[0] = sum(e & 7 for e in bv)
    r[1], r[2] = min(bv), max(bv)
    a, o, x = -1, 0, 0
    for e in bv:
        a &= e | 0x0f0f0f0f
        o |= 1 << (e & 31)
        x ^= e
    r[3], r[4], r[5], r[6] = sx(a & M32), sx(o & M32), sx(x & M32), sx(sum(bv) & M32)
    r[0:7] = [e & M64 for e in r[0:7]]            # sign-extended to 64 bits
    inc, dec = 0, 5
    for _ in bv:
        inc = 0 if inc >= 17 else inc + 1
        dec = 9 if (dec == 0 or dec > 9) else dec - 1
    ub = [e & M32 for e in bv]
    r[7], r[8], r[9], r[10] = inc, dec, min(ub), max(ub)
    wb = [e * 1000003 for e in bv]
    r[11], r[12] = min(wb) & M64, max(wb) & M64
    r[13] = min(e & M64 for e in wb) ^ max(e & M64 for e in wb)
    sF = np.float32(sum((e & 255) * 0.25 for e in bv))
    r[14] = int(sF.view(np.uint32))
    sD = np.float64(sum(e * 0.5 for e in bv))
    r[15] = int(sD.view(np.uint64))
    blockRes[b * 16:(b + 1) * 16] = r

w("vals", vals, "expected")
w("gInt", np.array(gInt, np.int32), "expected")
w("gU", np.array(gU, np.uint32), "expected")
w("gLL", np.array(gLL, np.int64), "expected")
w("gULL", np.array(gULL, np.uint64), "expected")
w("gF", np.array([gF], np.float32), "expected")
w("gD", np.array([gD], np.float64), "expected")
w("slots", vals.copy(), "expected")          # each slot was exchanged with its thread's value
w("olds", slots.copy(), "expected")          # ... and the old value came back
w("blockRes", blockRes, "expected")
