#!/usr/bin/env bash
# Device run 25 (issue 18): the cuda Hermite engine picks two i-bodies per thread from 8,192 active
# bodies on (bodies_per_thread 0, the new default): the CUDA tests (the large-batch test among them)
# and the 32K Plummer run with the default against one body per thread, in one call.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 240 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
p() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -1 $OUT/logs/$name.log; }
p plummer32k-bpt1 $D/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds 1
p plummer32k-default $D/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
