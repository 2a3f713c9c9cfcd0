#!/usr/bin/env python3
# Inputs and expected results for floatSpecial (numpy float32 arithmetic is IEEE binary32 with
# subnormals; C99/IEEE semantics for fmin/fmax/fmod/nextafter/fdim/round).
import math
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
inf, nan = math.inf, math.nan
DEN = 2.0 ** -149
TINY = float(np.finfo(np.float32).tiny)
FMAX = float(np.finfo(np.float32).max)
pairs = [(nan, 1.0), (1.0, nan), (nan, nan), (-inf, 3.0), (inf, -inf), (inf, inf), (-0.0, 5.0),
         (-0.0, -2.0), (DEN, DEN), (DEN, -0.5), (TINY, -TINY * 0.5), (-0.5, 2.0), (0.5, -2.0),
         (-0.4, 3.0), (2.5, 0.75), (-7.5, 2.0), (-4.0, 2.0), (5.3, inf), (inf, 2.0), (1.0, 0.0),
         (3.0, -0.0), (3.0, 5.0), (5.0, 3.0), (0.0, -1.0), (1.0, 2.0), (FMAX, inf), (inf, 0.0),
         (DEN, 0.0), (4194304.5, 1.0), (0.49999997, -1.0), (-2.5, 1.0), (1.5, -1.0), (-1.5, 7.0),
         (FMAX, FMAX), (-FMAX, 2.0), (1e-45, 1e30), (123.456, -0.001), (-0.0, -0.0),
         (2.0, 2.0), (-1e-40, 1e-40)]
rng = np.random.default_rng(11)
while len(pairs) < 48:
    pairs.append((float(rng.uniform(-100, 100)), float(rng.uniform(-10, 10))))
n = len(pairs)
x = np.array([p[0] for p in pairs], np.float32)
y = np.array([p[1] for p in pairs], np.float32)


def roundf(v):
    v = float(v)
    if math.isnan(v) or math.isinf(v):
        return v
    r = math.floor(abs(v) + 0.5)                  # exact in double for |v| < 2^52
    return math.copysign(float(r), v)


def fdimf(a, b):
    if math.isnan(a) or math.isnan(b):
        return nan
    return float(np.float32(a) - np.float32(b)) if a > b else 0.0


res = np.zeros((n, 16), np.float32)
flags = np.zeros(n, np.int32)
with np.errstate(all="ignore"):
    res[:, 0] = np.fmin(x, y)
    res[:, 1] = np.fmax(x, y)
    res[:, 2] = np.copysign(x, y)
    res[:, 3] = np.abs(x)
    res[:, 4] = -x
    res[:, 5] = x + y
    res[:, 6] = x * y
    res[:, 7] = x - y
    res[:, 8] = np.floor(x)
    res[:, 9] = np.ceil(x)
    res[:, 10] = np.trunc(x)
    res[:, 11] = np.rint(x)
    res[:, 12] = [roundf(v) for v in x]
    res[:, 13] = np.fmod(x, y)
    res[:, 14] = [fdimf(a, b) for a, b in zip(x, y)]
    res[:, 15] = np.nextafter(x, y)
    for i in range(n):
        a, b = float(x[i]), float(y[i])
        assert not (a == 0 and b == 0 and math.copysign(1, a) != math.copysign(1, b)), "fmin(+-0) is unspecified"
        f = (int(math.isnan(a)) | int(math.isinf(a)) << 1 | int(math.isfinite(a)) << 2 |
             int(math.copysign(1, a) < 0) << 3 | int(a == b) << 4 | int(a < b) << 5 |
             int(a != b) << 6 | int(a >= b) << 7 | int(not (a < b)) << 8)
        flags[i] = f
assert res[9, 6] == 0 and math.copysign(1, res[9, 6]) < 0          # -2^-150 rounds to -0
assert res[29, 12] == 0.0 and res[28, 12] == 4194305.0 and res[28, 11] == 4194304.0
for name, a in (("xs", x), ("ys", y)):
    a.tofile(os.path.join(HERE, "in", name + ".bin"))
    a.tofile(os.path.join(HERE, "expected", name + ".bin"))
res.tofile(os.path.join(HERE, "expected/res.bin"))
flags.tofile(os.path.join(HERE, "expected/flags.bin"))
print(n)
