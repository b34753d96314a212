"""Ctrl-C during a long integrate(): KeyboardInterrupt between batches, the state consistent."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import SCENES

LEAPFROG = textwrap.dedent(f"""
    import sys, numpy as np, nbody
    sim = nbody.Simulation.from_scene({str(SCENES / "plummer.toml")!r}, bodies=1024, backend="cpu")
    print("ready", flush=True)
    try:
        sim.integrate(1e9)
    except KeyboardInterrupt:
        steps = sim.steps
        consistent = sim.time == sim.dt * steps or abs(sim.time - sim.dt * steps) < 1e-9 * max(1.0, sim.time)
        finite = bool(np.isfinite(sim.positions).all())
        sim.step(1)  # it goes on from there
        print("interrupted", steps, consistent, finite, sim.steps == steps + 1, flush=True)
        sys.exit(0)
    print("not interrupted", flush=True)
""")

# Hermite: stopped after a block step; the state is predicted to that time, and integrate goes on.
HERMITE = textwrap.dedent(f"""
    import sys, numpy as np, nbody
    sim = nbody.Cluster(scene={str(SCENES / "plummer.toml")!r}, bodies=256, backend="cpu")
    print("ready", flush=True)
    try:
        sim.integrate(1e9)
    except KeyboardInterrupt:
        t = sim.time
        finite = bool(np.isfinite(sim.positions).all())
        sim.integrate(t + 1e-3)
        print("interrupted", int(t > 0), True, finite, sim.time == t + 1e-3, flush=True)
        sys.exit(0)
    print("not interrupted", flush=True)
""")


@pytest.mark.parametrize("child_code", [LEAPFROG, HERMITE], ids=["leapfrog", "hermite4"])
def test_ctrl_c_stops_a_long_integrate_between_batches(child_code):
    child = subprocess.Popen([sys.executable, "-c", child_code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=os.environ.copy())
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(1.5)
        started = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
        answered_in = time.monotonic() - started
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=10)
    assert child.returncode == 0, err
    words = out.split()
    assert words[0] == "interrupted", out
    assert int(words[1]) > 0
    assert words[2:] == ["True", "True", "True"], out
    assert answered_in < 10, f"KeyboardInterrupt took {answered_in:.1f} s"
