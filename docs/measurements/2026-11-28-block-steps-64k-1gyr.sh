#!/usr/bin/env bash
# Block against shared time steps on the cpu backend at the scene's own N (65,536) to 1 Gyr
# (t = 102.4), with no body coarser than shared steps' dt 0.04 (dt_max 0.04): whether the drift that
# the finer levels add on the GPU at 1M (device run 169: 5.46e-4 against 2.96e-5) shows on this
# machine, as a testbed for a time-symmetric level choice (docs/TREE.md, "Block time steps").
# Usage: docs/measurements/2026-11-28-block-steps-64k-1gyr.sh NBODY OUT_DIR   (~20 min on 2 cores)
set -eu
B=${1:?nbody executable}; OUT=${2:?output folder}; mkdir -p "$OUT"
"$B" run --scene "$(dirname "$0")/../../scenes/milky-way-andromeda.toml" --bodies 65536 --steps 0 --out "$OUT/mwa64k.nbsnap" --overwrite
R="$B run --input $OUT/mwa64k.nbsnap --backend cpu --gravity tree --t-end 102.4 --dt 0.04"
$R > "$OUT/shared.txt" 2>&1
$R --timesteps block --eta 0.2 > "$OUT/block.txt" 2>&1
grep -H -E "^backend|time steps|levels at|relative energy" "$OUT/shared.txt" "$OUT/block.txt"
