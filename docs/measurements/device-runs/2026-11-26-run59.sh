#!/usr/bin/env bash
# Device run 59 (issue 18), the build to commit: where every j-particle's id is its address, the engine
# gives the kernel slots for ids in Morton order (a tile's ids stay a range, so tiles that are not far
# skip the self test again). The Hermite GPU, CLI and g6 tests; the engine's compute() with every body
# active; the kernel; the Plummer runs against version 3 (bin/old), in one call.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 250 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
timeout 120 $D/nbody_cli_tests --gtest_color=no --gtest_brief=1 --gtest_filter='Hermite*:Integrator*' > $OUT/logs/cli-tests.log 2>&1
echo "cli tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/cli-tests.log | head -8
G6_HERMITE_EXECUTABLE=$D/g6_hermite timeout 120 $D/nbody_g6_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/g6-tests.log 2>&1
echo "g6 tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/g6-tests.log | head -8
e() { local name=$1; shift; timeout 200 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -1 $OUT/logs/$name.log; }
e engine-256k $D/nbody_hermite_bench engine 262144 5
e engine-1m $D/nbody_hermite_bench engine 1048576 2
e engine-32k $D/nbody_hermite_bench engine 32768 20
k() { local name=$1; shift; timeout 200 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E '^kernel ds' $OUT/logs/$name.log | sed 's/^kernel ds N [0-9]* active [0-9]* //' | sort -t, -k2 -g | tail -${TOP:-3}; }
TOP=6 k new-256k-all $D/nbody_hermite_bench kernel 262144 262144 2 0 0 0
k old-256k-best $D/old/nbody_hermite_bench kernel 262144 262144 3 256 8 4
k new-1m-256x4x4 $D/nbody_hermite_bench kernel 1048576 1048576 1 256 4 4
p() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -2 $OUT/logs/$name.log; }
p plummer16k-new $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
p plummer32k-new $D/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
p plummer32k-old $D/old/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
