#!/usr/bin/env bash
# Device run 51 (issue 18): the ds kernel, version 4 candidate: tiles far from a warp's i-bodies for
# their distance from the origin skip the low parts of the positions (-6 FADD, -1 LDS.128 of ~34
# slots). Bodies in Morton order (as the engine will keep them) and in the generator's order, against
# the committed kernel (bin/old, which has no far loops) in the same call; the Hermite GPU tests.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
k() { local name=$1; shift; timeout 100 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $?"; grep -E '^kernel ds' $OUT/logs/$name.log | sed 's/^kernel ds N [0-9]* active [0-9]* //'; }
for round in 1 2; do
  k old-256k-U8-r$round $D/old/nbody_hermite_bench kernel 262144 262144 3 256 8 4
  k new-256k-U8-r$round $D/nbody_hermite_bench kernel 262144 262144 3 256 8 4
  HERMITE_BENCH_ORDER=input k new-input-256k-U8-r$round $D/nbody_hermite_bench kernel 262144 262144 3 256 8 4
done
k old-256k-U4 $D/old/nbody_hermite_bench kernel 262144 262144 3 256 4 4
k new-256k-U4 $D/nbody_hermite_bench kernel 262144 262144 3 256 4 4
k old-32k $D/old/nbody_hermite_bench kernel 32768 32768 10 128 4 4
k new-32k $D/nbody_hermite_bench kernel 32768 32768 10 128 4 4
k old-1024 $D/old/nbody_hermite_bench kernel 32768 1024 50 128 4 2
k new-1024 $D/nbody_hermite_bench kernel 32768 1024 50 128 4 2
timeout 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
grep -E "max relative" $OUT/logs/cuda-tests.log | head -4
cuobjdump -sass $D/nbody_hermite_bench 2>/dev/null | awk '/Function : .*force_ds/{on=1} /Function : /&&!/force_ds/{on=0} on' | gzip > $OUT/logs/sass-new.txt.gz
python3 scripts/sass-loop-count.py $OUT/logs/sass-new.txt.gz 256,8,0,4 2>&1 | tail -6
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
