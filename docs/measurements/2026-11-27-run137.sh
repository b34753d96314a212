#!/usr/bin/env bash
# Device run 137 (nvidia-h100-x1): the window while the Kernel panel's auto-tune runs between two steps
# (view --autotune, 131,072 bodies every pair, the panels on): a screenshot at frame 90 (about 1.5 s in,
# the tuning still running) shows the spinner's progress and the button waiting; then the same run to its
# end (the outcome in the panel).
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="auto-tuned|first frame|fps_report|saved|error"
V="$D/nbody view --headless --backend cuda --gravity direct --autotune --bodies 131072 --size 1600x900 --scene $PWD/scenes/plummer.toml"
step autotune-during 90 env NBODY_SIM_THREAD=1 NBODY_AUTOTUNE_CACHE=$OUT/at.json $V --frames 90 --screenshot $OUT/autotune-during.png
step autotune-after 120 env NBODY_SIM_THREAD=1 NBODY_AUTOTUNE_CACHE=$OUT/at2.json $V --frames 900 --screenshot $OUT/autotune-after.png
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
