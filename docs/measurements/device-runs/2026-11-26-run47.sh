#!/usr/bin/env bash
# Device run 47 (issue 18): the review commit (one i-rows helper in the cuda engine, the integrator's
# j_particle member): the Hermite GPU tests, the Hermite CLI and g6 tests, and the 16K Plummer run.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
timeout 120 $D/nbody_cli_tests --gtest_color=no --gtest_brief=1 --gtest_filter='Hermite*:Integrator*' > $OUT/logs/cli-tests.log 2>&1
echo "cli tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/cli-tests.log | head -8
G6_HERMITE_EXECUTABLE=$D/g6_hermite timeout 120 $D/nbody_g6_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/g6-tests.log 2>&1
echo "g6 tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/g6-tests.log | head -8
timeout 150 $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds > $OUT/logs/plummer16k.log 2>&1
echo "plummer16k: exit $? (t = $((SECONDS-t0)) s)"; tail -2 $OUT/logs/plummer16k.log
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
