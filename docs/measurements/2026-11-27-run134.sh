#!/usr/bin/env bash
# Device run 134 (nvidia-h100-x2): the viewer beside the frame loop on two GPUs with the drawing GPU's other
# work counted per frame drawn (frames/s x seconds a step frames a step): 16M tree, 1080p, against run 133
# (54.3 frames/s, 70.3 ms a step, GPU 0 39.9 % of the walk); the auto-tune test on 131,072 bodies.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure"
step render-tests 120 $D/nbody_render_tests --gtest_color=no --gtest_filter='CudaGlInterop.Autotune*'
SHOW="frames 2|GPU:|fps_report|gpus:"
V="$D/nbody view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216"
step b16m-2gpu-beside 120 env NBODY_SIM_THREAD=1 $V --frames 600 --gpus 2
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
