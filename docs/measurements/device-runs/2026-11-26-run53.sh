#!/usr/bin/env bash
# Device run 53 (issue 18): the ds kernel, version 4 (far-apart tiles skip the low parts, kFarRatio 6;
# splits of whole tiles; padding out of the id range), the build to commit: the Hermite GPU, CLI and
# g6 tests; every ds shape at 256K all active and the best at 1M, in Morton order; the engine's
# default shape in the generator's order and the Plummer runs end to end, against the committed
# kernel (bin/old), in one call.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 250 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
grep -E "max (relative|error)" $OUT/logs/cuda-tests.log | head -16
timeout 120 $D/nbody_cli_tests --gtest_color=no --gtest_brief=1 --gtest_filter='Hermite*:Integrator*' > $OUT/logs/cli-tests.log 2>&1
echo "cli tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/cli-tests.log | head -8
G6_HERMITE_EXECUTABLE=$D/g6_hermite timeout 120 $D/nbody_g6_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/g6-tests.log 2>&1
echo "g6 tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/g6-tests.log | head -8
k() { local name=$1; shift; timeout 200 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E '^kernel ds' $OUT/logs/$name.log | sed 's/^kernel ds N [0-9]* active [0-9]* //' | sort -t, -k2 -g | tail -${TOP:-3}; }
TOP=8 k new-256k-all $D/nbody_hermite_bench kernel 262144 262144 2 0 0 0
k old-256k-best $D/old/nbody_hermite_bench kernel 262144 262144 3 256 8 4
k new-1m-256x8x2 $D/nbody_hermite_bench kernel 1048576 1048576 1 256 8 2
k new-1m-256x4x4 $D/nbody_hermite_bench kernel 1048576 1048576 1 256 4 4
k old-1m-256x8x4 $D/old/nbody_hermite_bench kernel 1048576 1048576 1 256 8 4
export HERMITE_BENCH_ORDER=input
k old-input-256k-128x4x4 $D/old/nbody_hermite_bench kernel 262144 262144 3 128 4 4
k new-input-256k-128x4x4 $D/nbody_hermite_bench kernel 262144 262144 3 128 4 4
k old-input-32k $D/old/nbody_hermite_bench kernel 32768 32768 10 128 4 4
k new-input-32k $D/nbody_hermite_bench kernel 32768 32768 10 128 4 4
unset HERMITE_BENCH_ORDER
p() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -1 $OUT/logs/$name.log; }
p plummer16k-old $D/old/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
p plummer16k-new $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
p plummer32k-new $D/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
p plummer32k-old $D/old/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
cuobjdump -sass $D/nbody_hermite_bench 2>/dev/null | awk '/Function : .*force_ds/{on=1} /Function : /&&!/force_ds/{on=0} on' | gzip > $OUT/logs/sass-new.txt.gz
python3 scripts/sass-loop-count.py $OUT/logs/sass-new.txt.gz 256,4,0,4 2>&1 | tail -6
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
