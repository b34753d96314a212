#!/usr/bin/env bash
# Device run 19: the final build of 2026-11-25 (viewer in folders, ds Hermite kernel version 2):
# the render tests on the GPU (hermite4 in the viewer now runs the new kernel) and a hermite4 star
# cluster in the headless viewer on the GPU engine.
source docs/measurements/device-runs/unpack.sh
W=$(mktemp -d)
(cd $W && timeout 200 $D/nbody_render_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/render-tests.log 2>&1)
echo "render tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/render-tests.log | head -12
(cd $W && timeout 120 $D/nbody view --headless --backend cuda --scene $D/scenes/star-cluster-kroupa.toml --size 1280x720 --frames 120 --screenshot $OUT/gpu-kroupa-v2.png > $OUT/logs/kroupa.log 2>&1)
echo "--- kroupa: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^fps_report|scene:|hermite|blocks" $OUT/logs/kroupa.log | cut -c1-220 | head -8
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
