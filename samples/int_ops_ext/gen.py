#!/usr/bin/env python3
# Inputs and expected results for intOpsExt, from the PTX ISA definitions of each instruction
# (exact Python integer arithmetic). 2 blocks x 64 threads, n = 100.
import os
import struct
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
M16, M32, M64 = (1 << 16) - 1, (1 << 32) - 1, (1 << 64) - 1
n = 100
rng = np.random.default_rng(2024)
A = [int(x) for x in rng.integers(0, 1 << 32, n, dtype=np.uint64)]
B = [int(x) for x in rng.integers(0, 1 << 32, n, dtype=np.uint64)]
C = [int(x) for x in rng.integers(0, 1 << 63, n, dtype=np.uint64) * 2 + rng.integers(0, 2, n, dtype=np.uint64)]
D = [int(x) for x in rng.integers(1, 1 << 63, n, dtype=np.uint64) * 2 + rng.integers(0, 2, n, dtype=np.uint64)]
# special rows
A[0:10] = [0x7f800000, 0xff800000, 0x7fc00000, 0x00000001, 0x807fffff, 0x3f800000, 0xffffffff, 0x80000003, 1, 0x00012345]
B[0:6] = [0xffffffff, 0, 0x80000000, 0x0000ffff, 0x7fffffff, 0x00ff00ff]
C[0:5] = [0, 1 << 63, M64, 12345, (1 << 63) + 7]
D[0:5] = [3, 7, 2, M64, (1 << 62) + 5]          # D = M64 is -1 as s64; C[3] = 12345 fits
for k in range(n):                             # small divisors now and then
    if k % 7 == 3:
        D[k] = (k * 2654435761) % 1000 + 1
        if k % 2:
            D[k] = (-D[k]) & M64
    if D[k] == 0:
        D[k] = 1
    if C[k] == 1 << 63 and D[k] == M64:
        D[k] = 5

s32 = lambda x: ((x & M32) ^ (1 << 31)) - (1 << 31)
s64 = lambda x: ((x & M64) ^ (1 << 63)) - (1 << 63)
s16 = lambda x: ((x & M16) ^ (1 << 15)) - (1 << 15)
s24 = lambda x: ((x & 0xffffff) ^ (1 << 23)) - (1 << 23)


def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def bfind(x, signed, shiftamt=False):
    if signed and s32(x) < 0:
        x = ~x & M32
    if x == 0:
        return M32
    pos = x.bit_length() - 1
    return 31 - pos if shiftamt else pos


