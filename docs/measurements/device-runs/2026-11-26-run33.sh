#!/usr/bin/env bash
# Device run 33 (issue 18): the ds Hermite force kernel, version 3: the self test only in tiles that
# may hold an i-body's own id, tiles of one mass without the per-pair mass multiply, and four
# i-bodies per thread as a candidate. The Hermite GPU tests against the CPU engine, then the kernel
# rates and the 32K Plummer run before (.dev-17/bin/old: version 2, the committed kernel) and after,
# in the same call on the same GPU; the SASS of the new kernels for the count.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
grep -E "bodies/thread .* max relative" $OUT/logs/cuda-tests.log
k() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^kernel ds" $OUT/logs/$name.log | sort -t, -k2 -g | tail -5; }
k old-256k $D/old/nbody_hermite_bench kernel 262144 262144 3
k new-256k $D/nbody_hermite_bench kernel 262144 262144 3
k old-1024 $D/old/nbody_hermite_bench kernel 32768 1024 50
k new-1024 $D/nbody_hermite_bench kernel 32768 1024 50
p() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -1 $OUT/logs/$name.log; }
p plummer32k-old $D/old/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
p plummer32k-new $D/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
cuobjdump -sass $D/nbody_hermite_bench 2>/dev/null | awk '/Function : .*force_ds/{on=1} /Function : /&&!/force_ds/{on=0} on' | gzip > $OUT/logs/sass-new.txt.gz
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
