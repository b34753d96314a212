#!/usr/bin/env bash
# Device run 35 (issue 18): the ds kernel version 3 as committed (three tile loops, the double sums in
# registers, four bodies per thread from 32K active bodies): the whole CUDA suite, the Hermite CLI
# and g6 tests on the GPU; kernel rates of version 2 (.dev-17/bin/old) and 3 in the same call; the
# 32K and 16K Plummer runs (hermite4, ds, the engine's defaults) of both.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 240 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
timeout 120 $D/nbody_cli_tests --gtest_color=no --gtest_brief=1 --gtest_filter='Hermite*:Integrator*' > $OUT/logs/cli-tests.log 2>&1
echo "cli tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/cli-tests.log | head -8
timeout 120 $D/nbody_g6_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/g6-tests.log 2>&1
echo "g6 tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/g6-tests.log | head -8
k() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^kernel ds" $OUT/logs/$name.log | sort -t, -k2 -g | tail -2; }
k old-256k $D/old/nbody_hermite_bench kernel 262144 262144 3
k new-256k $D/nbody_hermite_bench kernel 262144 262144 3
k old-256k-32k $D/old/nbody_hermite_bench kernel 262144 32768 5
k new-256k-32k $D/nbody_hermite_bench kernel 262144 32768 5
k old-32k-32k $D/old/nbody_hermite_bench kernel 32768 32768 20
k new-32k-32k $D/nbody_hermite_bench kernel 32768 32768 20
k old-32k-8k $D/old/nbody_hermite_bench kernel 32768 8192 20
k new-32k-8k $D/nbody_hermite_bench kernel 32768 8192 20
k old-1024 $D/old/nbody_hermite_bench kernel 32768 1024 50
k new-1024 $D/nbody_hermite_bench kernel 32768 1024 50
p() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -1 $OUT/logs/$name.log; }
p plummer32k-old $D/old/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
p plummer32k-new $D/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
p plummer16k-old $D/old/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
p plummer16k-new $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
cuobjdump -sass $D/nbody_hermite_bench 2>/dev/null | awk '/Function : .*force_ds/{on=1} /Function : /&&!/force_ds/{on=0} on' | gzip > $OUT/logs/sass-new.txt.gz
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
