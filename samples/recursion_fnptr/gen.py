#!/usr/bin/env python3
# Inputs and expected results for recurseCall (64 threads).
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ("in", "expected"):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
n = 64
rng = np.random.default_rng(12)
args = np.zeros((n, 3), np.int32)
args[:, 0] = rng.integers(0, 3, n)
args[:, 1] = rng.integers(0, 5, n)
args[:, 2] = rng.integers(0, 10, n)
args[0] = [2, 4, 2]
# a random binary tree of 31 nodes rooted at 0 (-1 = no child)
left = [-1] * 31
right = [-1] * 31
for node in range(1, 31):
    while True:
        p = int(rng.integers(0, node))
        side = int(rng.integers(0, 2))
        arr = left if side == 0 else right
        if arr[p] < 0:
            arr[p] = node
            break


def ack(m, k):
    if m == 0:
        return k + 1
    if k == 0:
        return ack(m - 1, 1)
    return ack(m - 1, ack(m, k - 1))


def depth(node):
    if node < 0:
        return 0
    return 1 + max(depth(left[node]), depth(right[node]))


def s32(x):
    return ((x + 2 ** 31) % 2 ** 32) - 2 ** 31


ops = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a ^ b, max]
out = np.zeros((n, 4), np.int32)
for i in range(n):
    m, k, op = (int(x) for x in args[i])
    op %= 5
    acc = i
    g = ops[(op + 1) % 5]
    for x in args[i]:
        acc = s32(g(acc, int(x)))
    out[i] = [ack(m, k), depth(i % 31), s32(ops[op](m * 10 + k, op + 3)), acc]
for name, v in (("args", args), ("left", np.array(left, np.int32)), ("right", np.array(right, np.int32))):
    v.tofile(os.path.join(HERE, "in", name + ".bin"))
    v.tofile(os.path.join(HERE, "expected", name + ".bin"))
out.tofile(os.path.join(HERE, "expected/out.bin"))
print("tree depth", depth(0), "ack(2,4)", ack(2, 4))
