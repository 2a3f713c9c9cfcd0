#!/usr/bin/env python3
# Inputs and expected results for halfBf16. Every result is one IEEE rounding of an exact value
# into bfloat16 (p=8) or binary16 (p=11), computed with fractions (samples/_lib/ieee.py).
# On sm_80 the bf16 __hadd/__hsub/__hmul/__hfma are single fma.rn.bf16 instructions
# (a*1+b, b*-1+a, a*b+-0, a*b+c), and the rd/ru f32->bf16 conversions are emulated exactly.
import math
import os
import sys
from fractions import Fraction
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "_lib"))
import ieee  # noqa: E402

for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
n = 64
rng = np.random.default_rng(77)
FMAX = float(np.finfo(np.float32).max)
xs = [1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8), -(1 + 3 * 2 ** -8), FMAX, -FMAX, math.inf, -1.0e-3,
      3.0, 255.5, 2 ** -126, -2 ** -120 * 1.75]
ys = [1.0, 2 ** -8, 1.0, -2 ** -9, 1.0, 2.0, 5.0, 1.0e-3, -3.0, 0.5, 2 ** -126, 7.0]
while len(xs) < n:
    xs.append(float(np.float32(rng.uniform(-1, 1) * 2.0 ** int(rng.integers(-20, 21)))))
    ys.append(float(np.float32(rng.uniform(-1, 1) * 2.0 ** int(rng.integers(-20, 21)))))
xs = [float(np.float32(v)) for v in xs]
ys = [float(np.float32(v)) for v in ys]

ha = [0.5, -2.0, 65504.0, 2.0 ** -24, 2.0 ** -14, 1000.0, 3.140625, -0.099975586]
hb = [0.25, 3.0, 2.0, 2.0 ** -10, -0.5, 100.0, -1.5, 7.5]
while len(ha) < n:
    ha.append(float(np.float16(rng.uniform(-1, 1) * 2.0 ** int(rng.integers(-8, 9)))))
    hb.append(float(np.float16(rng.uniform(-1, 1) * 2.0 ** int(rng.integers(-8, 9)))))
ha = [float(np.float16(v)) for v in ha]
hb = [float(np.float16(v)) for v in hb]
assert all(v != 0 for v in ha + hb)


def bf16bits(v):
    return int(np.array([v], np.float32).view(np.uint32)[0]) >> 16


def rb(v, mode="rn"):
    """round exact v (Fraction or float) to bf16"""
    if isinstance(v, float) and (math.isinf(v) or math.isnan(v)):
        return v
    return ieee.round_exact(Fraction(v), "bf16", mode) if v != 0 else float(v)


def rh(v, mode="rn"):
    if isinstance(v, float) and (math.isinf(v) or math.isnan(v)):
        return v
    return ieee.round_exact(Fraction(v), "f16", mode) if v != 0 else float(v)


bf = np.zeros((n, 10), np.uint16)
bff = np.zeros((n, 2), np.float32)
h2 = np.zeros((n, 12), np.float16)
for i in range(n):
    x, y = xs[i], ys[i]
    bx, by = rb(x), rb(y)
    assert bf16bits(bx) << 16 == int(np.array([bx], np.float32).view(np.uint32)[0])

    def op(f, *a):
        if any(math.isinf(v) for v in a):
            r = f(*[v for v in a])
            assert not math.isnan(r)
            return r
        r = f(*[Fraction(v) for v in a])
        return rb(r) if r != 0 else 0.0
    s_add = op(lambda a, b: a + b, bx, by)
    s_sub = op(lambda a, b: a - b, bx, by)
    s_mul = op(lambda a, b: a * b, bx, by)
    s_fma = op(lambda a, b: a * b + 1, bx, by)
    bf[i] = [bf16bits(bx), bf16bits(rb(x, "rz")), bf16bits(rb(x, "rd")), bf16bits(rb(x, "ru")),
             bf16bits(s_add), bf16bits(s_sub), bf16bits(s_mul), bf16bits(s_fma), bf16bits(bx), bf16bits(by)]
    bff[i] = [s_add, np.float32(bx) * np.float32(2.0)]

    a, b = Fraction(ha[i]), Fraction(hb[i])
    add = rh(a + b)
    mul = rh(a * b)
    fma0, fma1 = rh(a * b + a), rh(b * a + b)
    h2[i] = [add, add, mul, mul, fma0, fma1, min(ha[i], hb[i]), min(ha[i], hb[i]),
             max(ha[i], -hb[i]), max(hb[i], -ha[i]), rh(Fraction(float(np.float32(ha[i]) * np.float32(3.0)))),
             rh(Fraction(x), "rz") if not math.isinf(x) else x]     # inf stays inf in every mode
    # sanity: rn results agree with numpy's float16 conversion of the exact double value
    assert np.float16(float(a + b)) == np.float16(add) or math.isinf(add)

for name, v, t in (("xs", xs, np.float32), ("ys", ys, np.float32), ("ha", ha, np.float16), ("hb", hb, np.float16)):
    arr = np.array(v, t)
    arr.tofile(os.path.join(HERE, "in", name + ".bin"))
    arr.tofile(os.path.join(HERE, "expected", name + ".bin"))
bf.tofile(os.path.join(HERE, "expected/bf.bin"))
bff.tofile(os.path.join(HERE, "expected/bff.bin"))
h2.tofile(os.path.join(HERE, "expected/h2out.bin"))
print(hex(bf[4][0]), hex(bf[4][1]), hex(bf[0][0]), hex(bf[1][0]), h2[2])
