"""Issue 31's target: sim.render(1280, 720) of 1M bodies in <= 50 ms on the GPU machine.

Prints the milliseconds per render (median of repeats after a warm-up) for each N given:
    PYTHONPATH=build/python /usr/bin/python3 docs/measurements/python-render-bench.py 1M [262144 ...]
The cost includes the upload of the state (sim.render draws what sim.positions holds), the draw, the
read-back of the frame and its copy into the numpy array.
"""

import statistics
import sys
import time

import nbody
from pathlib import Path

scene = Path(__file__).resolve().parents[2] / "scenes" / "milky-way-andromeda.toml"


def count(text):
    text = text.upper()
    scale = {"K": 1024, "M": 1024 * 1024}.get(text[-1:], 1)
    return int(float(text.rstrip("KM")) * scale)


sizes = [count(a) for a in sys.argv[1:] if not a.startswith("--")] or [1024 * 1024]
backend = "auto"
for n in sizes:
    sim = nbody.Simulation.from_scene(str(scene), bodies=n, backend=backend)
    sim.render(width=1280, height=720)  # warm-up: EGL context, shaders, buffers
    times = []
    for _ in range(10):
        t0 = time.perf_counter()
        frame = sim.render(width=1280, height=720)
        times.append(time.perf_counter() - t0)
    print(f"N = {n:>9,}  {statistics.median(times) * 1e3:7.1f} ms per 1280x720 render (median of 10, min "
          f"{min(times) * 1e3:.1f})  backend {sim.backend}, {sim.renderer}")
