#!/usr/bin/env bash
# Device run 143 (nvidia-h100-x2): the frame-time distribution (the report's new `frame times` line) of the 16M
# tree viewer beside the frame loop, where the mean frame is 17.2-17.7 ms against the pacer's 16.67: spread over
# every frame, or a few long ones? Two GPUs with the CUDA deposit (the default) and the GL deposit on a first GPU
# that only draws; one GPU; 1080p headless, 600 frames.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="frames 2|frame times|GPU:|gpus:|step:|present"
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216 --frames 600"
step two-gpus-cuda-cut 120 env NBODY_SIM_THREAD=1 $D/nbody $V --gpus 2
step two-gpus-compute-draw-only 120 env NBODY_SIM_THREAD=1 NBODY_DRAWING_GPU_WALKS=0 $D/nbody $V --gpus 2 --sprites compute
step one-gpu-cuda 120 env NBODY_SIM_THREAD=1 $D/nbody $V
step one-gpu-1m 60 env NBODY_SIM_THREAD=1 $D/nbody view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 1048576 --frames 600
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
