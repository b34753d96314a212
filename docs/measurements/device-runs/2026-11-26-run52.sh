#!/usr/bin/env bash
# Device run 52 (issue 18): the ds kernel, version 4 candidate (far-apart tiles without the low parts;
# splits of whole tiles; padding left out of the id range): the Hermite GPU tests (with the new
# DsFarTilesMatchTheCpuReference); every ds shape at 256K all active in Morton order; the engine's
# default shapes in the generator's order, against the committed kernel (bin/old), in one call.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
grep -E "max relative" $OUT/logs/cuda-tests.log | head -12
k() { local name=$1; shift; timeout 200 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E '^kernel ds' $OUT/logs/$name.log | sed 's/^kernel ds N [0-9]* active [0-9]* //' | sort -t, -k2 -g | tail -${TOP:-4}; }
TOP=8 k new-256k-all $D/nbody_hermite_bench kernel 262144 262144 2 0 0 0
k old-256k-best $D/old/nbody_hermite_bench kernel 262144 262144 3 256 8 4
k new-1m-U4 $D/nbody_hermite_bench kernel 1048576 1048576 1 256 4 4
export HERMITE_BENCH_ORDER=input
k old-input-256k-128x4x4 $D/old/nbody_hermite_bench kernel 262144 262144 3 128 4 4
k new-input-256k-128x4x4 $D/nbody_hermite_bench kernel 262144 262144 3 128 4 4
k old-input-32k $D/old/nbody_hermite_bench kernel 32768 32768 10 128 4 4
k new-input-32k $D/nbody_hermite_bench kernel 32768 32768 10 128 4 4
k old-input-1024 $D/old/nbody_hermite_bench kernel 32768 1024 50 128 4 2
k new-input-1024 $D/nbody_hermite_bench kernel 32768 1024 50 128 4 2
unset HERMITE_BENCH_ORDER
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
