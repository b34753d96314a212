"""Issue 31's target: sim.render(1280, 720) of 1M bodies in <= 50 ms on the GPU machine.

Two cases per N: the same state rendered again (the vertex buffers loaded whole each time) and a
render after each step (the positions uploaded alone), the loop of a notebook writing a movie.

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


def median_ms(sim, between=None):
    times = []
    for _ in range(10):
        if between:
            between()
        t0 = time.perf_counter()
        sim.render(width=1280, height=720)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3, min(times) * 1e3


for n in sizes:
    sim = nbody.Simulation.from_scene(str(scene), bodies=n, backend=backend)
    sim.render(width=1280, height=720)  # warm-up: EGL context, shaders, buffers
    # The same state drawn again (a new camera on a snapshot): the vertex buffers are loaded whole.
    again, again_min = median_ms(sim)
    # A movie's loop: a step, then a frame; only the render is timed, which uploads the positions.
    sim.gravity = "tree"
    stepped, stepped_min = median_ms(sim, between=lambda: sim.step(1))
    print(f"N = {n:>9,}  same state again {again:7.1f} ms (min {again_min:.1f}); after a step {stepped:7.1f} ms "
          f"(min {stepped_min:.1f}) per 1280x720 render (median of 10)  backend {sim.backend}, {sim.renderer}")
