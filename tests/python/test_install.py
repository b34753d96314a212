"""cmake --install puts a package that python3 imports outside the build tree, shaders included."""

import os
import subprocess
import sys

import pytest


def test_installed_package_imports_and_renders(tmp_path):
    build, relative = os.environ.get("NBODY_BUILD_DIR"), os.environ.get("NBODY_PYTHON_INSTALL_DIR")
    if not build or not relative:
        pytest.skip("NBODY_BUILD_DIR and NBODY_PYTHON_INSTALL_DIR are set by CTest")
    cmake = os.environ.get("CMAKE_COMMAND", "cmake")
    prefix = tmp_path / "prefix"
    subprocess.run([cmake, "--install", build, "--prefix", str(prefix)], check=True, capture_output=True, timeout=120)
    site = prefix / relative
    assert (site / "nbody" / "__init__.py").is_file() and (site / "nbody" / "shaders" / "particles.vert").is_file()
    script = ("import nbody, numpy as np; "
              "s = nbody.Simulation(np.random.default_rng(0).normal(size=(300, 3)), np.zeros((300, 3)), "
              "np.full(300, 1 / 300), backend='cpu'); s.step(2); "
              "print(nbody.__file__); print(s.render(width=32, height=32).shape)")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NBODY_SHADER_DIR")}
    env["PYTHONPATH"] = str(site)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env,
                            cwd=tmp_path)
    if result.returncode != 0 and "EGL" in result.stderr:
        pytest.skip(f"no EGL device: {result.stderr.strip().splitlines()[-1]}")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(str(site))
    assert lines[1] == "(32, 32, 3)"
