"""sim.step(100) / sim.integrate(t) against `nbody run` with the same scene, steps and backend: the
same bits (issue 31's first target)."""

import numpy as np
import pytest

import nbody
from conftest import SCENES, run_cli


def read_csv(path):
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    header = lines[0].strip().split(",")
    data = np.loadtxt(lines[1:], delimiter=",", ndmin=2, usecols=[header.index(c) for c in ("x", "y", "z")])
    return data


def requires(backend):
    if backend == "cuda" and not nbody.cuda_available():
        pytest.skip(f"no usable GPU: {nbody.cuda_unavailable_reason()}")


# cuda: the default kernel config for N = 512 on this GPU (the same table and cache for both),
# every pair in fp32: bit-reproducible. Skips without a GPU.
@pytest.mark.parametrize("backend", ["reference", "cpu", "cuda"])
def test_leapfrog_positions_equal_nbody_run(tmp_path, backend):
    requires(backend)
    out = tmp_path / "o.nbsnap"
    run_cli("run", "--scene", SCENES / "plummer.toml", "--bodies", 512, "--steps", 100, "--backend", backend, "--out", out)
    sim = nbody.Simulation.from_scene(str(SCENES / "plummer.toml"), bodies=512, backend=backend)
    sim.step(100)
    cli = nbody.load(str(out), backend=backend)
    assert sim.positions.dtype == (np.float64 if backend == "reference" else np.float32)
    assert sim.positions.dtype == cli.positions.dtype
    np.testing.assert_array_equal(sim.positions, cli.positions)
    np.testing.assert_array_equal(sim.velocities, cli.velocities)
    assert sim.time == cli.time


def test_leapfrog_csv_17_digits_equal_nbody_run(tmp_path):
    out = tmp_path / "o.csv"
    run_cli("run", "--scene", SCENES / "plummer.toml", "--bodies", 512, "--steps", 100, "--backend", "reference", "--out", out)
    sim = nbody.Simulation.from_scene(str(SCENES / "plummer.toml"), bodies=512, backend="reference")
    sim.step(100)
    np.testing.assert_array_equal(sim.positions, read_csv(out))


@pytest.mark.parametrize("order,backend", [(4, "cpu"), (6, "cpu"), (4, "cuda")])
def test_hermite_positions_equal_nbody_run(tmp_path, order, backend):
    requires(backend)
    scene = SCENES / "plummer.toml"
    out = tmp_path / "h.csv"
    run_cli("run", "--integrator", f"hermite{order}", "--scene", scene, "--bodies", 128, "--t-end", 0.25,
            "--backend", backend, "--out", out)
    sim = nbody.Cluster(scene=str(scene), bodies=128, order=order, backend=backend)
    sim.integrate(0.25)
    assert sim.positions.dtype == np.float64
    np.testing.assert_array_equal(sim.positions, read_csv(out))
    assert sim.time == 0.25


def test_a_hermite_snapshot_continues_as_nbody_run_continues_it(tmp_path):
    snapshot = tmp_path / "h.nbsnap"
    cluster = nbody.Cluster(scene=str(SCENES / "plummer.toml"), bodies=96, order=4, backend="cpu")
    cluster.integrate(0.125)
    cluster.save(str(snapshot))
    out = tmp_path / "continued.csv"
    run_cli("run", "-i", snapshot, "--t-end", 0.25, "--backend", "cpu", "--out", out)
    resumed = nbody.load(str(snapshot), backend="cpu")
    assert resumed.integrator == "hermite4"  # as `nbody run -i` picks it from the snapshot
    resumed.integrate(0.25)
    np.testing.assert_array_equal(resumed.positions, read_csv(out))
    restarted = nbody.load(str(snapshot), backend="cpu", integrator="hermite6")  # another order: a fresh start
    restarted.integrate(0.25)
    assert not np.array_equal(restarted.positions, read_csv(out))
