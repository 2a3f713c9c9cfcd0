# Expected outputs from the kernel's definition (no PTX run): the barriers make every round the
# same whatever the schedule, so the rounds are simulated in order.
import os, struct
here = os.path.dirname(os.path.abspath(__file__))
TB = 64
v = [[t * 4 + i for i in range(4)] + [0] for t in range(TB)]
fin = [max(0, t * 4 - 1) for t in range(TB)]
ex = [0] * (TB + 1)
ex[TB] = 7
for i in range(4 * TB, 0, -1):
    for t in range(TB):
        ex[t] = v[t][0]
    for t in range(TB):
        v[t][4] = ex[t + 1]
    for t in range(TB):
        if i > fin[t]:
            for j in range(4):
                v[t][j] = (v[t][j + 1] + 3 * v[t][j]) & 0xffff
os.makedirs(os.path.join(here, 'expected'), exist_ok=True)
with open(os.path.join(here, 'expected', 'out.bin'), 'wb') as f:
    f.write(struct.pack('<%di' % TB, *[v[t][0] for t in range(TB)]))
