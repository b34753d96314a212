#!/usr/bin/env bash
# Device run 167 (one GPU): the costliest groups first (run 166) only where a resident warp walks at
# most 32 groups by the last pass's count (1M and 4M, not 16M), against the head before it
# (build-pack/before-order.tar.xz: the groups in key order), alternately; every CUDA test.
source docs/measurements/device-runs/unpack-pk.sh
mkdir -p .pkb && tar -xJf build-pack/before-order.tar.xz -C .pkb
BEFORE=$(find $PWD/.pkb -name nbody -type f | head -1)
SHOW="^ +[0-9]+ |PASSED|FAILED|Failure"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-tests 300 $D/nbody_cuda_tests --gtest_color=no
B="bench --backend cuda --gravity tree --repeats 5 --warmup 20 --dt 0.0625 --softening 0.05"
for round in 1 2; do
  for n in 1M 4M 16M; do
    step b$n-before-$round 90 $BEFORE $B -n $n
    step b$n-order-$round 90 $D/nbody $B -n $n
  done
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
