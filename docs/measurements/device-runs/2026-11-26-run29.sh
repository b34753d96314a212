#!/usr/bin/env bash
# Device run 29 (issue 18): the build with the snap kernel folded into force_fp64 (template SNAP)
# and the GPU tests refactored: CUDA, CLI and viewer Hermite tests; hermite6 end to end on the GPU
# engine from the command line and in the headless viewer (the default backend); the 16K Plummer
# hermite6 run again (run 28 measured the separate kernel this replaces).
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 240 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
$D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda.Snap*:HermiteCuda.Sixth*:HermiteCuda.Integrator*' 2>&1 | grep -E "snap kernel|order|OK|FAILED"
timeout 120 $D/nbody_cli_tests --gtest_color=no --gtest_brief=1 --gtest_filter='Hermite*:Integrator*' > $OUT/logs/cli-tests.log 2>&1
echo "cli tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/cli-tests.log | head -8
timeout 200 $D/nbody_render_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/render-tests.log 2>&1
echo "render tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/render-tests.log | head -8
$D/nbody run --scene scenes/few-body/pythagorean-three-body.toml --t-end 70 2>&1 | grep -E "engine|bodies to|energy error"
$D/nbody view --headless --scene scenes/few-body/figure-eight.toml --frames 40 --size 320x240 --t-end 6.3259139542252996 2>&1 | grep -E "^  hermite6|hermite_report"
p() { local name=$1; shift; timeout 200 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -1 $OUT/logs/$name.log; }
p plummer16k-h6 $D/nbody_hermite_bench plummer 16384 10 0.1 6.103515625e-05 cuda fp64 0 6
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
