#!/usr/bin/env bash
# Device run 96 (nvidia-h100-x2): sprites drawn by the compute pass (particle_splatter.hpp) against
# GL points on the GPU: the render suite (SpriteDrawing.* on NVIDIA's EGL), and the viewer's
# frame at 1M and 16M bodies (tree, 1080p, one step per frame, no panels) both ways, on one GPU and
# two; headless frames of both to compare by eye.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|frames 2\.\.|GPU:|sprites drawn"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step render-all 240 $D/nbody_render_tests --gtest_color=no
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
step view1m-points 60 $V --bodies 1048576 --frames 300 --sprites points --screenshot $OUT/view1m-points.png
step view1m-compute 60 $V --bodies 1048576 --frames 300 --sprites compute --screenshot $OUT/view1m-compute.png
step view1m-compute-2gpu 60 $V --bodies 1048576 --frames 300 --sprites compute --gpus 2
step view16m-points 90 $V --bodies 16777216 --frames 60 --sprites points
step view16m-compute 90 $V --bodies 16777216 --frames 60 --sprites compute --screenshot $OUT/view16m-compute.png
step view16m-compute-2gpu 90 $V --bodies 16777216 --frames 60 --sprites compute --gpus 2
step ui1m 60 $D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --bodies 1048576 --gravity tree --frames 200 --size 1920x1080 --screenshot $OUT/ui1m-compute.png
grep -h "fps_report" $L/view*.log | cut -c1-400
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
