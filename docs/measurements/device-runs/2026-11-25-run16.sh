#!/usr/bin/env bash
# Device run 16: the viewer after its split into folders (app/viewer/{input,simulation,drawing,ui,
# scenes,recording}) and the default scene's new camera (215 kpc): the render tests on the GPU
# (EGL, CUDA-GL interop), the CUDA tests, and the first minute of the default scene at its GPU N
# (65,536) as a new user sees it: the window at the start and after the first passage, and the
# headless viewer's rate at 256K (issue 17's viewer target, 40 fps).
source docs/measurements/device-runs/unpack.sh; W=$(mktemp -d)
(cd $W && timeout 200 $D/nbody_render_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/render-tests.log 2>&1)
echo "render tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/render-tests.log | head -12
timeout 240 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
v() { local name=$1; shift; (cd $W && timeout 120 $D/nbody view --headless --backend cuda "$@" > $OUT/logs/$name.log 2>&1); echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^fps_report|scene:" $OUT/logs/$name.log | cut -c1-160; }
v start --size 1280x720 --frames 2 --screenshot $OUT/gpu-default-start-ui.png
v passage --size 1280x720 --frames 330 --screenshot $OUT/gpu-default-passage-ui.png
v passage-1080p --size 1920x1080 --frames 330 --no-ui --screenshot $OUT/gpu-default-passage-1080p.png
v mw-256k --scene $D/scenes/milky-way-andromeda.toml --bodies 262144 --steps-per-frame 1 --frames 200 --no-ui --size 1920x1080
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
