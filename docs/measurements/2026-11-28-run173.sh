#!/usr/bin/env bash
# Device run 173 (nvidia-h100-x2): bench on several GPUs now times the shares after they settled
# (72 untimed step calls first; before, its six calls never reached the first rebalancing at the
# 16th). The new test, then the tree at 1M and 16M on one and two GPUs with the defaults, twice.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|^ +[0-9]+ symm|GPU shares|settled"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus*'
B="$D/nbody bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05 --repeats 5 --warmup 10"
for k in 1 2; do
  step b1m-1-$k 60 $B -n 1M
  step b1m-2-$k 60 $B -n 1M --gpus 2
  step b16m-1-$k 90 $B -n 16M
  step b16m-2-$k 90 $B -n 16M --gpus 2
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
