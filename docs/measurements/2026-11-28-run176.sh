#!/usr/bin/env bash
# Device run 176 (nvidia-h100-x2): bench's settling of the GPUs' shares with each call waiting for its
# step (fresh times for every move) and eight moves; the tree at 1M, 4M and 16M on one and two GPUs;
# the two-GPU tests.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|^ +[0-9]+ symm|GPU shares|settled"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
B="$D/nbody bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05 --repeats 5 --warmup 10"
for n in 1M 4M 16M; do
  step b$n-1 90 $B -n $n
  step b$n-2 90 $B -n $n --gpus 2
done
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus*'
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
