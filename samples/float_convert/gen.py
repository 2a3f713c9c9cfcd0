#!/usr/bin/env python3
# Inputs and expected results for convertModes: float->int conversions round in the given mode
# and saturate at the destination range (PTX cvt semantics; no NaN inputs are used), int->float
# and f64->f32 conversions are single IEEE roundings (samples/_lib/ieee.py, exact fractions).
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
rng = np.random.default_rng(4242)
inf = math.inf
M32, M64 = (1 << 32) - 1, (1 << 64) - 1
xs = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.0, 1e10, -1e10, 3e9, -3.7,
      4294967040.0, 4294967296.0, 1e20, -1e20, inf, -inf, 2.0 ** 63, 2.0 ** 64, 2.0 ** -149, -2.0 ** -149,
      2147483520.0, -2147483648.0, 8388609.5, -8388607.5]
ds = [2147483647.5, -2147483648.5, 0.5, -2.5, 1e300, -1e300, 3.4028235677973366e38, 1e-46,
      2.0 ** -150, 3 * 2.0 ** -151, 1 / 3, 2.0 ** 63, -2.0 ** 63, 1.5e19, inf, -inf, -0.0,
      4294967295.5, 2.0 ** 53 + 2, -(2.0 ** 62) - 1024.5 + 0.5, 1e-320, 123456.789]
ks = [-2 ** 31, 2 ** 31 - 1, 16777217, -16777217, 33554435, 0, -1, 16777219, -33554431, 1]
Ks = [2 ** 63 - 1, -2 ** 63, 2 ** 53 + 1, -(2 ** 53 + 1), -1, 0, 123456789012345678,
      2 ** 24 + 1, (2 ** 53 + 3) * 2 ** 8, -(2 ** 40 + 2 ** 16 + 1)]
while len(xs) < n:
    e = int(rng.integers(-5, 41))
    xs.append(float(np.float32((-1) ** int(rng.integers(0, 2)) * rng.uniform(1, 2) * 2.0 ** e)))
while len(ds) < n:
    e = int(rng.integers(-5, 67))
    ds.append((-1) ** int(rng.integers(0, 2)) * rng.uniform(1, 2) * 2.0 ** e)
while len(ks) < n:
    ks.append(int(rng.integers(-2 ** 31, 2 ** 31)) >> int(rng.integers(0, 31)))
while len(Ks) < n:
    Ks.append(int(rng.integers(-2 ** 63, 2 ** 63 - 1, dtype=np.int64)) >> int(rng.integers(0, 63)))
xs = [float(np.float32(v)) for v in xs]
assert xs[6] == 0.4999999701976776 and xs[7] == 0 and math.copysign(1, xs[7]) < 0

ci = np.zeros((n, 12), np.int64)
cl = np.zeros((n, 12), np.int64)
cf = np.zeros((n, 20), np.float32)
cd = np.zeros((n, 12), np.float64)
modes = ["rn", "rz", "ru", "rd"]
for i in range(n):
    x, d, k, K = xs[i], ds[i], ks[i], Ks[i]
    uk, UK = k & M32, K & M64
    ci[i] = ([ieee.to_int(x, m, 32, True) for m in modes] +
             [ieee.to_int(x, m, 32, False) for m in modes] +
             [ieee.to_int(d, m, 32, True) for m in modes])
    cl[i] = ([ieee.to_int(x, m, 64, True) for m in modes] +
             [ieee.to_int(x, m, 64, False) - (1 << 64 if ieee.to_int(x, m, 64, False) >= 1 << 63 else 0) for m in modes] +
             [ieee.to_int(d, m, 64, True) for m in modes])
    cf[i] = ([ieee.from_int(k, "f32", m) for m in modes] + [ieee.from_int(uk, "f32", m) for m in modes] +
             [ieee.from_int(K, "f32", m) for m in modes] + [ieee.from_int(UK, "f32", m) for m in modes] +
             [d if (math.isinf(d) or d == 0) else ieee.round_exact(__import__("fractions").Fraction(d), "f32", m) for m in modes])
    cd[i] = ([ieee.from_int(K, "f64", m) for m in modes] + [ieee.from_int(UK, "f64", m) for m in modes] +
             [float(k), float(uk), x, float(np.float32(d))])
    # sanity: rn conversions agree with numpy
    assert cf[i, 0] == np.float32(k) and cd[i, 0] == float(np.float64(K)) or K != K
    if not (math.isinf(d)):
        with np.errstate(over="ignore"):
            assert np.float32(d).view(np.uint32) == np.float32(cf[i, 16]).view(np.uint32), i

arrs = {"xs": (xs, np.float32), "ds": (ds, np.float64), "ks": (ks, np.int32), "Ks": (Ks, np.int64)}
for name, (v, t) in arrs.items():
    a = np.array(v, t)
    a.tofile(os.path.join(HERE, "in", name + ".bin"))
    a.tofile(os.path.join(HERE, "expected", name + ".bin"))
ci.astype(np.int32).tofile(os.path.join(HERE, "expected/ci.bin"))
cl.tofile(os.path.join(HERE, "expected/cl.bin"))
cf.tofile(os.path.join(HERE, "expected/cf.bin"))
cd.tofile(os.path.join(HERE, "expected/cd.bin"))
print("ok")
