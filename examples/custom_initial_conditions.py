"""A system built in numpy: a cold, rotating disk of stars round a heavy central body, run with
leapfrog, its angular momentum checked, and saved as a snapshot and a CSV."""

import numpy as np

import nbody
from _common import arguments

args = arguments(__doc__)
n = 1000 if args.small else 20000
steps = 50 if args.small else 2000

rng = np.random.default_rng(7)
central_mass, disk_mass = 1.0, 0.05
r = np.sqrt(rng.uniform(0.2 ** 2, 1.0, n))          # uniform surface density between r = 0.2 and 1
phi = rng.uniform(0, 2 * np.pi, n)
x = np.column_stack([r * np.cos(phi), r * np.sin(phi), 0.01 * rng.normal(size=n)])
speed = np.sqrt((central_mass + disk_mass * (r ** 2 - 0.04) / 0.96) / r)   # circular, with the disk inside
v = np.column_stack([-speed * np.sin(phi), speed * np.cos(phi), np.zeros(n)])
m = np.full(n, disk_mass / n)
x = np.vstack([[0.0, 0.0, 0.0], x])                   # the central body first
v = np.vstack([[0.0, 0.0, 0.0], v])
m = np.concatenate([[central_mass], m])

sim = nbody.Simulation(x, v, m, softening=0.01, dt=1e-3, backend=args.backend)


def angular_momentum(sim):
    return (np.cross(sim.positions.astype(float), sim.velocities.astype(float)) * sim.masses[:, None]).sum(axis=0)


l0, e0 = angular_momentum(sim), sim.energy()
sim.step(steps)
l1, e1 = angular_momentum(sim), sim.energy()
print(f"N = {len(sim)}, {steps} steps to t = {sim.time:.3g} on {sim.backend}: relative energy error "
      f"{(e1 - e0) / abs(e0):.2e}, L_z {l0[2]:.6f} -> {l1[2]:.6f}")
sim.save(str(args.out / "disk.nbsnap"))
sim.save(str(args.out / "disk.csv"))
print(f"wrote {args.out / 'disk.nbsnap'} and {args.out / 'disk.csv'} (nbody view --scene disk.nbsnap shows it)")
