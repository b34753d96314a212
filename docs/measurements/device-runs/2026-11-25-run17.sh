#!/usr/bin/env bash
# Device run 17 (issue 18): the ds Hermite force kernel with r^2 + eps^2 in one FMA chain, a flush-
# to-zero MUFU.RSQ, and two i-bodies per thread (bodies_per_thread 2). The Hermite GPU tests against
# the CPU engine, then the kernel rates and the 32K Plummer run, before (.dev-17/old: the committed
# kernel) and after, in the same call on the same GPU; the SASS of both kernels for the count.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 240 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
grep -E "bodies/thread .* max relative" $OUT/logs/cuda-tests.log
k() { local name=$1; shift; timeout 120 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^kernel ds" $OUT/logs/$name.log | sort -t, -k2 -g | tail -4; }
k old-256k $D/old/nbody_hermite_bench kernel 262144 262144 3
k new-256k $D/nbody_hermite_bench kernel 262144 262144 3
k old-1024 $D/old/nbody_hermite_bench kernel 32768 1024 50
k new-1024 $D/nbody_hermite_bench kernel 32768 1024 50
p() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -1 $OUT/logs/$name.log; }
p plummer32k-old $D/old/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
p plummer32k-new-bpt1 $D/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds 1
p plummer32k-new-bpt2 $D/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds 2
for b in old/nbody_hermite_bench nbody_hermite_bench; do cuobjdump -sass $D/$b 2>/dev/null | awk '/Function : .*force_ds/{on=1} /Function : /&&!/force_ds/{on=0} on' | gzip > $OUT/logs/sass-$(echo $b | tr / -).txt.gz; done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
