#!/usr/bin/env bash
# Device run 144 (nvidia-h100-x2): the 16M tree viewer beside the frame loop again, its frame rate now counted to the
# end of the last frame (run 143: every frame 16.7 ms, 99 % under 16.8 ms, yet 56.8-57.4 frames/s reported, the stop
# of the simulation thread at the end counted in); steps/s against one GPU stepping in the frame loop in the same call.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="frames 2|frame times|GPU:|gpus:|step:|present"
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216"
step two-gpus-cuda-cut 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600 --gpus 2
step two-gpus-compute-draw-only 120 env NBODY_SIM_THREAD=1 NBODY_DRAWING_GPU_WALKS=0 $D/nbody $V --frames 600 --gpus 2 --sprites compute
step one-gpu-cuda 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600
step one-gpu-in-loop 120 $D/nbody $V --frames 60
step one-gpu-1m 60 env NBODY_SIM_THREAD=1 $D/nbody view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 1048576 --frames 600
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
