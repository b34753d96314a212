#!/usr/bin/env bash
# Device run 135 (nvidia-h100-x2): 16M tree beside the frame loop on two GPUs with the drawing GPU walking its
# cut share (run 134: 25.7 %, 56.9 frames/s, 75.3 ms a step) against walking the smallest share
# (NBODY_DRAWING_GPU_WALKS=0): is a GPU that only draws enough for 60 frames/s at 16M, and at what steps/s?
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="frames 2|GPU:|fps_report|gpus:"
V="$D/nbody view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216 --gpus 2"
step b16m-2gpu-beside-cut 120 env NBODY_SIM_THREAD=1 $V --frames 600
step b16m-2gpu-beside-draw-only 120 env NBODY_SIM_THREAD=1 NBODY_DRAWING_GPU_WALKS=0 $V --frames 600
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
