#!/usr/bin/env bash
# Device run 202 (nvidia-h100-x4): the whole CUDA test suite at the session's head (4a2316b): the
# meetings before collectives, the Hermite blocks' buffers sized first, the counters reset in the
# predict kernel, the walk's slot mapping, TheDrawingGpuGetsLess... on 16 passes' mean.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|Expected|Which is|tests ran"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-tests 420 $D/nbody_cuda_tests --gtest_color=no
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
