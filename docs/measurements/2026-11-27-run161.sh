#!/usr/bin/env bash
# Device run 161 (one GPU): every CUDA test at the head with the relative criterion (the walk-room
# test now forgets |a| before each pass); the default collision's N as the viewer fits it to the
# GPU (`--bodies auto`) with the faster tree, and a frame of it; the 16M viewer beside the frame
# loop against the loop (issue 33's steps/s).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|frames 2|fps_report|chose|bodies:|step:|particles: drawn"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-tests 300 $D/nbody_cuda_tests --gtest_color=no
step view-auto 120 $D/nbody view --headless --backend cuda --bodies auto --frames 300 --size 1920x1080 --screenshot $OUT/auto.png
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216"
step view16m-loop 120 $D/nbody $V --frames 60
step view16m-beside 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
