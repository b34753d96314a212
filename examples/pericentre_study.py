"""A parameter study with the encounter editor's settings: the same two disks sent past each other
at several pericentres, and how much of their disks each passage throws beyond three times the
disk's starting extent (tidal tails form on close prograde passages)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import nbody
from _common import SCENES, arguments

DISK = 1  # component label of disk bodies

args = arguments(__doc__)
pericentres = [5.0, 15.0] if args.small else [4.0, 7.0, 10.0, 15.0, 25.0, 40.0]
bodies, duration = (1500, 4.0) if args.small else (32768, 60.0)


def disk_fraction_outside(sim, factor=3.0):
    """Fraction of disk bodies farther than `factor` times their galaxy's initial disk radius (90%)
    from that galaxy's centre of mass."""
    x, m, galaxy, component = sim.positions, sim.masses, sim.galaxy, sim.component
    outside = 0
    disks = 0
    for g in np.unique(galaxy):
        mine = galaxy == g
        centre = np.average(x[mine], axis=0, weights=m[mine])
        disk = mine & (component == DISK)
        r = np.linalg.norm(x[disk] - centre, axis=1)
        outside += (r > factor * disk_radius[g]).sum()
        disks += disk.sum()
    return outside / max(disks, 1)


fractions = []
for pericentre in pericentres:
    sim = nbody.Simulation.encounter(str(SCENES / "antennae.toml"), pericentre=pericentre, bodies=bodies,
                                     backend=args.backend)
    x, galaxy, component = sim.positions, sim.galaxy, sim.component
    disk_radius = {}
    for g in np.unique(galaxy):
        mine = galaxy == g
        centre = x[mine].mean(axis=0)
        disk_radius[g] = np.percentile(np.linalg.norm(x[mine & (component == DISK)] - centre, axis=1), 90)
    sim.integrate(sim.time + duration)
    fractions.append(disk_fraction_outside(sim))
    print(f"pericentre {pericentre:5.1f} kpc: {100 * fractions[-1]:5.1f} % of the disks beyond 3 disk radii "
          f"at t = {sim.time:.3g}")

figure, axes = plt.subplots(figsize=(6, 3.5))
axes.plot(pericentres, 100 * np.array(fractions), marker="o")
axes.set_xlabel("pericentre (kpc)")
axes.set_ylabel("disk bodies thrown out (%)")
axes.set_title(f"Antennae-like encounter, N = {bodies}, {duration:g} time units after the start")
figure.tight_layout()
figure.savefig(args.out / "pericentre_study.png", dpi=100)
print(f"wrote {args.out / 'pericentre_study.png'}")
