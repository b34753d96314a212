#!/usr/bin/env bash
# Device run 172 (nvidia-h100-x2): the two-GPU and share tests after the review mends of the tree's
# relative criterion (one acceleration_norm for the walk's store and take_accelerations: the
# two-GPU run must stay the one-GPU run bit for bit), and the tree's step at 1M and 16M on one and
# two GPUs with the defaults, the points the replicated cost model is refitted to (issue 30).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|^ +[0-9]+ symm|GPU shares"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus*:ForceShares*:MultiGpu*:*Shares*:PeerGate*'
B="$D/nbody bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05 --repeats 5 --warmup 10"
for k in 1 2; do
  step b1m-1-$k 60 $B -n 1M
  step b1m-2-$k 60 $B -n 1M --gpus 2
  step b16m-1-$k 90 $B -n 16M
  step b16m-2-$k 90 $B -n 16M --gpus 2
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
