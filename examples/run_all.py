"""Runs every example (CTest: python_examples) each in a fresh interpreter with a time limit, into
a temporary folder; with --small, at the small N that CI uses."""

import pathlib
import subprocess
import sys
import tempfile

EXAMPLES = ["collision_energy.py", "pericentre_study.py", "custom_initial_conditions.py",
            "cluster_core_collapse.py", "render_frames.py"]
here = pathlib.Path(__file__).resolve().parent
extra = [a for a in sys.argv[1:] if a == "--small"]
failed = []
with tempfile.TemporaryDirectory(prefix="nbody-examples-") as out:
    for name in EXAMPLES:
        print(f"== {name}", flush=True)
        try:
            result = subprocess.run([sys.executable, str(here / name), *extra, "--backend", "cpu", "--out", out],
                                    timeout=600)
            ok = result.returncode == 0
        except subprocess.TimeoutExpired:
            print(f"{name}: still running after 600 s", flush=True)
            ok = False
        if not ok:
            failed.append(name)
print("failed: " + ", ".join(failed) if failed else f"all {len(EXAMPLES)} examples ran")
sys.exit(1 if failed else 0)
