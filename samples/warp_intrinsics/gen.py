#!/usr/bin/env python3
# Inputs and expected results for warpIntrinsics (3 blocks x 64 threads = 6 full warps).
# Shuffles follow the PTX shfl.sync definition (segment mask c[12:8], clamp c[4:0]) with the
# c operand that cuda's __shfl*_sync builds from the width: up: (32-w)<<8, others ((32-w)<<8)|31.
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
M32, M64 = (1 << 32) - 1, (1 << 64) - 1
rng = np.random.default_rng(99)
N = 192
vin = rng.integers(-1000, 1001, N).astype(np.int32)
vin[0:32] = rng.integers(1, 1001, 32)          # warp 0: all positive
vin[64:96] = rng.integers(-500, 500, 32) * 2    # warp 2: all even (match_all on v&1 holds)
vin[100] = 950                                  # warp 3 has a value > 900
vin.tofile(os.path.join(HERE, "in/in.bin"))
v = [int(x) for x in vin]


def shfl(vals, lane, mode, b, width):
    segmask = (32 - width) & 31
    cval = 0 if mode == "up" else 31
    minLane = lane & segmask
    maxLane = (lane & segmask) | (cval & ~segmask & 31)
    if mode == "up":
        j = lane - b
        ok = j >= maxLane
    elif mode == "down":
        j = lane + b
        ok = j <= maxLane
    elif mode == "bfly":
        j = lane ^ b
        ok = j <= maxLane
    else:
        j = minLane | (b & ~segmask & 31)
        ok = j <= maxLane
    return vals[j if ok else lane]


s32 = lambda x: ((x + (1 << 31)) & M32) - (1 << 31)
shf = np.zeros((N, 8), np.int32)
shf64 = np.zeros((N, 2), np.int64)
votes = np.zeros((N, 6), np.uint32)
red = np.zeros((N, 8), np.int32)
masks = np.zeros((N, 5), np.uint32)
part = np.zeros((N, 5), np.int32)
for w0 in range(0, N, 32):
    wv = v[w0:w0 + 32]
    wide = [s32(x) * 0x100000001 for x in wv]                 # (long long)v * 0x100000001
    wide = [((x + (1 << 63)) & M64) - (1 << 63) for x in wide]
    dbl = [np.float64(x) * 0.5 for x in wv]
    ballot = sum(1 << l for l in range(32) if wv[l] & 1)
    all1 = all(x > -1000 for x in wv)
    any1 = any(x > 900 for x in wv)
    all2 = all(x > 0 for x in wv)
    same_parity = len(set(x & 1 for x in wv)) == 1
    uv = [x & M32 for x in wv]
    rand, ror, rxor = M32, 0, 0
    for x in uv:
        rand &= x
        ror |= x
        rxor ^= x
    sub = list(range(20))
    for l in range(32):
        g = w0 + l
        shf[g] = [shfl(wv, l, "idx", (l * 3 + 1) & 31, 32), shfl(wv, l, "idx", l + 5, 8),
                  shfl(wv, l, "up", 3, 32), shfl(wv, l, "up", 2, 8),
                  shfl(wv, l, "down", 5, 32), shfl(wv, l, "down", 3, 16),
                  shfl(wv, l, "bfly", 9, 32), shfl(wv, l, "bfly", 3, 4)]
        shf64[g, 0] = shfl(wide, l, "down", 1, 32)
        shf64[g, 1] = dbl[l ^ 16].view(np.int64)
        lt = (1 << l) - 1
        le = (1 << (l + 1)) - 1
        masks[g] = [1 << l, le, lt, ~lt & M32, ~le & M32]
        votes[g] = [ballot, int(all1) | int(any1) << 1 | int(all2) << 2,
                    sum(1 << k for k in range(32) if (wv[k] & 3) == (wv[l] & 3)),
                    M32, M32 if same_parity else 0, 1 | int(same_parity) << 1]
        red[g] = [s32(sum(wv)), min(wv), max(wv), s32(min(uv)), s32(max(uv)), s32(rand), s32(ror), s32(rxor)]
        if l < 20:
            part[g] = [(1 << 20) - 1, s32(sum(wv[k] for k in sub)),
                       s32(sum(1 << k for k in sub if wv[k] > 0)),
                       s32(sum(1 << k for k in sub if (wv[k] & 1) == (wv[l] & 1))),
                       wv[19 - l]]
        else:
            part[g] = [-1] * 5

out = {"in": vin, "shf": shf, "shf64": shf64, "votes": votes, "red": red, "masks": masks, "part": part}
for k, a in out.items():
    a.tofile(os.path.join(HERE, "expected", k + ".bin"))
