"""Exact IEEE-754 reference arithmetic for the sample generators (no GPU, no host FPU modes).

Values are Python floats (every binary16/bfloat16/binary32/binary64 value is exactly a
Python float); exact intermediate results are fractions.Fraction. Rounding follows IEEE 754
for the four PTX modes rn (nearest even), rz, ru (+inf), rd (-inf), with gradual underflow
(subnormals, no flushing) and mode-dependent overflow.
"""
import math
from fractions import Fraction

FORMATS = {            # precision p (incl. hidden bit), emin, emax
    "f16": (11, -14, 15),
    "bf16": (8, -126, 127),
    "f32": (24, -126, 127),
    "f64": (53, -1022, 1023),
}


def max_finite(fmt):
    p, emin, emax = FORMATS[fmt]
    return float((2 - Fraction(1, 2 ** (p - 1))) * Fraction(2) ** emax)


def round_exact(v, fmt, mode, inexact_above=False):
    """Round the exact rational v to fmt in mode. Returns a float (may be +-inf or +-0.0).
    inexact_above: the true value is strictly between v and v + (a tiny amount) in magnitude
    (used for square roots, where v is a truncated approximation with many extra bits)."""
    p, emin, emax = FORMATS[fmt]
    if v == 0 and not inexact_above:
        return 0.0
    s = -1 if v < 0 else 1
    a = abs(Fraction(v))
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    q = e - (p - 1)
    scaled = a / Fraction(2) ** q
    n = scaled.numerator // scaled.denominator
    rem = scaled - n
    sticky = rem != 0 or inexact_above
    if mode == "rn":
        half = Fraction(1, 2)
        up = rem > half or (rem == half and not inexact_above and n % 2 == 1) or (rem == half and inexact_above)
    elif mode == "rz":
        up = False
    elif mode == "ru":
        up = s > 0 and sticky
    elif mode == "rd":
        up = s < 0 and sticky
    else:
        raise ValueError(mode)
    n += 1 if up else 0
    mag = Fraction(n) * Fraction(2) ** q
    if mag >= Fraction(2) ** (emax + 1):
        big = max_finite(fmt)
        if mode == "rn" or (mode == "ru" and s > 0) or (mode == "rd" and s < 0):
            return s * math.inf
        return s * big
    r = float(mag)
    return math.copysign(r, s)


def is_special(*xs):
    return any(math.isnan(x) or math.isinf(x) for x in xs)


def _zero_sign_sum(x_zero_terms, mode):
    """Sign of an exact-zero sum: terms are (value, sign) of the addends."""
    signs = [math.copysign(1.0, t) for t in x_zero_terms]
    if all(t == 0 for t in x_zero_terms) and len(set(signs)) == 1:
        return signs[0]
    return -1.0 if mode == "rd" else 1.0


def add(x, y, fmt, mode):
    if is_special(x, y):
        return x + y
    v = Fraction(x) + Fraction(y)
    if v == 0:
        return math.copysign(0.0, _zero_sign_sum([x, y], mode))
    return round_exact(v, fmt, mode)


def sub(x, y, fmt, mode):
    return add(x, -y, fmt, mode)


def mul(x, y, fmt, mode):
    if is_special(x, y):
        if (x == 0 and math.isinf(y)) or (y == 0 and math.isinf(x)):
            return math.nan
        return x * y if not (math.isnan(x) or math.isnan(y)) else math.nan
    v = Fraction(x) * Fraction(y)
    sign = math.copysign(1.0, x) * math.copysign(1.0, y)
    if v == 0:
        return math.copysign(0.0, sign)
    r = round_exact(v, fmt, mode)
    return r if r != 0 else math.copysign(0.0, sign)


def div(x, y, fmt, mode):
    sign = math.copysign(1.0, x) * math.copysign(1.0, y)
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if math.isinf(x) and math.isinf(y):
        return math.nan
    if math.isinf(x):
        return math.copysign(math.inf, sign)
    if math.isinf(y):
        return math.copysign(0.0, sign)
    if y == 0:
        return math.nan if x == 0 else math.copysign(math.inf, sign)
    v = Fraction(x) / Fraction(y)
    if v == 0:
        return math.copysign(0.0, sign)
    r = round_exact(v, fmt, mode)
    return r if r != 0 else math.copysign(0.0, sign)


def fma(x, y, z, fmt, mode):
    if is_special(x, y, z):
        if math.isnan(x) or math.isnan(y) or math.isnan(z):
            return math.nan
        prod = mul(x, y, "f64", "rn")          # inf or nan (0*inf) or finite
        if math.isnan(prod):
            return math.nan
        if math.isinf(prod) or math.isinf(z):
            if math.isinf(prod) and math.isinf(z) and prod != z:
                return math.nan
            return prod if math.isinf(prod) else z
    pv = Fraction(x) * Fraction(y)
    v = pv + Fraction(z)
    psign = math.copysign(1.0, x) * math.copysign(1.0, y)
    if v == 0:
        pz = math.copysign(0.0, psign) if pv == 0 else 1.0
        return math.copysign(0.0, _zero_sign_sum([pz, z], mode))
    return round_exact(v, fmt, mode)


def sqrt(x, fmt, mode):
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0 or math.isinf(x):
        return x
    p = FORMATS[fmt][0]
    f = Fraction(x)
    # scale by an even power of two so the integer square root has >= p + 8 bits
    k = 0
    while True:
        scaled = f * Fraction(4) ** k
        if scaled.denominator == 1 and scaled.numerator.bit_length() >= 2 * (p + 8):
            break
        k += 1
    N = scaled.numerator
    r = math.isqrt(N)
    exact = r * r == N
    v = Fraction(r) / Fraction(2) ** k
    return round_exact(v, fmt, mode, inexact_above=not exact)


def rcp(x, fmt, mode):
    return div(1.0, x, fmt, mode)


def to_int(x, mode, bits, signed):
    """cvt.{rni,rzi,rpi,rmi}.{s,u}N.fX: round to integer in mode, clamp to the range (PTX
    float-to-int conversions saturate). NaN is not used by the samples."""
    assert not math.isnan(x)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if math.isinf(x):
        return hi if x > 0 else lo
    f = Fraction(x)
    fl = math.floor(f)
    if mode == "rz":
        n = math.trunc(f)
    elif mode == "rd":
        n = fl
    elif mode == "ru":
        n = math.ceil(f)
    else:
        d = f - fl
        n = fl + 1 if d > Fraction(1, 2) or (d == Fraction(1, 2) and fl % 2 == 1) else fl
    return max(lo, min(hi, n))


def from_int(k, fmt, mode):
    if k == 0:
        return 0.0
    return round_exact(Fraction(k), fmt, mode)
