#!/usr/bin/env bash
# Device run 113 (nvidia-h100-x2): the last commit's refusal of block steps on several GPUs (one
# message) and the two-GPU tests around it.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|Expected|Which is"
nvidia-smi --query-gpu=name --format=csv,noheader
step two-gpu-tests 120 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus.*:ForceShares.*:GpuBlockSteps*'
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
