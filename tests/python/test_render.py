"""sim.render(): an (H, W, 3) uint8 frame from the viewer's renderer through EGL (Mesa here,
NVIDIA's EGL on the GPU machine), with stars in it."""

import numpy as np
import pytest

import nbody
from conftest import SCENES


@pytest.fixture(scope="module")
def sim():
    return nbody.Simulation.from_scene(str(SCENES / "antennae.toml"), bodies=4000, backend="cpu")


def test_a_frame_has_stars_on_a_dark_sky(sim):
    try:
        frame = sim.render(width=160, height=120)
    except RuntimeError as e:  # no EGL device at all: say why
        pytest.skip(f"no EGL device: {e}")
    assert frame.shape == (120, 160, 3) and frame.dtype == np.uint8
    brightness = frame.astype(int).sum(axis=2)
    sky = np.median(brightness)
    assert sky < 30
    assert (brightness > sky + 60).sum() > 50  # star-lit pixels
    # The centre of mass is in view: the middle of the frame is brighter than its corners.
    assert brightness[40:80, 50:110].mean() > brightness[:20, :20].mean()


def test_camera_and_colour_change_the_frame(sim):
    try:
        near = sim.render(width=96, height=64, camera={"distance": 20.0})
    except RuntimeError as e:
        pytest.skip(f"no EGL device: {e}")
    far = sim.render(width=96, height=64, camera={"distance": 400.0})
    speed = sim.render(width=96, height=64, camera={"distance": 20.0}, colour="speed")
    assert not np.array_equal(near, far)
    assert not np.array_equal(near, speed)


def test_bad_render_arguments(sim):
    with pytest.raises(ValueError, match="colour 'rainbow' is not one of galaxy, component, speed, plain"):
        sim.render(width=64, height=64, colour="rainbow")
    with pytest.raises(ValueError, match="outside the supported sizes"):
        sim.render(width=20000, height=64)
    with pytest.raises(ValueError, match="camera key 'zoom'"):
        sim.render(width=64, height=64, camera={"zoom": 2})


def test_view_without_a_display_says_so(sim, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(RuntimeError, match="no display"):
        nbody.view(sim)


def test_view_opens_the_viewer_on_the_state_under_a_display():
    """nbody.view(sim) in a window (Xvfb and Mesa here): the viewer opens on the simulation's own
    bodies, draws its frames and exits 0."""
    import os
    import shutil
    import subprocess
    import sys
    xvfb = shutil.which("xvfb-run")
    if xvfb is None:
        pytest.skip("no xvfb-run (Debian: apt-get install xvfb) to give the viewer a display")
    script = (
        "import sys, numpy as np, nbody\n"
        "rng = np.random.default_rng(3)\n"
        "sim = nbody.Simulation(rng.normal(size=(777, 3)), np.zeros((777, 3)), np.full(777, 1 / 777),"
        " softening=0.05, dt=1e-3, backend='cpu')\n"
        "sys.exit(nbody.view(sim, '--frames', '5', '--backend', 'cpu', '--size', '320x200'))\n")
    result = subprocess.run([xvfb, "-a", "-s", "-screen 0 640x480x24", sys.executable, "-c", script],
                            capture_output=True, text=True, timeout=180, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "777 bodies" in result.stderr, result.stderr


def test_annotate_adds_the_legend_scale_bar_and_time(sim):
    try:
        plain = sim.render(width=320, height=180)
    except RuntimeError as e:
        pytest.skip(f"no EGL device: {e}")
    annotated = sim.render(width=320, height=180, annotate=True)
    changed = np.abs(annotated.astype(int) - plain.astype(int)).sum(axis=2) > 30
    rows, cols = np.nonzero(changed)
    assert changed.sum() > 100  # text and a bar: a few hundred pixels
    # All of it bottom left, where `nbody record --annotate` puts it.
    assert rows.min() > 180 // 3 and cols.max() < 320 * 3 // 4


def test_two_simulations_draw_annotated_frames_in_turn():
    a = nbody.Simulation.from_scene(str(SCENES / "antennae.toml"), bodies=1000, backend="cpu")
    b = nbody.Simulation.from_scene(str(SCENES / "plummer.toml"), bodies=1000, backend="cpu")
    try:
        first = a.render(width=128, height=96, annotate=True)
    except RuntimeError as e:
        pytest.skip(f"no EGL device: {e}")
    b.render(width=128, height=96, annotate=True)
    np.testing.assert_array_equal(a.render(width=128, height=96, annotate=True), first)
    del a  # its EGL and ImGui contexts go; b's stay usable
    assert b.render(width=128, height=96, annotate=True).shape == (96, 128, 3)
