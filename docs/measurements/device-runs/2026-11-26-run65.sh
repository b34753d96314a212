#!/usr/bin/env bash
# Device run 65 (issue 18), the review's build: the ds kernel picks its tile loop in one function and
# dispatches once; the reduction has one loop (no remainder copy); the engine reads the positions for
# its Morton order back from the j-memory instead of keeping a host copy per set_j. The Hermite GPU,
# CLI and g6 tests; the 16K Plummer run, whose blocks and |dE/E| must equal run 59's (136309,
# 7.660e-08); the engine and the kernel at 256K all active.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 250 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
timeout 120 $D/nbody_cli_tests --gtest_color=no --gtest_brief=1 --gtest_filter='Hermite*:Integrator*' > $OUT/logs/cli-tests.log 2>&1
echo "cli tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/cli-tests.log | head -8
G6_HERMITE_EXECUTABLE=$D/g6_hermite timeout 120 $D/nbody_g6_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/g6-tests.log 2>&1
echo "g6 tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/g6-tests.log | head -8
timeout 120 $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds > $OUT/logs/plummer16k.log 2>&1
echo "plummer16k: exit $? (t = $((SECONDS-t0)) s)"; tail -2 $OUT/logs/plummer16k.log
timeout 100 $D/nbody_hermite_bench engine 262144 5 > $OUT/logs/engine-256k.log 2>&1; tail -1 $OUT/logs/engine-256k.log
timeout 100 $D/nbody_hermite_bench kernel 262144 262144 3 128 4 4 > $OUT/logs/kernel-256k.log 2>&1; grep "^kernel ds" $OUT/logs/kernel-256k.log | sed 's/^kernel ds N [0-9]* active [0-9]* //'
timeout 100 $D/nbody_hermite_bench kernel 32768 1024 50 128 4 2 > $OUT/logs/kernel-1024.log 2>&1; grep "^kernel ds" $OUT/logs/kernel-1024.log | sed 's/^kernel ds N [0-9]* active [0-9]* //'
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
