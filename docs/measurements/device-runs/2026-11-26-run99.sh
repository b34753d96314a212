#!/usr/bin/env bash
# Device run 99 (nvidia-h100-x4; the views on GPU 0): the session's merged head (compute sprites zeroed by a compute
# pass on an RGBA16F target, the cuda backend beside the frame loop, the render scale, issue 33's
# app leftovers, the Hermite host pool with its serial-mode fix): the render suite, the Hermite and
# multi-GPU CUDA tests, the viewer at 1M and 16M (tree, 1080p, one step a frame, no panels) in the
# loop and beside it, and Hermite4 128K Plummer to t = 0.25 on one GPU, two and four, and serial.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|frames 2\.\.|GPU:|blocks, |energy error"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step render-all 200 $D/nbody_render_tests --gtest_color=no
step cuda-some 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='Hermite*:TwoGpus.*:ForceShares.*'
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
step view1m-points 60 $V --bodies 1048576 --frames 300 --sprites points
step view1m-compute 60 $V --bodies 1048576 --frames 300 --sprites compute --screenshot $OUT/view1m-compute.png
step view16m-compute 90 $V --bodies 16777216 --frames 60 --sprites compute
step beside16m 90 env NBODY_SIM_THREAD=1 $V --bodies 16777216 --frames 300 --sprites compute
S="--integrator hermite4 --scene $PWD/scenes/plummer.toml --bodies 131072 --t-end 0.25 --backend cuda"
step hermite-1gpu 60 $D/nbody run $S
step hermite-2gpu 60 $D/nbody run $S --gpus 2
step hermite-4gpu 60 $D/nbody run $S --gpus 4
step hermite-1gpu-serial 60 env NBODY_HERMITE_THREADS=1 $D/nbody run $S
step ui1m 60 $D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --bodies 1048576 --frames 200 --size 1920x1080 --screenshot $OUT/ui1m.png
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
