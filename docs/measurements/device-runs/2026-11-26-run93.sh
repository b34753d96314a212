#!/usr/bin/env bash
# Device run 93 (nvidia-h100-x2): the session's merged head on the GPU: the whole CUDA and render
# suites (block time steps, cluster colours and radii, trails by model time, the panel layout and
# annotations all merged since run 92), and headless frames to look at: a Kroupa cluster coloured by
# stellar mass with the panels, and the default collision at 1M on two GPUs with --annotate.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|fps_report|gpus:|saved"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-all 240 $D/nbody_cuda_tests --gtest_color=no
step render-all 180 $D/nbody_render_tests --gtest_color=no
step cluster 60 $D/nbody view --headless --backend cuda --scene $D/scenes/star-cluster-kroupa.toml --frames 240 --size 1280x720 --screenshot $OUT/gpu-kroupa-mass.png
step collision 60 $D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --bodies 1048576 --gravity tree --gpus 2 --frames 400 --no-ui --annotate --size 1920x1080 --screenshot $OUT/gpu-collision-1m-2gpus.png
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
