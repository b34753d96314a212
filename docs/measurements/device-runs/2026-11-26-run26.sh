#!/usr/bin/env bash
# Device run 26 (issue 18): hermite6 on the GPU. The fp64 snap kernel against the cpu engine (CUDA
# tests), the CLI and viewer Hermite tests on the GPU build, and the 16K Plummer energy run to t = 10:
# hermite4 at eta 0.01 (ds, the row) against hermite6 at its default eta 0.1 (fp64 snap
# kernel), in one call.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 240 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
$D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda.Snap*:HermiteCuda.Sixth*' 2>&1 | grep -E "snap kernel|order 6|OK|FAILED"
timeout 120 $D/nbody_cli_tests --gtest_color=no --gtest_brief=1 --gtest_filter='Hermite*:Integrator*' > $OUT/logs/cli-tests.log 2>&1
echo "cli tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/cli-tests.log | head -8
timeout 120 $D/nbody_render_tests --gtest_color=no --gtest_brief=1 --gtest_filter='Hermite*' > $OUT/logs/render-tests.log 2>&1
echo "render tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/render-tests.log | head -8
p() { local name=$1; shift; timeout 200 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep "dE/E" $OUT/logs/$name.log | tail -3; }
p plummer2k-h6-cuda $D/nbody_hermite_bench plummer 2048 10 0.15 0.00048828125 cuda fp64 0 6
p plummer16k-h4-ds $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds 0 4
p plummer16k-h6 $D/nbody_hermite_bench plummer 16384 10 0.1 6.103515625e-05 cuda fp64 0 6
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
