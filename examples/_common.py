"""What every example shares: the command line (--small for CI, --out for the files written) and
where the scenes are."""

import argparse
import os
import pathlib

SOURCE_DIR = pathlib.Path(os.environ.get("NBODY_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[1]))
SCENES = SOURCE_DIR / "scenes"


def arguments(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--small", action="store_true", help="a few seconds' run at small N (what CI runs)")
    parser.add_argument("--out", default=".", help="folder for the files written (default: here)")
    parser.add_argument("--backend", default="auto", help="reference | cpu | cuda | auto")
    args = parser.parse_args()
    args.out = pathlib.Path(args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    return args
