#!/usr/bin/env bash
# Device run 128 (nvidia-h100-x1): the viewer's GPU energy and force-error tasks in the frame loop hand
# the vertex buffer's positions to the backend on the GPU instead of a whole host snapshot first. The
# interop and viewer tests that take those paths.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|energy line|force error"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step render-tests 150 $D/nbody_render_tests --gtest_color=no --gtest_filter='CudaGlInterop.*:ViewerExecutable.TreeGravity*'
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
