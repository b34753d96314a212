#!/usr/bin/env bash
# Device run 160 (two GPUs): the balance test with 16 rebalancings after the other work is set
# (run 159: 12 % apart after 8 with the relative criterion's unequal groups), three times, and the
# two-GPU tree run against one GPU's bits.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|GPU 0"
for k in 1 2 3; do
  step tests-$k 120 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus.TheDrawingGpu*:TwoGpus.TreeIs*:ForceShares*'
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
