"""numpy in and out: round trips, dtypes, and every bad input named by array and row."""

import math

import numpy as np
import pytest

import nbody


def plummer_like(n, dtype=np.float64, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)).astype(dtype)
    v = (0.3 * rng.normal(size=(n, 3))).astype(dtype)
    m = np.full(n, 1.0 / n, dtype=dtype)
    return x, v, m


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.longdouble])
def test_any_float_dtype_is_taken(dtype):
    x, v, m = plummer_like(64, dtype)
    sim = nbody.Simulation(x, v, m, softening=0.05, dt=1e-3, backend="cpu")
    assert len(sim) == 64
    np.testing.assert_array_equal(sim.positions, x.astype(np.float32))


def test_double_round_trip_on_the_reference_backend():
    x, v, m = plummer_like(100)
    sim = nbody.Simulation(x, v, m, backend="reference")
    assert sim.positions.dtype == np.float64
    np.testing.assert_array_equal(sim.positions, x)
    np.testing.assert_array_equal(sim.velocities, v)
    np.testing.assert_array_equal(sim.masses, m)


def test_writing_positions_sets_the_state():
    x, v, m = plummer_like(100)
    sim = nbody.Simulation(x, v, m, backend="reference")
    sim.step(3)
    moved = sim.positions
    moved[0] = (10.0, 20.0, 30.0)
    sim.positions = moved
    np.testing.assert_array_equal(sim.positions[0], [10.0, 20.0, 30.0])
    sim.velocities = np.zeros((100, 3))
    assert not sim.velocities.any()
    sim.masses = np.full(100, 2.0)
    np.testing.assert_array_equal(sim.masses, 2.0)


def test_float32_backend_gives_float32():
    x, v, m = plummer_like(50)
    sim = nbody.Simulation(x, v, m, backend="cpu")
    assert sim.positions.dtype == np.float32
    assert sim.positions.shape == (50, 3)
    assert sim.masses.shape == (50,)


def test_momentum_and_energy_are_conserved_closely():
    x, v, m = plummer_like(200)
    sim = nbody.Simulation(x, v, m, softening=0.05, dt=1e-3, backend="reference")
    e0, p0 = sim.energy(), np.array(sim.momentum())
    sim.step(50)
    assert abs(sim.energy() - e0) < 1e-4 * abs(e0)
    assert np.allclose(np.array(sim.momentum()), p0, atol=1e-12)


def test_accelerations_direct_and_tree_agree():
    x, v, m = plummer_like(400)
    sim = nbody.Simulation(x, v, m, softening=0.05, backend="cpu")
    direct = sim.accelerations()
    tree = sim.accelerations(gravity="tree", theta=0.3)
    assert direct.shape == (400, 3) and direct.dtype == np.float64
    error = np.linalg.norm(tree - direct, axis=1) / np.linalg.norm(direct, axis=1)
    assert 0 < np.median(error) < 1e-2
    assert sim.gravity == "direct"  # the running solver is kept


def test_save_and_load_round_trip(tmp_path):
    x, v, m = plummer_like(30)
    sim = nbody.Simulation(x, v, m, softening=0.02, dt=2e-3, backend="reference")
    sim.step(5)
    for name in ("s.nbsnap", "s.csv"):
        sim.save(str(tmp_path / name))
        back = nbody.load(str(tmp_path / name), backend="reference")
        np.testing.assert_array_equal(back.positions, sim.positions)
        np.testing.assert_array_equal(back.velocities, sim.velocities)
    snap = nbody.load(str(tmp_path / "s.nbsnap"), backend="reference")
    assert (snap.dt, snap.softening, snap.time) == (2e-3, 0.02, sim.time)
    sim.save(str(tmp_path / "s.tipsy"))
    np.testing.assert_array_equal(nbody.load(str(tmp_path / "s.tipsy"), backend="cpu").positions,
                                  sim.positions.astype(np.float32))


def test_labels_from_a_scene():
    sim = nbody.Simulation.from_scene(_scene("antennae.toml"), bodies=2000, backend="cpu")
    assert sim.galaxy.dtype == np.uint16 and set(np.unique(sim.galaxy)) == {0, 1}
    assert sim.component.dtype == np.uint8 and sim.component.max() <= 4


def _scene(name):
    from conftest import SCENES
    return str(SCENES / name)


