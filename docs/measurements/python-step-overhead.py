"""Issue 31's target: the overhead of sim.step(1) over the step itself, N = 1,024, cpu backend.

The step itself is timed through the same module with sim.step(K) for a large K (one call, so the
per-call cost is spread over K steps); the overhead is then (time of K calls of step(1)) / K minus
that. Both are the minimum and the median of several repeats, interleaved so that machine load
hits both alike (on a loaded machine the minimum is the better estimate). step(0) times the
module's own path alone: argument checks, the GIL released and taken back, the signal check.
    PYTHONPATH=build/python /usr/bin/python3 docs/measurements/python-step-overhead.py [N] [repeats]
"""

import statistics
import sys
import time

import numpy as np

import nbody

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 7
rng = np.random.default_rng(1)
sim = nbody.Simulation(rng.normal(size=(n, 3)), 0.1 * rng.normal(size=(n, 3)), np.full(n, 1.0 / n),
                       softening=0.05, dt=1e-4, backend="cpu")
calls = 200
sim.step(20)  # warm-up: threads started, caches filled
per_step_batched, per_step_single = [], []
for _ in range(repeats):
    t0 = time.perf_counter()
    sim.step(calls)
    per_step_batched.append((time.perf_counter() - t0) / calls)
    t0 = time.perf_counter()
    for _ in range(calls):
        sim.step(1)
    per_step_single.append((time.perf_counter() - t0) / calls)
empty = []
for _ in range(repeats):
    t0 = time.perf_counter()
    for _ in range(10000):
        sim.step(0)
    empty.append((time.perf_counter() - t0) / 10000)
print(f"N = {n}, cpu backend, {repeats} repeats of {calls} steps: min / median")
for name, f in (("min", min), ("median", statistics.median)):
    batched, single = f(per_step_batched), f(per_step_single)
    print(f"  {name:6s} step(K) per step {batched * 1e6:8.1f} us, step(1) per call {single * 1e6:8.1f} us, "
          f"overhead of step(1) {(single - batched) * 1e6:+7.1f} us (target <= 20 us)")
print(f"  step(0), the module's own path without a step: {min(empty) * 1e6:.2f} us min, "
      f"{statistics.median(empty) * 1e6:.2f} us median")
