#!/usr/bin/env bash
# Device run 62 (issue 18): run 61's build (e712bcd), asked for an H200 (the issue's card; an H100 came): the Hermite GPU tests,
# the engine's compute() with every body active, the kernel at the engine's default shape and at the
# fastest, against version 3 (bin/old) in the same call.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 250 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
e() { local name=$1; shift; timeout 200 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -1 $OUT/logs/$name.log; }
e engine-256k $D/nbody_hermite_bench engine 262144 5
e engine-1m $D/nbody_hermite_bench engine 1048576 2
k() { local name=$1; shift; timeout 200 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E '^kernel ds' $OUT/logs/$name.log | sed 's/^kernel ds N [0-9]* active [0-9]* //'; }
k new-256k-128x4x4 $D/nbody_hermite_bench kernel 262144 262144 3 128 4 4
k new-256k-256x4x4 $D/nbody_hermite_bench kernel 262144 262144 3 256 4 4
k new-1m-128x4x4 $D/nbody_hermite_bench kernel 1048576 1048576 1 128 4 4
k old-256k-best $D/old/nbody_hermite_bench kernel 262144 262144 3 256 8 4
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
