"""An equal-mass Plummer star cluster on the Hermite integrator (block steps, no softening) until its
core collapses: the radius holding the innermost 1 % of the mass shrinks while the outer
Lagrangian radii grow. Collapse comes after about 15 half-mass relaxation times: t = 60 to 70 for
N = 64 in N-body units, longer for larger N."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import nbody
from _common import arguments

args = arguments(__doc__)
n, t_end, outputs = (32, 2.0, 4) if args.small else (128, 300.0, 150)


def plummer(n, seed=3):
    """Aarseth, Henon & Wielen (1974): a Plummer sphere in N-body units (G = M = 1, E = -1/4)."""
    rng = np.random.default_rng(seed)
    r = 1.0 / np.sqrt(rng.uniform(0, 1, n) ** (-2.0 / 3.0) - 1.0)
    direction = rng.normal(size=(n, 3))
    x = r[:, None] * direction / np.linalg.norm(direction, axis=1)[:, None]
    q = np.empty(n)
    for i in range(n):  # von Neumann rejection for q = v / v_escape
        while True:
            q_try, y = rng.uniform(0, 1), rng.uniform(0, 0.1)
            if y < q_try ** 2 * (1 - q_try ** 2) ** 3.5:
                q[i] = q_try
                break
    speed = q * np.sqrt(2.0) * (1 + r ** 2) ** -0.25
    direction = rng.normal(size=(n, 3))
    v = speed[:, None] * direction / np.linalg.norm(direction, axis=1)[:, None]
    scale = 3 * np.pi / 16  # from Plummer's scale length to N-body units
    x, v = x * scale, v / np.sqrt(scale)
    return x - x.mean(axis=0), v - v.mean(axis=0), np.full(n, 1.0 / n)


def lagrangian_radii(sim, fractions=(0.01, 0.1, 0.5, 0.9)):
    x, m = sim.positions, sim.masses
    centre = np.average(x, axis=0, weights=m)
    r = np.linalg.norm(x - centre, axis=1)
    order = np.argsort(r)
    enclosed = np.cumsum(m[order]) / m.sum()
    return [r[order][np.searchsorted(enclosed, f)] for f in fractions]


x, v, m = plummer(n)
cluster = nbody.Cluster(x, v, m, order=4, eta=0.01, backend=args.backend)
e0 = cluster.energy()
times, radii = [0.0], [lagrangian_radii(cluster)]
for t in np.linspace(0, t_end, outputs + 1)[1:]:
    cluster.integrate(t)
    times.append(cluster.time)
    radii.append(lagrangian_radii(cluster))
radii = np.array(radii)
print(f"N = {n}, hermite4 on {cluster.backend}, t = {cluster.time:g}: |dE/E| = {abs((cluster.energy() - e0) / e0):.2e}; "
      f"1 % radius {radii[0, 0]:.3f} -> {radii[:, 0].min():.3f} (smallest, at t = {times[int(radii[:, 0].argmin())]:.3g}), "
      f"90 % radius {radii[0, 3]:.3f} -> {radii[-1, 3]:.3f}")

figure, axes = plt.subplots(figsize=(6, 3.5))
for k, label in enumerate(["1 %", "10 %", "50 %", "90 %"]):
    axes.semilogy(times, radii[:, k], label=label)
axes.set_xlabel("time (N-body units)")
axes.set_ylabel("Lagrangian radius")
axes.legend(title="mass inside")
axes.set_title(f"Plummer cluster, N = {n}, hermite4, no softening")
figure.tight_layout()
figure.savefig(args.out / "cluster_core_collapse.png", dpi=100)
print(f"wrote {args.out / 'cluster_core_collapse.png'}")