def prmt(a, b, c, mode):
    src = [(a >> (8 * k)) & 0xff for k in range(4)] + [(b >> (8 * k)) & 0xff for k in range(4)]
    if mode is None:
        out = []
        for k in range(4):
            sel = (c >> (4 * k)) & 0xf
            byte = src[sel & 7]
            if sel & 8:
                byte = 0xff if byte & 0x80 else 0
            out.append(byte)
    else:
        s = c & 3
        table = {
            "f4e": [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
            "b4e": [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
            "rc8": [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
            "ecl": [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
            "ecr": [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
            "rc16": [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]],
        }[mode][s]                      # byte indices for d.b0, d.b1, d.b2, d.b3
        out = [src[j] for j in table]
    return sum(v << (8 * k) for k, v in enumerate(out))


def bfe(a, pos, ln, bits, signed):
    msb = bits - 1
    pos &= 0xff
    ln &= 0xff
    sbit = 0 if (not signed or ln == 0) else (a >> min(pos + ln - 1, msb)) & 1
    d = 0
    for i in range(bits):
        bit = (a >> (pos + i)) & 1 if (i < ln and pos + i <= msb) else sbit
        d |= bit << i
    return d


def bfi(a, b, pos, ln, bits):
    pos &= 0xff
    ln &= 0xff
    f = b
    i = 0
    while i < ln and pos + i <= bits - 1:
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
        i += 1
    return f


def f32bits_class(x):
    e = (x >> 23) & 0xff
    m = x & 0x7fffff
    isnan = e == 0xff and m != 0
    isinf = e == 0xff and m == 0
    normal = 0 < e < 0xff
    sub = e == 0 and m != 0
    assert not (e == 0 and m == 0), "zero inputs avoided for testp"
    return (int(not isnan and not isinf) | int(isinf) << 1 | int(not isnan) << 2 |
            int(isnan) << 3 | int(normal) << 4 | int(sub) << 5)


def brev64(x):
    return int(format(x, "064b")[::-1], 2)


def ffs64(x):
    return 0 if x == 0 else (x & -x).bit_length()


o32 = np.zeros((n, 24), np.uint32)
o64 = np.zeros((n, 20), np.uint64)
for i in range(n):
    ux, uy, uw, ud = A[i], B[i], C[i], D[i]
    x, y, w, dd = s32(ux), s32(uy), s64(uw), s64(ud)
    o = [0] * 24
    o[0] = (s24(x) * s24(y)) & M32
    o[1] = ((ux & 0xffffff) * (uy & 0xffffff)) & M32
    o[2] = ((x * y) >> 32) & M32
    o[3] = (ux * uy) >> 32
    o[4] = ((y - x if x < y else x - y) + 7) & M32
    o[5] = ((uy - ux if ux < uy else ux - uy) + (ux >> 28)) & M32
    o[6] = bfind(ux, False)
    o[7] = bfind(ux, True)
    o[8] = bfind(uy, False, True)
    for m, mode in enumerate(["f4e", "b4e", "rc8", "ecl", "ecr", "rc16", None]):
        c = (uy >> (m * 2)) if m < 6 else (uy ^ ux)
        o[9 + m] = prmt(ux, uy, c, mode)
    o[16] = ((((uy << 32) | ux) >> ((uy >> 3) & 31)) & M32)
    sh = min((ux >> 26) & 63, 32)
    o[17] = ((((uy << 32) | ux) << sh) >> 32) & M32
    o[18] = (sum(abs(((ux >> (8 * k)) & 0xff) - ((uy >> (8 * k)) & 0xff)) for k in range(4)) + (ux >> 20)) & M32
    o[19] = (min(s16(ux), s16(uy)) & M16) | ((max(s16(ux), s16(uy)) & M16) << 16)
    o[20] = (abs(s16(ux >> 16)) & M16) | (bin(uw).count("1") << 16) | ((64 - uw.bit_length()) << 24)
    o[21] = f32bits_class(ux)
    o[22] = (ux & 0x7fffffff) | (uy & 0x80000000)
    o[23] = sum(abs(((ux >> (8 * k)) & 0xff) - ((uy >> (8 * k)) & 0xff)) << (8 * k) for k in range(4))
    o32[i] = o

    q = [0] * 20
    q[0] = (x * y + w) & M64
    q[1] = (ux * uy + uw) & M64
    qq = tdiv(w, dd)
    q[2] = qq & M64
    q[3] = (w - qq * dd) & M64
    q[4] = uw // ud
    q[5] = uw % ud
    q[6] = bfe(uw, uy & 0x7f, (uy >> 8) & 0x7f, 64, False)
    q[7] = bfe(uw, ux & 0x3f, (ux >> 8) & 0x3f, 64, True)
    q[8] = bfi(ud, uw, uy & 0x3f, (uy >> 8) & 0x7f, 64)
    M128 = (1 << 128) - 1
    Aw = ud | (uw << 64)
    Bw = uw | (ud << 64)
    s = (Aw + Bw) & M128
    q[9], q[10] = s & M64, s >> 64
    s = (Aw - Bw) & M128
    q[11], q[12] = s & M64, s >> 64
    p = uw * ud
    q[13], q[14] = p & M64, p >> 64
    q[15] = abs(w) & M64
    q[16] = min(w, dd) & M64
    q[17] = max(uw, ud)
    q[18] = brev64(uw) ^ ffs64(uw)
    q[19] = (((uw * ud) >> 64) + ((w * dd) >> 64)) & M64
    o64[i] = q

for name, arr, t in [("a", A, np.uint32), ("b", B, np.uint32), ("c", C, np.uint64), ("d", D, np.uint64)]:
    a = np.array(arr, dtype=t)
    a.tofile(os.path.join(HERE, "in", name + ".bin"))
    a.tofile(os.path.join(HERE, "expected", name + ".bin"))
o32.tofile(os.path.join(HERE, "expected/o32.bin"))
o64.tofile(os.path.join(HERE, "expected/o64.bin"))
