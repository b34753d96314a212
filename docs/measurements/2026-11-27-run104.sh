#!/usr/bin/env bash
# Device run 104 (one GPU): block against shared time steps on the GPU tree, milky-way-andromeda at
# 1M to t = 102.4 (1 Gyr): docs/measurements/2026-11-27-gpu-block-steps.sh (setup, shared dt 0.04 /
# 0.02 / 0.01, block dt_max 0.16 at eta 0.4 / 0.2 / 0.1 / 0.05), with run 103's build.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
bash docs/measurements/2026-11-27-gpu-block-steps.sh $D $OUT/blk setup shared block 2>&1 | grep -v "^## "
rm -f $OUT/blk/mwa-1m.nbsnap
echo "end at $((SECONDS-t0)) s"
