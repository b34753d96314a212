#!/usr/bin/env bash
# Device run 136 (nvidia-h100-x2): run 135 left the first GPU only drawing at 57.3 frames/s with the CUDA
# sprites (its GL passes waiting on its CUDA work). The same with the compute sprites (the deposit in GL,
# no CUDA work on that GPU but the positions' copy), with its cut share and drawing only.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="frames 2|GPU:|fps_report|gpus:"
V="$D/nbody view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216 --gpus 2 --sprites compute"
step b16m-2gpu-compute-draw-only 120 env NBODY_SIM_THREAD=1 NBODY_DRAWING_GPU_WALKS=0 $V --frames 600
step b16m-2gpu-compute-cut 120 env NBODY_SIM_THREAD=1 $V --frames 600
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
