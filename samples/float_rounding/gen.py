#!/usr/bin/env python3
# Inputs and expected results for roundingModes: every result is one correctly rounded IEEE
# operation in the given mode, computed exactly with fractions (samples/_lib/ieee.py).
import math
import os
import sys
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "_lib"))
import ieee  # noqa: E402

for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
n = 64
rng = np.random.default_rng(31337)
F32MAX = float(np.finfo(np.float32).max)
F32TINY = float(np.finfo(np.float32).tiny)      # smallest normal
F32DEN = 2.0 ** -149
F64MAX = float(np.finfo(np.float64).max)
F64TINY = float(np.finfo(np.float64).tiny)
F64DEN = 2.0 ** -1074
inf, nan = math.inf, math.nan


def rand_f32(lo_exp, hi_exp):
    e = int(rng.integers(lo_exp, hi_exp + 1))
    m = int(rng.integers(0, 1 << 23))
    s = int(rng.integers(0, 2))
    return float(np.array([(s << 31) | ((e + 127) << 23) | m], np.uint32).view(np.float32)[0])


def rand_f64(lo_exp, hi_exp):
    e = int(rng.integers(lo_exp, hi_exp + 1))
    m = int(rng.integers(0, 1 << 52, dtype=np.uint64))
    s = int(rng.integers(0, 2))
    return float(np.array([(s << 63) | ((e + 1023) << 52) | m], np.uint64).view(np.float64)[0])


special32 = [
    (1.0, 3.0, 0.0), (1.0, -3.0, 1e-8), (0.1, 0.2, -0.3), (F32MAX, F32MAX, -F32MAX),
    (-F32MAX, -F32MAX, F32MAX), (F32DEN, 0.5, F32DEN), (F32TINY, -F32TINY * 0.75, F32DEN * 3),
    (1.0, -1.0, -0.0), (-0.0, -0.0, 0.0), (inf, 2.0, -inf), (nan, 1.0, 1.0), (2.0, 0.0, 1.0),
    (5.0, -4.0, 1.0), (1.0, 2.0 ** -130, 0.0), (2.0 ** 24, 1.0, -1.0), (-2.0 ** 24, -3.0, 2.0 ** -30),
    (0.0, -0.0, -0.0), (-1.0, 1.0, 0.0), (2.0, 2.0, -4.0), (3.0, 2.0 ** -140, 2.0 ** -149),
]
special64 = [
    (1.0, 3.0, 0.0), (1.0, -3.0, 1e-20), (0.1, 0.2, -0.3), (F64MAX, F64MAX, -F64MAX),
    (-F64MAX, -F64MAX, F64MAX), (F64DEN, 0.5, F64DEN), (F64TINY, -F64TINY * 0.75, F64DEN * 3),
    (1.0, -1.0, -0.0), (-0.0, -0.0, 0.0), (inf, 2.0, -inf), (nan, 1.0, 1.0), (2.0, 0.0, 1.0),
    (5.0, -4.0, 1.0), (1.0, 2.0 ** -1030, 0.0), (2.0 ** 53, 1.0, -1.0), (-2.0 ** 53, -3.0, 2.0 ** -60),
    (0.0, -0.0, -0.0), (-1.0, 1.0, 0.0), (2.0, 2.0, -4.0), (3.0, 2.0 ** -1060, 2.0 ** -1074),
]
A, B, C, DA, DB, DC = [], [], [], [], [], []
for i in range(n):
    if i < len(special32):
        x, y, z = special32[i]
        X, Y, Z = special64[i]
    elif i < 32:     # tiny operands: subnormal products and quotients
        x, y, z = rand_f32(-126, -100), rand_f32(-40, -10), rand_f32(-126, -115)
        X, Y, Z = rand_f64(-1022, -1000), rand_f64(-60, -20), rand_f64(-1022, -1005)
    elif i < 40:     # huge operands: overflow in some modes
        x, y, z = rand_f32(100, 127), rand_f32(20, 40), rand_f32(120, 127)
        X, Y, Z = rand_f64(1000, 1023), rand_f64(20, 40), rand_f64(1000, 1023)
    else:
        x, y, z = rand_f32(-30, 30), rand_f32(-30, 30), rand_f32(-40, 40)
        X, Y, Z = rand_f64(-30, 30), rand_f64(-30, 30), rand_f64(-40, 40)
    x, y, z = (float(np.float32(v)) for v in (x, y, z))
    A.append(x); B.append(y); C.append(z); DA.append(X); DB.append(Y); DC.append(Z)
    if i >= 40 and i % 3 == 0:      # cancellation-heavy fma rows: z close to -x*y
        C[-1] = float(np.float32(-x * y))
        DC[-1] = -X * Y

modes = ["rn", "rz", "ru", "rd"]
rf = np.zeros((n, 28), np.float32)
rdd = np.zeros((n, 28), np.float64)
for i in range(n):
    for fmt, (x, y, z), out in (("f32", (A[i], B[i], C[i]), rf), ("f64", (DA[i], DB[i], DC[i]), rdd)):
        row = []
        for m in modes:
            row.append(ieee.add(x, y, fmt, m))
        for m in modes:
            row.append(ieee.sub(x, y, fmt, m))
        for m in modes:
            row.append(ieee.mul(x, y, fmt, m))
        for m in modes:
            row.append(ieee.div(x, y, fmt, m))
        for m in modes:
            row.append(ieee.fma(x, y, z, fmt, m))
        for m in modes:
            row.append(ieee.sqrt(y, fmt, m))
        for m in modes:
            row.append(ieee.rcp(y, fmt, m))
        out[i] = row
        if fmt == "f32":   # every f32 result must be representable (the reference is exact)
            assert all(math.isnan(v) or float(np.float32(v)) == v for v in row), (i, row)

for name, arr, t in [("a", A, np.float32), ("b", B, np.float32), ("c", C, np.float32),
                     ("da", DA, np.float64), ("db", DB, np.float64), ("dc", DC, np.float64)]:
    a = np.array(arr, t)
    a.tofile(os.path.join(HERE, "in", name + ".bin"))
    a.tofile(os.path.join(HERE, "expected", name + ".bin"))
rf.tofile(os.path.join(HERE, "expected/rf.bin"))
rdd.tofile(os.path.join(HERE, "expected/rd.bin"))

# cross-check round-to-nearest results against numpy's own IEEE arithmetic
with np.errstate(all="ignore"):
    a32, b32, c32 = (np.array(v, np.float32) for v in (A, B, C))
    a64, b64 = np.array(DA), np.array(DB)
    for got, want in [(rf[:, 0], a32 + b32), (rf[:, 4], a32 - b32), (rf[:, 8], a32 * b32),
                      (rf[:, 12], a32 / b32), (rf[:, 20], np.sqrt(b32)),
                      (rdd[:, 0], a64 + b64), (rdd[:, 8], a64 * b64), (rdd[:, 12], a64 / b64),
                      (rdd[:, 20], np.sqrt(b64))]:
        ok = (got.view(np.uint32 if got.dtype == np.float32 else np.uint64) ==
              want.view(np.uint32 if want.dtype == np.float32 else np.uint64)) | (np.isnan(got) & np.isnan(want))
        assert ok.all(), np.flatnonzero(~ok)
print("ok")
