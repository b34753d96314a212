#!/usr/bin/env bash
# Device run 21 (issue 18): the cuda Hermite engine's transfers on one stream through page-locked
# buffers with one wait per force evaluation (was five synchronous copies). The CUDA and render
# tests, then the 32K Plummer run before (.dev-17/bin/old: run 17's engine) and after, in one call,
# and the 16K energy run of the table.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 240 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
W=$(mktemp -d)
(cd $W && timeout 200 $D/nbody_render_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/render-tests.log 2>&1)
echo "render tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/render-tests.log | head -12
p() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -1 $OUT/logs/$name.log; }
p plummer32k-old $D/old/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
p plummer32k-new $D/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
p plummer16k-new $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
