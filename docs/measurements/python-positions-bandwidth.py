"""Issue 31's target: sim.positions of 16M bodies at >= 2 GB/s.

Times the getter on a state already on the host (the case after a step on the cpu backend has
copied it back once) and, separately, the first read after a step, which also copies the backend's
state to the host. GB/s counts the bytes of the array returned (N x 3 x 4 for float32).
    PYTHONPATH=build/python /usr/bin/python3 docs/measurements/python-positions-bandwidth.py [N] [backend]
"""

import statistics
import sys
import time

import numpy as np

import nbody

n = int(float(sys.argv[1].upper().replace("M", "e6"))) if len(sys.argv) > 1 else 16 * 1024 * 1024  # 16M = 16e6
backend = sys.argv[2] if len(sys.argv) > 2 else "cpu"
rng = np.random.default_rng(1)
x = rng.normal(size=(n, 3)).astype(np.float32)
sim = nbody.Simulation(x, np.zeros((n, 3), np.float32), np.full(n, 1.0 / n, np.float32), backend=backend)


def timed(read):
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        a = read()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), a


seconds, a = timed(lambda: sim.positions)
print(f"N = {n:,}, {backend} backend, {a.dtype}: {a.nbytes / 1e6:.0f} MB")
print(f"  sim.positions (state on the host): {seconds * 1e3:8.1f} ms  {a.nbytes / seconds / 1e9:6.2f} GB/s")
seconds, _ = timed(lambda: sim.velocities)
print(f"  sim.velocities:                    {seconds * 1e3:8.1f} ms  {a.nbytes / seconds / 1e9:6.2f} GB/s")
seconds, _ = timed(lambda: np.array(x, copy=True))
print(f"  numpy copy of the same bytes:      {seconds * 1e3:8.1f} ms  {a.nbytes / seconds / 1e9:6.2f} GB/s (for scale)")
