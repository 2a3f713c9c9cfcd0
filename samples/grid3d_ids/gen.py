#!/usr/bin/env python3
# Expected ids for gridIds3d: grid (3,2,2), block (4,3,5) = 60 threads (warps of 32 and 28 lanes).
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(HERE, "expected"), exist_ok=True)
G = (3, 2, 2)
B = (4, 3, 5)
nt = B[0] * B[1] * B[2]
nblocks = G[0] * G[1] * G[2]
ids = np.zeros((nblocks * nt, 4), np.uint32)
lanes = np.zeros(nblocks * nt, np.uint32)
for bz in range(G[2]):
    for by in range(G[1]):
        for bx in range(G[0]):
            block = bx + by * G[0] + bz * G[0] * G[1]
            for tz in range(B[2]):
                for ty in range(B[1]):
                    for tx in range(B[0]):
                        t = tx + ty * B[0] + tz * B[0] * B[1]
                        g = block * nt + t
                        ids[g] = [tx | ty << 8 | tz << 16, B[0] | B[1] << 8 | B[2] << 16,
                                  bx | by << 8 | bz << 16, G[0] | G[1] << 8 | G[2] << 16]
                        warp = t >> 5
                        active = min(32, nt - warp * 32)     # lanes that exist in this warp
                        lanes[g] = (t & 31) | active << 8 | warp << 16 | 1 << 24
ids.tofile(os.path.join(HERE, "expected/ids.bin"))
lanes.tofile(os.path.join(HERE, "expected/lanes.bin"))
# hw (%warpid, %smid) is hardware-dependent and has no expected file.
