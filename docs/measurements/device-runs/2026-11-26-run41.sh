#!/usr/bin/env bash
# Device run 41 (issue 18): the partial-sum reduction with kUnroll = 8 splits' loads in flight at once
# (the same sums in the same order). The kernel benchmark now times the reduction alone too; old
# (.dev-17/bin/old: commit 1d76d84, the unrolled-by-one reduction) and new in the same call; the Hermite GPU tests; the 32K and 16K
# Plummer runs of both.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
k() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^kernel ds.*block 128 unroll 4 bpt 1 .*auto" $OUT/logs/$name.log; grep -E "^kernel ds" $OUT/logs/$name.log | sort -t, -k2 -g | tail -2; }
k old-1024 $D/old/nbody_hermite_bench kernel 32768 1024 50
k new-1024 $D/nbody_hermite_bench kernel 32768 1024 50
k old-336 $D/old/nbody_hermite_bench kernel 32768 336 50
k new-336 $D/nbody_hermite_bench kernel 32768 336 50
p() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -2 $OUT/logs/$name.log; }
for r in 1 2; do
p plummer32k-t3-old-$r $D/old/nbody_hermite_bench plummer 32768 3 0.01 3.0517578125e-05 cuda ds
p plummer32k-t3-new-$r $D/nbody_hermite_bench plummer 32768 3 0.01 3.0517578125e-05 cuda ds
done
p plummer16k-old $D/old/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
p plummer16k-new $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
