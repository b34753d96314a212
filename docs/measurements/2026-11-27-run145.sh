#!/usr/bin/env bash
# Device run 145 (one H100): the whole render test program on a GPU at the session's head (the frame pacer, the
# Hermite start beside the window, the frame rate counted to the last frame), and the gate's own test.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="PASSED|FAILED|tests ran"
step render-tests 420 $D/nbody_render_tests --gtest_color=no
step gate-test 60 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='PeerGate*'
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
