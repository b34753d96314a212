#!/usr/bin/env bash
# Device run 34 (issue 18): the ds kernel version 3 with the double sums in shared memory (56 fewer
# registers at four bodies per thread), against version 2 (.dev-17/bin/old) in the same call: the
# Hermite GPU tests, all-active 256K, 1,024 / 8,192 of 32K, 32K of 256K, the 32K Plummer run with
# the engine's rule and with 4 bodies per thread forced; the SASS for the count.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
k() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^kernel ds" $OUT/logs/$name.log | sort -t, -k2 -g | tail -3; }
k old-256k $D/old/nbody_hermite_bench kernel 262144 262144 3
k new-256k $D/nbody_hermite_bench kernel 262144 262144 3
k new-256k-32k $D/nbody_hermite_bench kernel 262144 32768 5
k new-32k-8k $D/nbody_hermite_bench kernel 32768 8192 20
k old-1024 $D/old/nbody_hermite_bench kernel 32768 1024 50
k new-1024 $D/nbody_hermite_bench kernel 32768 1024 50
p() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -1 $OUT/logs/$name.log; }
p plummer32k-old $D/old/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
p plummer32k-new $D/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
cuobjdump -sass $D/nbody_hermite_bench 2>/dev/null | awk '/Function : .*force_ds/{on=1} /Function : /&&!/force_ds/{on=0} on' | gzip > $OUT/logs/sass-new.txt.gz
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
