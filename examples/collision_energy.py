"""A galaxy collision (the Antennae scene) with its relative energy error plotted against time."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import nbody
from _common import SCENES, arguments

args = arguments(__doc__)
bodies, chunks, steps_per_chunk = (2048, 10, 5) if args.small else (65536, 100, 20)

sim = nbody.Simulation.from_scene(str(SCENES / "antennae.toml"), bodies=bodies, backend=args.backend)
e0 = sim.energy()
times, errors = [sim.time], [0.0]
for _ in range(chunks):
    sim.step(steps_per_chunk)
    times.append(sim.time)
    errors.append((sim.energy() - e0) / abs(e0))

figure, axes = plt.subplots(figsize=(6, 3.5))
axes.plot(times, errors, marker=".")
axes.set_xlabel("time (N-body units of the scene: 9.78 Myr)")
axes.set_ylabel("relative energy error")
axes.set_title(f"Antennae, N = {len(sim)}, {sim.backend} backend, dt = {sim.dt:g}")
figure.tight_layout()
figure.savefig(args.out / "collision_energy.png", dpi=100)
print(f"N = {len(sim)}, t = {sim.time:.4g}, final |dE/E| = {abs(errors[-1]):.3e}; wrote {args.out / 'collision_energy.png'}")
