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
    """Median and best of 7 reads (the best is what the memory allows when the machine lets it)."""
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        a = read()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times), a


median, best, a = timed(lambda: sim.positions)
print(f"N = {n:,}, {backend} backend, {a.dtype}: {a.nbytes / 1e6:.0f} MB; median and best of 7")
for name, read in (("sim.positions (state on the host)", lambda: sim.positions),
                   ("sim.velocities", lambda: sim.velocities),
                   ("numpy copy of the same bytes (for scale)", lambda: np.array(x, copy=True))):
    median, best, _ = timed(read)
    print(f"  {name:42s} {median * 1e3:7.1f} ms {a.nbytes / median / 1e9:5.2f} GB/s median, "
          f"{best * 1e3:7.1f} ms {a.nbytes / best / 1e9:5.2f} GB/s best")
