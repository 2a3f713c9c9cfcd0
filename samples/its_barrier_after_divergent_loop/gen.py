# Inputs and expected outputs from the kernel's definition (no PTX run).
import os, struct
here = os.path.dirname(os.path.abspath(__file__))
n, active, reps, block = 256, 3, 40, 64
data = [float((i % 7) - 3) for i in range(n)]
out = []
for tid in range(block):
    count = 0
    if tid < active:
        for base in range(0, n, block):
            m = min(n - base, block)
            count += reps * sum(1 for k in range(m) if data[base + k] < float(tid))
    out.append(count)
os.makedirs(os.path.join(here, 'in'), exist_ok=True)
os.makedirs(os.path.join(here, 'expected'), exist_ok=True)
with open(os.path.join(here, 'in', 'data.bin'), 'wb') as f:
    f.write(struct.pack('<%df' % n, *data))
with open(os.path.join(here, 'expected', 'data.bin'), 'wb') as f:
    f.write(struct.pack('<%df' % n, *data))
with open(os.path.join(here, 'expected', 'out.bin'), 'wb') as f:
    f.write(struct.pack('<%di' % block, *out))
