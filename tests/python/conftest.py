"""Shared set-up for the Python module's tests: the source tree, the built `nbody` executable and
a bounded subprocess runner (no test waits without bound)."""

import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("NBODY_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SCENES = SOURCE_DIR / "scenes"


def nbody_executable():
    path = os.environ.get("NBODY_EXECUTABLE")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("NBODY_EXECUTABLE (the built nbody executable) is not set; CTest sets it")
    return path


def run_cli(*args, timeout=300):
    """Runs `nbody ARGS`, bounded by `timeout` seconds; fails the test on a non-zero exit."""
    result = subprocess.run([nbody_executable(), *map(str, args)], capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"nbody {' '.join(map(str, args))} exited {result.returncode}:\n{result.stderr}"
    return result
