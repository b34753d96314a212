#!/usr/bin/env bash
# Device run 97 (nvidia-h100-x2): the compute sprites with their resolve as a compute pass (run 96
# showed the full-screen fragment resolve cost 9.4 ms at 1080p), and the cuda backend stepping
# beside the frame loop (PublishedPositions: device slots copied into the vertex buffer not drawn).
# The render suite (PublishedPositions.*, CudaGlInterop.FramesKeepComing...), then the viewer at 1M
# and 16M (tree, 1080p, one step per frame, no panels): sprites both ways in the loop, and beside
# the frame loop (NBODY_SIM_THREAD=1) on one GPU and two.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|frames 2\.\.|GPU:|host \(CPU|own thread"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step render-all 240 $D/nbody_render_tests --gtest_color=no
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
step view1m-points 60 $V --bodies 1048576 --frames 300 --sprites points
step view1m-compute 60 $V --bodies 1048576 --frames 300 --sprites compute --screenshot $OUT/view1m-compute.png
step view16m-compute 90 $V --bodies 16777216 --frames 60 --sprites compute --screenshot $OUT/view16m-compute.png
export NBODY_SIM_THREAD=1
step beside1m 60 $V --bodies 1048576 --frames 600 --sprites compute --screenshot $OUT/beside1m.png
step beside1m-2gpu 60 $V --bodies 1048576 --frames 600 --sprites compute --gpus 2
step beside16m 90 $V --bodies 16777216 --frames 300 --sprites compute --screenshot $OUT/beside16m.png
step beside16m-2gpu 90 $V --bodies 16777216 --frames 300 --sprites compute --gpus 2
unset NBODY_SIM_THREAD
grep -h "fps_report" $L/view*.log $L/beside*.log | cut -c1-330
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
