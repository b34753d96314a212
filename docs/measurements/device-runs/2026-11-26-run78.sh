#!/usr/bin/env bash
# Device run 78 (issue 17): the summation order in the tree code's near field (tree_walk uses the
# same interact_unrolled) and the every-pair default, before (nbody-old: 7da7fc9's kernel files)
# and after (nbody: b094761) in the same call.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for round in 1 2; do
  for exe in nbody-old nbody; do
    echo "=== $exe, round $round"
    timeout 150 $D/$exe bench --backend cuda --gravity tree --bodies 256K,1M 2>&1 | grep -E "^ +[0-9]+ " | head -4
    timeout 150 $D/$exe bench --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --bodies 1M 2>&1 | grep -E "^ +[0-9]+ " | head -2
    timeout 150 $D/$exe bench --backend cuda --bodies 256K,1M --pairs full 2>&1 | grep -E "^ +[0-9]+ " | head -2
  done
done
echo "end at $((SECONDS-t0)) s"
