#!/usr/bin/env bash
# Device run 36 (issue 18): the committed ds kernel version 3 after review (one warp-reduction helper):
# the Hermite GPU tests, the g6 tests (with the example driver), and the all-active 256K kernel rate.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
G6_HERMITE_EXECUTABLE=$D/g6_hermite timeout 120 $D/nbody_g6_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/g6-tests.log 2>&1
echo "g6 tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/g6-tests.log | head -8
timeout 150 $D/nbody_hermite_bench kernel 262144 262144 3 > $OUT/logs/kernel-256k.log 2>&1
echo "kernel 256k: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^kernel ds" $OUT/logs/kernel-256k.log | sort -t, -k2 -g | tail -3
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
