#!/usr/bin/env bash
# Device run 60 (issue 18): batches with far tiles take twice the automatic j-split (far and near tiles
# differ in cost; run 59 measured the doubled split faster at 256K and 1M). The Hermite GPU tests; the
# engine's compute() with every body active; the kernel's automatic split at 256K and 1M.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 250 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
e() { local name=$1; shift; timeout 200 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -1 $OUT/logs/$name.log; }
e engine-256k $D/nbody_hermite_bench engine 262144 5
e engine-1m $D/nbody_hermite_bench engine 1048576 2
e engine-32k $D/nbody_hermite_bench engine 32768 20
k() { local name=$1; shift; timeout 200 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E '^kernel ds' $OUT/logs/$name.log | sed 's/^kernel ds N [0-9]* active [0-9]* //'; }
k new-256k-128x4x4 $D/nbody_hermite_bench kernel 262144 262144 3 128 4 4
k new-256k-256x4x4 $D/nbody_hermite_bench kernel 262144 262144 3 256 4 4
k new-1m-128x4x4 $D/nbody_hermite_bench kernel 1048576 1048576 1 128 4 4
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
