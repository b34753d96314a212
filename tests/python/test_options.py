"""Gravity, kernel, precision and pair mode as properties: accepted ones applied, refused ones with
the CLI's own message (the same text `nbody run` prints for the flag), the running choice kept."""

import subprocess

import numpy as np
import pytest

import nbody
from conftest import SCENES, nbody_executable


@pytest.fixture
def sim():
    return nbody.Simulation.from_scene(str(SCENES / "plummer.toml"), bodies=256, backend="cpu")


def cli_error(*flags):
    """What `nbody run` says for these flags (exit status non-zero)."""
    result = subprocess.run([nbody_executable(), "run", "--scene", str(SCENES / "plummer.toml"), "--bodies", "64",
                             "--steps", "1", "--backend", "cpu", *flags], capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    return result.stderr


REFUSED = [
    ("gravity", lambda s: setattr(s, "gravity", "fmm"), ["--gravity", "fmm"]),
    ("theta range", lambda s: (setattr(s, "gravity", "tree"), setattr(s, "theta", 5.0)), ["--gravity", "tree", "--theta", "5"]),
    ("theta direct", lambda s: setattr(s, "theta", 0.3), ["--theta", "0.3"]),
    ("alpha range", lambda s: (setattr(s, "gravity", "tree"), setattr(s, "alpha", 2.0)), ["--gravity", "tree", "--alpha", "2"]),
    ("leaf size", lambda s: (setattr(s, "gravity", "tree"), setattr(s, "leaf_size", 0)), ["--gravity", "tree", "--leaf-size", "0"]),
    ("precision", lambda s: setattr(s, "precision", "fp16"), ["--precision", "fp16"]),
    ("pairs", lambda s: setattr(s, "pairs", "half"), ["--pairs", "half"]),
    ("kernel dict", lambda s: setattr(s, "kernel", {"pairs": "half"}), ["--pairs", "half"]),
]


@pytest.mark.parametrize("name,change,flags", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_with_the_cli_message(sim, name, change, flags):
    with pytest.raises(ValueError) as refused:
        change(sim)
    message = str(refused.value)
    assert message and message in cli_error(*flags)
    before = sim.positions
    sim.step(1)  # the simulation goes on with the running choice
    assert not np.array_equal(before, sim.positions)


def test_tree_then_direct(sim):
    sim.gravity = "tree"
    sim.theta = 0.4
    assert (sim.gravity, sim.theta) == ("tree", 0.4)
    assert "tree theta=0.4 alpha=0.0007" in sim.kernel_config  # the relative criterion's default
    sim.alpha = 0
    assert sim.alpha == 0 and "tree theta=0.4 leaf" in sim.kernel_config  # the angle alone
    sim.step(2)
    sim.gravity = "direct"
    assert sim.theta is None and sim.alpha is None and "direct" in sim.kernel_config


def test_kernel_dict_round_trip_and_unknown_key(sim):
    sim.kernel = {"unroll": 4, "block": 256}
    assert sim.kernel["unroll"] == 4 and sim.kernel["block"] == 256
    with pytest.raises(ValueError, match="kernel option 'unrol' is not one of unroll, block"):
        sim.kernel = {"unrol": 8}


def test_bad_backend_scene_and_file(tmp_path):
    with pytest.raises(ValueError, match="reference"):
        nbody.Simulation.from_scene(str(SCENES / "plummer.toml"), bodies=64, backend="gpu")
    with pytest.raises(ValueError, match="bodies must be >= 1"):
        nbody.Simulation.from_scene(str(SCENES / "plummer.toml"), bodies=0)
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,-1\n")
    with pytest.raises((ValueError, RuntimeError), match="bad.csv"):
        nbody.load(str(bad), backend="cpu")
    with pytest.raises(RuntimeError, match="missing.toml"):
        nbody.Simulation.from_scene(str(tmp_path / "missing.toml"))


def test_bad_step_and_time_arguments(sim):
    with pytest.raises(ValueError, match="step count must be >= 0"):
        sim.step(-1)
    with pytest.raises(ValueError, match="dt must be > 0"):
        sim.dt = 0.0
    with pytest.raises(ValueError, match="softening must be >= 0"):
        sim.softening = -1.0
    sim.step(2)
    with pytest.raises(ValueError, match="is before the current time"):
        sim.integrate(0.0)


def test_integrate_takes_whole_steps_of_dt(sim):
    steps = 7
    sim.integrate(steps * sim.dt)
    assert sim.steps == steps


def test_hermite_refuses_leapfrog_calls():
    cluster = nbody.Cluster(scene=str(SCENES / "plummer.toml"), bodies=64, backend="cpu")
    assert cluster.integrator == "hermite4"
    with pytest.raises(ValueError, match="hermite4 runs to a model time"):
        cluster.step(1)
    with pytest.raises(ValueError, match="leapfrog takes dt"):
        nbody.Simulation.from_scene(str(SCENES / "plummer.toml"), bodies=64, eta=0.01)
    with pytest.raises(ValueError, match="order 5"):
        nbody.Cluster(scene=str(SCENES / "plummer.toml"), order=5)


def test_non_finite_state_is_reported_and_the_last_finite_one_kept():
    x = np.zeros((2, 3))  # two bodies at one point, no softening: 0 / 0
    sim = nbody.Simulation(x, np.zeros((2, 3)), np.ones(2), softening=0.0, dt=1e-3, backend="reference")
    with pytest.raises(RuntimeError, match="became non-finite: body"):
        sim.step(10)
    assert np.isfinite(sim.positions).all()
