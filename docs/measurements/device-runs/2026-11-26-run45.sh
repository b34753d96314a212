#!/usr/bin/env bash
# Device run 45 (issue 18): the integrator keeps its per-block vectors (no allocation or zeroing per
# block step), and the reduction's comment and row merge tidied. Old (.dev-17/bin/old: commit 6ed9189)
# and new in the same call: the Hermite GPU tests, the 1,024-of-32K kernel, the 32K (t = 3) and 16K
# Plummer runs.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
k() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^kernel ds.*block 128 unroll 4 bpt 1 .*auto" $OUT/logs/$name.log; grep -E "^kernel ds" $OUT/logs/$name.log | sort -t, -k2 -g | tail -1; }
k new-1024 $D/nbody_hermite_bench kernel 32768 1024 50
p() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -2 $OUT/logs/$name.log; }
for r in 1 2; do
p plummer32k-t3-old-$r $D/old/nbody_hermite_bench plummer 32768 3 0.01 3.0517578125e-05 cuda ds
p plummer32k-t3-new-$r $D/nbody_hermite_bench plummer 32768 3 0.01 3.0517578125e-05 cuda ds
done
p plummer16k-old $D/old/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
p plummer16k-new $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
