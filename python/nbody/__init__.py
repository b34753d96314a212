"""nbody: the GPU N-body simulator from Python.

The state lives in the simulator's own libraries (nbody_sim, nbody_render); Python sees it as
numpy arrays, copied in bulk. See docs/PYTHON.md for the API with examples.

    import nbody
    sim = nbody.Simulation.from_scene("scenes/plummer.toml", bodies=1024, backend="cpu")
    sim.step(100)
    x = sim.positions            # (N, 3): float64 from the double backends, float32 otherwise
"""

import os
import shutil
import subprocess
import tempfile

# An installed package carries the viewer's shaders beside it (render() loads them at run time);
# the build tree's module finds them in the source tree.
_shaders = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shaders")
if os.path.isdir(_shaders):
    os.environ.setdefault("NBODY_SHADER_DIR", _shaders)

from ._nbody import Simulation, cuda_available, cuda_unavailable_reason  # noqa: E402  (after the shader folder is known)

__all__ = ["Simulation", "load", "Cluster", "view", "cuda_available", "cuda_unavailable_reason"]


def load(path, backend="auto", integrator=None, eta=None, dt_max=None):
    """A particle file (.csv, TIPSY .tipsy/.std/.bin, .nbsnap) or a scene file as a Simulation."""
    return Simulation.load(path, backend=backend, integrator=integrator, eta=eta, dt_max=dt_max)


def Cluster(x=None, v=None, m=None, *, scene=None, bodies=None, order=4, eta=None, dt_max=None,
            softening=0.0, backend="auto"):
    """A star cluster on the Hermite block-step integrator (order 4 or 6), from a scene or arrays.

    Run it with ``integrate(t_end)``; ``eta`` is Aarseth's accuracy parameter (default 0.01 for
    order 4, 0.1 for order 6), ``dt_max`` the largest block step.
    """
    if order not in (4, 6):
        raise ValueError(f"order {order!r} is not 4 (hermite4) or 6 (hermite6)")
    integrator = f"hermite{order}"
    if scene is not None:
        if x is not None or v is not None or m is not None:
            raise ValueError("give either scene= or the arrays x, v, m, not both")
        return Simulation.from_scene(scene, bodies=bodies, backend=backend, integrator=integrator,
                                     eta=eta, dt_max=dt_max)
    if x is None or v is None or m is None:
        raise ValueError("a Cluster needs scene= or all three arrays x, v, m")
    return Simulation(x, v, m, softening=softening, backend=backend, integrator=integrator,
                      eta=eta, dt_max=dt_max)


def _nbody_executable():
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.environ.get("NBODY_EXECUTABLE"),
                      os.path.join(here, "..", "..", "app", "nbody"),
                      shutil.which("nbody")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    raise RuntimeError("the nbody executable was not found (set NBODY_EXECUTABLE, or put nbody on PATH)")


def view(sim, *args, wait=True):
    """Opens the interactive viewer on `sim`'s state (needs a display).

    The state goes to the viewer through a snapshot (.nbsnap, exact); extra arguments go to
    `nbody view` (e.g. "--steps-per-frame", "4"). With wait=False the viewer runs beside Python
    and its Popen is returned.
    """
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        raise RuntimeError("no display (DISPLAY is unset): use sim.render() for frames without one")
    folder = tempfile.mkdtemp(prefix="nbody-view-")
    snapshot = os.path.join(folder, "state.nbsnap")
    sim.save(snapshot, overwrite=True)
    command = [_nbody_executable(), "view", "--scene", snapshot, *args]
    if not wait:
        return subprocess.Popen(command)
    try:
        return subprocess.run(command, check=False).returncode
    finally:
        shutil.rmtree(folder, ignore_errors=True)