BAD_ARRAYS = [
    ("x", lambda x, v, m: (x[:, :2], v, m), r"x has shape \(10, 2\); expected \(N, 3\)"),
    ("v rows", lambda x, v, m: (x, v[:9], m), r"v has 9 rows; expected 10"),
    ("m shape", lambda x, v, m: (x, v, m.reshape(5, 2)), r"m has shape \(5, 2\); expected \(N,\)"),
    ("nan", lambda x, v, m: (_set(x, (3, 1), math.nan), v, m), r"x row 3 column 1 \(y\): nan is not finite"),
    ("inf", lambda x, v, m: (x, _set(v, (7, 2), math.inf), m), r"v row 7 column 2 \(z\): inf is not finite"),
    ("negative mass", lambda x, v, m: (x, v, _set(m, (4,), -1.0)), r"m row 4: mass -1 is negative"),
    ("float range", lambda x, v, m: (_set(x, (2, 0), 1e39), v, m), r"x row 2 column 0 \(x\): 1e\+39 is beyond the range of float"),
    ("strings", lambda x, v, m: (np.array([["a", "b", "c"]] * 10), v, m), r"x: dtype <U1 is not a real number type"),
    ("empty", lambda x, v, m: (x[:0], v[:0], m[:0]), r"m has no rows"),
]


def _set(a, index, value):
    a = a.copy()
    a[index] = value
    return a


@pytest.mark.parametrize("name,spoil,message", BAD_ARRAYS, ids=[b[0] for b in BAD_ARRAYS])
def test_bad_arrays_are_value_errors_naming_array_and_row(name, spoil, message):
    x, v, m = spoil(*plummer_like(10))
    with pytest.raises(ValueError, match=message):
        nbody.Simulation(x, v, m, backend="cpu")


def test_bad_assignment_keeps_the_running_state():
    x, v, m = plummer_like(10)
    sim = nbody.Simulation(x, v, m, backend="reference")
    with pytest.raises(ValueError, match=r"positions row 5 column 0 \(x\): nan is not finite"):
        sim.positions = _set(x, (5, 0), math.nan)
    with pytest.raises(ValueError, match=r"masses row 1: mass -2 is negative"):
        sim.masses = _set(m, (1,), -2.0)
    with pytest.raises(ValueError, match=r"positions has 3 rows; expected 10"):
        sim.positions = x[:3]
    np.testing.assert_array_equal(sim.positions, x)
    sim.step(1)  # still runs


def test_add_appends_bodies_and_keeps_the_old_ones():
    x, v, m = plummer_like(20)
    sim = nbody.Simulation(x, v, m, backend="reference")
    sim.add([[5.0, 0, 0]], [[0, 1.0, 0]], [0.5])
    assert len(sim) == 21
    np.testing.assert_array_equal(sim.positions[:20], x)
    np.testing.assert_array_equal(sim.positions[20], [5.0, 0, 0])
    np.testing.assert_array_equal(sim.masses[20], 0.5)
    with pytest.raises(ValueError, match="m row 0: mass -1 is negative"):
        sim.add([[0, 0, 0]], [[0, 0, 0]], [-1.0])
    assert len(sim) == 21


def test_save_refuses_another_kind_of_file_and_the_input_unless_asked(tmp_path):
    scene = tmp_path / "s.toml"
    scene.write_text((__import__("conftest").SCENES / "plummer.toml").read_text())
    sim = nbody.Simulation.from_scene(str(scene), bodies=64, backend="cpu")
    png = tmp_path / "picture.csv"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(32))
    with pytest.raises(ValueError, match=r"picture.csv.*PNG image.*add --overwrite"):
        sim.save(str(png))
    assert png.read_bytes().startswith(b"\x89PNG")
    sim.save(str(png), overwrite=True)
    assert png.read_text().startswith("x,y,z")
    with pytest.raises(ValueError, match=r"state.xyz': '.xyz' is not a format save writes; it writes .csv"):
        sim.save(str(tmp_path / "state.xyz"))
    assert not (tmp_path / "state.xyz").exists()
    sim.save(str(tmp_path / "in.csv"))
    from_csv = nbody.load(str(tmp_path / "in.csv"), backend="cpu")
    from_csv.step(1)
    with pytest.raises(ValueError, match=r"in.csv.*overwrite"):
        from_csv.save(str(tmp_path / "in.csv"))  # its own input
    from_csv.save(str(tmp_path / "in.csv"), overwrite=True)
    sim.save(str(tmp_path / "new" / "folder" / "s.nbsnap"))  # folders are made
    assert (tmp_path / "new" / "folder" / "s.nbsnap").is_file()
